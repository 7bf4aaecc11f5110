// Package artifact owns the stage artifact ledger of an issue,
// `.agentx/state/artifacts/issue-N.json` (seed 004's Artifact Manager):
// each deliverable a workflow step's `output` names (PRD-42, ADR-42,
// SPEC-42), the step and agent it belongs to, the git blob of its content
// and the commit that wrote it, and the blobs of the upstream artifacts it
// was written against (dependsOn). An upstream artifact whose blob has
// changed since makes the downstream one stale: Stale says so, derived at
// every read from the blobs, never stored, so it cannot drift.
//
// The file follows the clarification ledgers' rules: written under its
// lock and atomically (Store.Update), every entry sealed with a content
// hash (contenthash.Key), every change an audit line (the caller's),
// removal only by tombstone, and a union merge on the state branch
// (Merge). Stage derives an issue's stage from its workflow and ledgers.
package artifact

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/contenthash"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/tombstone"
)

// Status is an artifact's review status.
type Status string

// The statuses. Stale is derived (an upstream changed) and shown in place
// of the stored status; a file another tool wrote may store it too.
const (
	Draft    Status = "draft"
	InReview Status = "in-review"
	Approved Status = "approved"
	Rejected Status = "rejected"
	Stale    Status = "stale"
)

// Valid reports whether s is one of the statuses.
func (s Status) Valid() bool {
	switch s {
	case Draft, InReview, Approved, Rejected, Stale:
		return true
	}
	return false
}

// TombstoneKind is the kind of a tombstone that removes an artifact.
const TombstoneKind = "artifact"

// Dep is one upstream artifact and the blob it had when the downstream
// one was written (or last acknowledged).
type Dep struct {
	ID   string `json:"id"`
	Blob string `json:"blob"`
}

// Notice records that the owner was told once of one upstream change: the
// monitor's mark, so a change is announced once whoever runs it.
type Notice struct {
	ID            string `json:"id"`
	Blob          string `json:"blob"`
	Clarification string `json:"clarification,omitempty"`
	At            string `json:"at"`
	// Status is the artifact's stored status when the change was found:
	// approved means it got past its review stale (the digest's "found
	// after review"), anything else that it was caught before.
	Status Status `json:"status,omitempty"`
}

// Artifact is one entry of the ledger.
type Artifact struct {
	ID       string `json:"id"`
	Workflow string `json:"workflow"`
	Step     string `json:"step"`
	Agent    string `json:"agent"`
	Path     string `json:"path"`
	// Blob is the git blob id of the content last recorded; Commit the
	// commit that wrote it (empty when added by hand from the work tree).
	Blob      string `json:"blob"`
	Commit    string `json:"commit,omitempty"`
	Created   string `json:"created"`
	Updated   string `json:"updated"`
	DependsOn []Dep  `json:"dependsOn"`
	Status    Status `json:"status"`
	// Reopened puts the step back: set by `artifact reopen`, cleared by
	// the next content recorded.
	Reopened bool     `json:"reopened,omitempty"`
	Notified []Notice `json:"notified,omitempty"`
	// Hash is the content hash of every other field (Seal).
	Hash string `json:"agentxHash,omitempty"`
}

// File is one issue's ledger.
type File struct {
	IssueNumber int           `json:"issueNumber"`
	Artifacts   []Artifact    `json:"artifacts"`
	Tombstones  tombstone.Set `json:"agentxTombstones,omitempty"`
}

// ComputeHash is the hash of every field but the hash itself.
func (a *Artifact) ComputeHash() string {
	c := *a
	c.Hash = ""
	data, _ := json.Marshal(&c) // strings, bools and lists of them: cannot fail
	h, err := contenthash.OfJSON(data)
	if err != nil {
		return contenthash.Of(data)
	}
	return h
}

// Seal records the hash: every agentx write seals what it changed.
func (a *Artifact) Seal() { a.Hash = a.ComputeHash() }

// Integrity checks the entry against its recorded hash.
func (a *Artifact) Integrity() contenthash.Integrity {
	return contenthash.Check(a.Hash, a.Hash != "", a.ComputeHash)
}

// Find returns the artifact id, or nil.
func (f *File) Find(id string) *Artifact {
	for i := range f.Artifacts {
		if f.Artifacts[i].ID == id {
			return &f.Artifacts[i]
		}
	}
	return nil
}

// sortArtifacts keeps the file in a stable order: by creation, then id.
func (f *File) sortArtifacts() {
	sort.SliceStable(f.Artifacts, func(i, j int) bool {
		a, b := f.Artifacts[i], f.Artifacts[j]
		if a.Created != b.Created {
			return a.Created < b.Created
		}
		return a.ID < b.ID
	})
}

// IDFor is the id of the artifact at rel: its file name without the
// extension (docs/prd/PRD-42.md is PRD-42), which the output templates
// make unique per issue.
func IDFor(rel string) string {
	base := path.Base(rel)
	if ext := path.Ext(base); ext != "" && ext != base {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}

// IssueOfID reads the issue number an artifact id ends with (PRD-42: 42),
// for commands given only an id.
func IssueOfID(id string) (int, bool) {
	i := strings.LastIndexAny(id, "-_")
	if i < 0 || i == len(id)-1 {
		return 0, false
	}
	n := 0
	for _, c := range id[i+1:] {
		if c < '0' || c > '9' || n > 100_000_000 {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n > 0
}

// ErrNotFound is returned for an id no ledger holds.
func notFound(id string) error {
	return errcode.New(errcode.NotFound, "no artifact %s", id).
		WithHint("`agentx-hook artifact list` shows the artifacts recorded")
}

// Short is a blob or commit id cut to 7 characters for messages.
func Short(id string) string {
	if len(id) > 7 {
		return id[:7]
	}
	return id
}

// Finding is one stale dependency: Artifact was written against Upstream
// at OldBlob; Upstream is now NewBlob, written in Commit.
type Finding struct {
	Issue    int    `json:"issue"`
	Artifact string `json:"artifact"`
	Agent    string `json:"agent"`
	Path     string `json:"path"`
	Upstream string `json:"upstream"`
	OldBlob  string `json:"oldBlob"`
	NewBlob  string `json:"newBlob"`
	Commit   string `json:"commit,omitempty"`
	// Diff is the command that shows what changed upstream.
	Diff string `json:"diff"`
}

// String is the finding's line: "SPEC-42 (architect) is stale: PRD-42
// changed in c1a2b3c after it was written; read: git diff A B".
func (f Finding) String() string {
	when := ""
	if f.Commit != "" {
		when = " in " + Short(f.Commit)
	}
	return fmt.Sprintf("%s (%s) is stale: %s changed%s after it was written; read the change: %s",
		f.Artifact, f.Agent, f.Upstream, when, f.Diff)
}

// StaleDeps lists the dependencies of a whose upstream artifact (in f)
// has another blob now. An upstream no longer in the ledger (removed) is
// not a change.
func (f *File) StaleDeps(a *Artifact) []Finding {
	var out []Finding
	for _, d := range a.DependsOn {
		up := f.Find(d.ID)
		if up == nil || up.Blob == "" || up.Blob == d.Blob {
			continue
		}
		out = append(out, Finding{Issue: f.IssueNumber, Artifact: a.ID, Agent: a.Agent, Path: a.Path,
			Upstream: up.ID, OldBlob: d.Blob, NewBlob: up.Blob, Commit: up.Commit,
			Diff: diffCommand(d.Blob, up.Blob)})
	}
	return out
}

// diffCommand is the command that shows how blob from became to.
func diffCommand(from, to string) string {
	return fmt.Sprintf("git diff %s %s", Short12(from), Short12(to))
}

// Short12 cuts a blob id to 12 characters: enough for git to resolve it
// in the diff command, short enough to read.
func Short12(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// Findings is every stale dependency of the file's artifacts.
func (f *File) Findings() []Finding {
	var out []Finding
	for i := range f.Artifacts {
		out = append(out, f.StaleDeps(&f.Artifacts[i])...)
	}
	return out
}

// EffectiveStatus is the status shown: stale when an upstream changed,
// else the stored one.
func (f *File) EffectiveStatus(a *Artifact) Status {
	if len(f.StaleDeps(a)) > 0 {
		return Stale
	}
	if a.Status == "" {
		return Draft
	}
	return a.Status
}

// AboutKey is the clarification record's key, of our own, naming the
// artifact the question is about and the blob it had when asked
// (`clarify request --about PRD-42`): an answer or resolution given
// about that blob may be outdated once the artifact changes.
const AboutKey = "agentxAbout"

// About is the subject of a clarification.
type About struct {
	ID   string `json:"id"`
	Blob string `json:"blob"`
}

// Outdated reports whether the subject changed since the question was
// asked: f (the subject's ledger) holds another blob now. It returns the
// artifact as it is now.
func (ab About) Outdated(f *File) (*Artifact, bool) {
	a := f.Find(ab.ID)
	if a == nil {
		return nil, false
	}
	return a, a.Blob != "" && a.Blob != ab.Blob
}

// OutdatedLine is what is said of a clarification (id, its status) about
// ab when the subject changed since.
func OutdatedLine(clr, status string, ab About, now *Artifact) string {
	when := ""
	if now.Commit != "" {
		when = " in " + Short(now.Commit)
	}
	return fmt.Sprintf("%s (%s) may be outdated: it is about %s at %s, which changed%s since (git diff %s %s)",
		clr, status, ab.ID, Short(ab.Blob), when, Short12(ab.Blob), Short12(now.Blob))
}

// ParseAbout reads a record's AboutKey value (nil: none).
func ParseAbout(raw []byte) (About, bool) {
	var ab About
	if raw == nil || json.Unmarshal(raw, &ab) != nil || ab.ID == "" {
		return About{}, false
	}
	return ab, true
}
