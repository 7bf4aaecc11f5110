package sync

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"sort"
	"strconv"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// StateFile is where sync keeps what it last mirrored, relative to the
// workspace root. It is a cache validated by content: an issue whose
// desired rendering hashes to the stored value costs no API call; any
// difference (a new entry, a changed label rule, a new bot login) makes
// the issue be read and reconciled again. Losing the file only costs reads.
const StateFile = ".agentx/state/github-sync.json"

// State is the sync state.
type State struct {
	SchemaVersion int `json:"schema_version"`
	// LabelsEnsured lists repository labels known to exist.
	LabelsEnsured []string `json:"labelsEnsured"`
	// Issues maps an issue number to what was mirrored there.
	Issues map[string]IssueState `json:"issues"`

	touched map[string]bool
}

// IssueState is what one issue shows after the last sync.
type IssueState struct {
	Hash string `json:"hash"`
	// Labels are the managed labels on the issue.
	Labels []string `json:"labels"`
}

// NewState is an empty state.
func NewState() *State { return &State{SchemaVersion: 1, Issues: map[string]IssueState{}} }

// ParseState decodes a state file; a file that does not parse is treated
// as empty (it is a cache).
func ParseState(data []byte) *State {
	st := NewState()
	if err := json.Unmarshal(data, st); err != nil || st.SchemaVersion != 1 {
		return NewState()
	}
	if st.Issues == nil {
		st.Issues = map[string]IssueState{}
	}
	return st
}

// Get returns the state of issue, if any.
func (s *State) Get(issue int) (IssueState, bool) {
	is, ok := s.Issues[strconv.Itoa(issue)]
	return is, ok
}

// Set records the state of issue.
func (s *State) Set(issue int, is IssueState) {
	k := strconv.Itoa(issue)
	if s.touched == nil {
		s.touched = map[string]bool{}
	}
	if cur, ok := s.Issues[k]; ok && cur.Hash == is.Hash && equalStrings(cur.Labels, is.Labels) {
		return
	}
	s.Issues[k] = is
	s.touched[k] = true
}

// Forget drops issue (its state is unknown, e.g. after a failed write).
func (s *State) Forget(issue int) {
	k := strconv.Itoa(issue)
	if _, ok := s.Issues[k]; ok {
		delete(s.Issues, k)
		if s.touched == nil {
			s.touched = map[string]bool{}
		}
		s.touched[k] = true
	}
}

// LabelEnsured reports whether name is known to exist.
func (s *State) LabelEnsured(name string) bool {
	for _, l := range s.LabelsEnsured {
		if l == name {
			return true
		}
	}
	return false
}

// MarkLabel records that name exists.
func (s *State) MarkLabel(name string) {
	if !s.LabelEnsured(name) {
		s.LabelsEnsured = append(s.LabelsEnsured, name)
		sort.Strings(s.LabelsEnsured)
		if s.touched == nil {
			s.touched = map[string]bool{}
		}
		s.touched[""] = true
	}
}

// Changed reports whether anything was recorded since loading.
func (s *State) Changed() bool { return len(s.touched) > 0 }

// mergeInto applies this run's changes on top of a fresher state written
// by an overlapping run: issues this run touched win, the rest are theirs.
func (s *State) mergeInto(fresh *State) *State {
	for k := range s.touched {
		if k == "" {
			continue
		}
		if is, ok := s.Issues[k]; ok {
			fresh.Issues[k] = is
		} else {
			delete(fresh.Issues, k)
		}
	}
	for _, l := range s.LabelsEnsured {
		fresh.MarkLabel(l)
	}
	fresh.touched = s.touched
	return fresh
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// RemoteState keeps the state in the repository through the contents API,
// so the next run (a fresh checkout) finds it with one read.
//
// The checkout usually holds the latest state already (the previous run
// committed it on this branch before the push that started this run), so
// Load reads LocalFile first: an unchanged repository then costs no API
// call at all. The local file's git blob id is the sha the contents API
// wants; if the remote moved on meanwhile, Save meets a conflict and
// merges with the fresh copy.
type RemoteState struct {
	GH *Client
	// Path is the file's path in the repository (StateFile under the
	// workspace's directory in the repository).
	Path   string
	Branch string
	// LocalFile is the same file in the checkout ("" to always ask the API).
	LocalFile string
	sha       string
}

// blobSHA is git's object id of a blob, which the contents API calls the
// file's sha.
func blobSHA(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// RepoPath joins the workspace's directory in the repository and a
// workspace-relative file.
func RepoPath(prefix, file string) string {
	if prefix == "" || prefix == "." {
		return file
	}
	return path.Join(prefix, file)
}

// Load reads the state (empty when absent).
func (r *RemoteState) Load(ctx context.Context) (*State, error) {
	if r.LocalFile != "" {
		if data, err := os.ReadFile(r.LocalFile); err == nil {
			r.sha = blobSHA(data)
			return ParseState(data), nil
		}
	}
	return r.loadRemote(ctx)
}

func (r *RemoteState) loadRemote(ctx context.Context) (*State, error) {
	data, sha, err := r.GH.GetFile(ctx, r.Path, r.Branch)
	if errors.Is(err, ErrNotFound) {
		r.sha = ""
		return NewState(), nil
	}
	if err != nil {
		return nil, err
	}
	r.sha = sha
	return ParseState(data), nil
}

// Save writes the state if it changed, merging with a fresher copy when an
// overlapping run wrote it meanwhile.
func (r *RemoteState) Save(ctx context.Context, st *State) error {
	if !st.Changed() {
		return nil
	}
	for attempt := 0; ; attempt++ {
		data, err := jsonfile.Marshal(st)
		if err != nil {
			return fmt.Errorf("encode sync state: %w", err)
		}
		err = r.GH.PutFile(ctx, r.Path, r.Branch, "agentx: record GitHub sync state [skip ci]", data, r.sha)
		if err == nil {
			st.touched = nil
			return nil
		}
		if !errors.Is(err, ErrConflict) || attempt >= 3 {
			return err
		}
		fresh, lerr := r.loadRemote(ctx)
		if lerr != nil {
			return lerr
		}
		st = st.mergeInto(fresh)
	}
}
