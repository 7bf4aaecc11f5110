package sync

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
)

// The sync state is a cache validated by content: an issue whose ledger
// blob and desired rendering are those recorded costs no API call; any
// difference (a new entry, a changed label rule, a new bot login) makes
// the issue be read and reconciled again. Losing the file only costs
// reads. It lives on the state branch at SyncStatePath.

// State is the sync state.
type State struct {
	SchemaVersion int `json:"schema_version"`
	// LabelsEnsured lists repository labels known to exist.
	LabelsEnsured []string `json:"labelsEnsured"`
	// Issues maps an issue number to what was mirrored there.
	Issues map[string]IssueState `json:"issues"`
	// Settings fingerprints what the renderings depend on besides the
	// ledger (labels, bot login): a recorded ledger blob counts only
	// under the same settings.
	Settings string `json:"settings,omitempty"`
	// SweptUntil is where the last sweep of comments ended (RFC 3339);
	// ReconcileAfter the last issue the rotating reconcile checked.
	SweptUntil     string `json:"sweptUntil,omitempty"`
	ReconcileAfter int    `json:"reconcileAfter,omitempty"`
	// ReconcileRun is the workflow run that recorded ReconcileAfter.
	ReconcileRun int `json:"reconcileRun,omitempty"`
	// Ledgers lists every ledger (path -> blob id) of the commit a
	// complete run mirrored: with the complete mirror's message naming
	// this file's blob, a run reads the branch without its tree
	// (Syncer.QuickSnapshot).
	Ledgers map[string]string `json:"ledgers,omitempty"`
	// Stages maps an issue number to what its stage mirror shows
	// (stage.go).
	Stages map[string]StageState `json:"stages,omitempty"`

	touched map[string]bool
	orig    map[string]original
}

// IssueState is what one issue shows after the last sync.
type IssueState struct {
	Hash string `json:"hash"`
	// Labels are the managed labels on the issue.
	Labels []string `json:"labels"`
	// Blob is the git blob id of the ledger mirrored ("" when unknown).
	Blob string `json:"blob,omitempty"`
	// Watch is what the monitor needs to know of that blob without
	// reading it (monitorcache.go); nil when unknown.
	Watch *Watch `json:"watch,omitempty"`
	// Ingested counts the ledger's entries that came from commands when
	// it was mirrored: more now means ingest mirrored the issue since, and
	// the labels are read rather than taken from Labels.
	Ingested int `json:"ingested,omitempty"`
	// Shown is the hash of the mirrors' bodies (reconcile.go: the drift
	// check compares it with GitHub's without reading the ledger).
	Shown string `json:"shown,omitempty"`
}

// StageState is what one issue's stage mirror shows after the last sync.
type StageState struct {
	// Key is what it was derived from (both ledgers' blobs and the
	// workflows' fingerprint): the same key, nothing to read.
	Key  string `json:"key"`
	Hash string `json:"hash"`
	// Labels are the status labels on the issue.
	Labels []string `json:"labels,omitempty"`
}

// Stage returns the stage state of issue, if any.
func (s *State) Stage(issue int) (StageState, bool) {
	ss, ok := s.Stages[strconv.Itoa(issue)]
	return ss, ok
}

// stageTouch is the touched key of a stage state.
const stageTouch = "stage:"

// SetStage records the stage state of issue.
func (s *State) SetStage(issue int, ss StageState) {
	k := strconv.Itoa(issue)
	if cur, ok := s.Stages[k]; ok && cur.Key == ss.Key && cur.Hash == ss.Hash && equalStrings(cur.Labels, ss.Labels) {
		return
	}
	if s.Stages == nil {
		s.Stages = map[string]StageState{}
	}
	s.Stages[k] = ss
	if s.touched == nil {
		s.touched = map[string]bool{}
	}
	s.touched[stageTouch+k] = true
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
	if cur, ok := s.Issues[k]; ok && sameIssue(cur, is) {
		return
	}
	s.keepOriginal(k)
	s.Issues[k] = is
	s.retouch(k)
}

// Forget drops issue (its state is unknown, e.g. after a failed write).
func (s *State) Forget(issue int) {
	k := strconv.Itoa(issue)
	if _, ok := s.Issues[k]; ok {
		s.keepOriginal(k)
		delete(s.Issues, k)
		s.retouch(k)
	}
}

func sameIssue(a, b IssueState) bool {
	return a.Hash == b.Hash && a.Blob == b.Blob && a.Ingested == b.Ingested && a.Shown == b.Shown && equalStrings(a.Labels, b.Labels) && a.Watch.equal(b.Watch)
}

// original is an issue's state as read, kept on its first change, so a
// forget followed by the same record again (a reconcile that found all in
// order) leaves nothing to write.
type original struct {
	is IssueState
	ok bool
}

func (s *State) keepOriginal(k string) {
	if s.orig == nil {
		s.orig = map[string]original{}
	}
	if _, kept := s.orig[k]; !kept {
		is, ok := s.Issues[k]
		s.orig[k] = original{is, ok}
	}
}

// retouch marks k changed unless it is back to what was read.
func (s *State) retouch(k string) {
	if s.touched == nil {
		s.touched = map[string]bool{}
	}
	o := s.orig[k]
	is, ok := s.Issues[k]
	if ok == o.ok && (!ok || sameIssue(is, o.is)) {
		delete(s.touched, k)
		return
	}
	s.touched[k] = true
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
		if n, ok := strings.CutPrefix(k, stageTouch); ok {
			if fresh.Stages == nil {
				fresh.Stages = map[string]StageState{}
			}
			fresh.Stages[n] = s.Stages[n]
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
	if s.touched[""] {
		fresh.Settings = s.Settings
		fresh.SweptUntil = max(fresh.SweptUntil, s.SweptUntil)
		fresh.ReconcileAfter = s.ReconcileAfter
		fresh.ReconcileRun = s.ReconcileRun
	}
	if len(s.touched) > 0 { // the rotation is saved with whatever else is
		fresh.ReconcileAfter, fresh.ReconcileRun = s.ReconcileAfter, s.ReconcileRun
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

// blobSHA is git's object id of a blob, which the contents API calls the
// file's sha.
func blobSHA(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// SetSettings records the settings fingerprint the recorded blobs hold
// under.
func (s *State) SetSettings(fp string) {
	if s.Settings != fp {
		s.Settings = fp
		if s.touched == nil {
			s.touched = map[string]bool{}
		}
		s.touched[""] = true
	}
}

// RepoPath joins the workspace's directory in the repository and a
// workspace-relative file.
func RepoPath(prefix, file string) string {
	if prefix == "" || prefix == "." {
		return file
	}
	return path.Join(prefix, file)
}

// dropBlobs forgets the blob ids of the issues not in keep: they were
// recorded under other settings.
func (s *State) dropBlobs(keep map[int]string) {
	for k, is := range s.Issues {
		n, err := strconv.Atoi(k)
		if err != nil || keep[n] != "" || is.Blob == "" {
			continue
		}
		is.Blob, is.Watch = "", nil
		s.Issues[k] = is
		s.markTouched(k)
	}
}

func (s *State) markTouched(k string) {
	if s.touched == nil {
		s.touched = map[string]bool{}
	}
	s.touched[k] = true
}

// setLedgers records snap's ledgers.
func (s *State) setLedgers(snap *StateSnapshot) {
	_, paths := branchLedgers(snap)
	next := make(map[string]string, len(paths))
	for _, p := range paths {
		next[p] = snap.Blobs[p]
	}
	if len(next) == len(s.Ledgers) {
		same := true
		for p, b := range next {
			if s.Ledgers[p] != b {
				same = false
				break
			}
		}
		if same {
			return
		}
	}
	s.Ledgers = next
	s.markSettings()
}

// markSettings records that the state's run-wide fields changed.
func (s *State) markSettings() {
	if s.touched == nil {
		s.touched = map[string]bool{}
	}
	s.touched[""] = true
}
