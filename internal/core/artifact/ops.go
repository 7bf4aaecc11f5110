package artifact

import (
	"context"
	"slices"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/tombstone"
)

// Written is one file a commit (or a person) wrote that a step's output
// names: its path relative to the repository root and its git blob.
type Written struct {
	Path   string
	Blob   string
	Output config.StepOutput
	Issue  int
}

// Outcome is one entry an operation changed, with its content hash
// before (empty: it did not exist) and after, for the audit line.
type Outcome struct {
	Issue  int    `json:"issue"`
	ID     string `json:"id"`
	Step   string `json:"step"`
	Agent  string `json:"agent"`
	Path   string `json:"path"`
	Status Status `json:"status"`
	Before string `json:"-"`
	After  string `json:"-"`
}

// New reports whether the entry did not exist before.
func (o Outcome) New() bool { return o.Before == "" }

func outcome(f *File, a *Artifact, before string) Outcome {
	return Outcome{Issue: f.IssueNumber, ID: a.ID, Step: a.Step, Agent: a.Agent, Path: a.Path,
		Status: f.EffectiveStatus(a), Before: before, After: a.Hash}
}

// Match picks out of paths (slash-separated, relative to the repository
// root) those a step's output template names, with their issue.
func Match(set *config.Set, paths []string) []Written {
	var out []Written
	for _, p := range paths {
		if so, issue, ok := set.MatchPath(p); ok {
			out = append(out, Written{Path: p, Output: so, Issue: issue})
		}
	}
	return out
}

// Record files what was written, one ledger update per issue: a new
// artifact is created as a draft against the current blobs of the
// artifacts of the steps its step needs; a known one whose blob changed
// takes the new blob and commit, goes back to draft and is counted as
// written against today's upstream (its dependsOn renewed); one whose
// blob is the same is left alone (post-merge runs over commits
// post-commit saw).
func (s *Store) Record(ctx context.Context, set *config.Set, commit, now string, written []Written) ([]Outcome, error) {
	byIssue := map[int][]Written{}
	var issues []int
	for _, w := range written {
		if _, ok := byIssue[w.Issue]; !ok {
			issues = append(issues, w.Issue)
		}
		byIssue[w.Issue] = append(byIssue[w.Issue], w)
	}
	slices.Sort(issues)
	var out []Outcome
	for _, n := range issues {
		ws := byIssue[n]
		if s.unchanged(n, ws) {
			continue // post-merge over commits post-commit saw: no lock taken
		}
		var got []Outcome
		_, err := s.Update(ctx, n, func(f *File) (bool, error) {
			got = got[:0] // a lost lock runs fn again on the fresh file
			// Upstream first: a commit that writes the PRD and the SPEC
			// together records the SPEC against the new PRD.
			slices.SortStableFunc(ws, func(a, b Written) int { return stepRank(set, a) - stepRank(set, b) })
			changed := false
			for _, w := range ws {
				if o, ok := record(set, f, w, commit, now); ok {
					got = append(got, o)
					changed = true
				}
			}
			return changed, nil
		})
		out = append(out, got...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// unchanged reports, from an unlocked read (every writer replaces the
// file atomically), whether the ledger of issue already holds every
// written file at its blob: record would change nothing under the lock,
// so the lock is not taken (the post-merge hook over commits the
// post-commit hook recorded).
func (s *Store) unchanged(issue int, ws []Written) bool {
	f, err := s.Load(issue)
	if err != nil {
		return false
	}
	for _, w := range ws {
		a := f.Find(IDFor(w.Path))
		if a == nil || a.Blob != w.Blob || a.Path != w.Path {
			return false
		}
	}
	return true
}

// stepRank is the step's place in its workflow.
func stepRank(set *config.Set, w Written) int {
	if wf, ok := set.Workflow(w.Output.Workflow); ok {
		for i := range wf.Steps {
			if wf.Steps[i].ID == w.Output.Step.ID {
				return i
			}
		}
	}
	return 0
}

func record(set *config.Set, f *File, w Written, commit, now string) (Outcome, bool) {
	// A path is text from outside (a file name anyone may commit): it is
	// sanitised like every text agentx stores, so a secret in a file name
	// never reaches the ledger (or the state branch).
	w.Path = sanitize.Clean(w.Path)
	id := IDFor(w.Path)
	a := f.Find(id)
	before := ""
	if a != nil {
		if a.Blob == w.Blob && a.Path == w.Path {
			return Outcome{}, false
		}
		before = a.Hash
	} else {
		f.Artifacts = append(f.Artifacts, Artifact{ID: id, Created: now})
		a = &f.Artifacts[len(f.Artifacts)-1]
	}
	a.Workflow, a.Step, a.Agent, a.Path = w.Output.Workflow, w.Output.Step.ID, w.Output.Step.Agent, w.Path
	a.Blob, a.Commit, a.Updated = w.Blob, commit, now
	a.Status, a.Reopened = Draft, false
	a.DependsOn = upstream(set, f, a)
	a.Seal()
	return outcome(f, a, before), true
}

// upstream is the current blob of every artifact of the steps a's step
// needs, through needed steps that have no output of their own.
func upstream(set *config.Set, f *File, a *Artifact) []Dep {
	wf, ok := set.Workflow(a.Workflow)
	if !ok {
		return []Dep{}
	}
	st, ok := wf.Step(a.Step)
	if !ok {
		return []Dep{}
	}
	deps := []Dep{}
	seen := map[string]bool{}
	var walk func(needs []string)
	walk = func(needs []string) {
		for _, n := range needs {
			if seen[n] {
				continue
			}
			seen[n] = true
			up, ok := wf.Step(n)
			if !ok {
				continue
			}
			if len(up.Output) == 0 {
				walk(up.Needs)
				continue
			}
			for i := range f.Artifacts {
				u := &f.Artifacts[i]
				if u.Step == n && u.Workflow == a.Workflow && u.ID != a.ID && u.Blob != "" {
					deps = append(deps, Dep{ID: u.ID, Blob: u.Blob})
				}
			}
		}
	}
	walk(st.Needs)
	return deps
}

// Locate finds the ledger and entry of an artifact id: the issue its id
// ends with, else every ledger.
func (s *Store) Locate(id string) (*File, *Artifact, error) {
	if n, ok := IssueOfID(id); ok {
		f, err := s.Load(n)
		if err != nil {
			return nil, nil, err
		}
		if a := f.Find(id); a != nil {
			return f, a, nil
		}
	}
	files, _, err := s.LoadAll()
	if err != nil {
		return nil, nil, err
	}
	for _, f := range files {
		if a := f.Find(id); a != nil {
			return f, a, nil
		}
	}
	return nil, nil, notFound(id)
}

// Change runs fn on artifact id under its ledger's lock, seals it and
// returns the outcome. fn returns false when there is nothing to change.
func (s *Store) Change(ctx context.Context, id string, fn func(f *File, a *Artifact) (bool, error)) (Outcome, error) {
	f0, _, err := s.Locate(id)
	if err != nil {
		return Outcome{}, err
	}
	var out Outcome
	_, err = s.Update(ctx, f0.IssueNumber, func(f *File) (bool, error) {
		a := f.Find(id)
		if a == nil {
			return false, notFound(id)
		}
		before := a.Hash
		changed, err := fn(f, a)
		if err != nil || !changed {
			out = outcome(f, a, before)
			out.After = before
			return false, err
		}
		a.Seal()
		out = outcome(f, a, before)
		return true, nil
	})
	return out, err
}

// SetStatus is `artifact approve` and `artifact reject`. A stale artifact
// cannot be approved: it was written against an upstream that changed
// (ack it first, or rewrite it).
func (s *Store) SetStatus(ctx context.Context, id string, st Status, now string) (Outcome, error) {
	return s.Change(ctx, id, func(f *File, a *Artifact) (bool, error) {
		if st == Approved {
			if stale := f.StaleDeps(a); len(stale) > 0 {
				return false, errcode.New(errcode.InvalidInput, "%s", stale[0].String()).
					WithHint("rewrite it, or `agentx-hook artifact ack " + id + "` when it still holds, then approve")
			}
		}
		if a.Status == st && !a.Reopened {
			return false, nil
		}
		a.Status, a.Updated = st, now
		if st == Approved {
			a.Reopened = false
		}
		return true, nil
	})
}

// Ack records that the artifact still holds against its upstream as it
// is now: each stale dependency takes the upstream's current blob.
func (s *Store) Ack(ctx context.Context, id, now string) (Outcome, []Finding, error) {
	var acked []Finding
	o, err := s.Change(ctx, id, func(f *File, a *Artifact) (bool, error) {
		acked = f.StaleDeps(a)
		for _, st := range acked {
			for i := range a.DependsOn {
				if a.DependsOn[i].ID == st.Upstream {
					a.DependsOn[i].Blob = st.NewBlob
				}
			}
		}
		if len(acked) == 0 {
			return false, nil
		}
		a.Updated = now
		return true, nil
	})
	return o, acked, err
}

// Reopen puts the artifact's step back: its status is draft and the step
// is not done until new content is recorded.
func (s *Store) Reopen(ctx context.Context, id, now string) (Outcome, error) {
	return s.Change(ctx, id, func(_ *File, a *Artifact) (bool, error) {
		if a.Reopened && a.Status == Draft {
			return false, nil
		}
		a.Status, a.Reopened, a.Updated = Draft, true, now
		return true, nil
	})
}

// Notified reports whether the owner of a was already told of upstream's
// blob.
func (a *Artifact) NotifiedOf(upstream, blob string) bool {
	for _, n := range a.Notified {
		if n.ID == upstream && n.Blob == blob {
			return true
		}
	}
	return false
}

// MarkNotified records that the finding was announced (clr: the
// clarification that carried it).
func (s *Store) MarkNotified(ctx context.Context, fd Finding, clr, now string) (Outcome, error) {
	return s.Change(ctx, fd.Artifact, func(_ *File, a *Artifact) (bool, error) {
		if a.NotifiedOf(fd.Upstream, fd.NewBlob) {
			return false, nil
		}
		a.Notified = append(a.Notified, Notice{ID: fd.Upstream, Blob: fd.NewBlob, Clarification: clr, At: now, Status: a.Status})
		return true, nil
	})
}

// Remove takes artifact id out of its ledger, leaving a tombstone that
// travels with the file, so a merge with a copy that still holds it does
// not bring it back. Removal is an act: the artifacts that depend on it
// keep their dependsOn (verify warns), and the file stays in the
// repository.
func (s *Store) Remove(ctx context.Context, id, by, now string) (Outcome, error) {
	f0, _, err := s.Locate(id)
	if err != nil {
		return Outcome{}, err
	}
	var out Outcome
	_, err = s.Update(ctx, f0.IssueNumber, func(f *File) (bool, error) {
		a := f.Find(id)
		if a == nil {
			return false, notFound(id)
		}
		out = outcome(f, a, a.Hash)
		out.After = ""
		f.Tombstones = f.Tombstones.Add(tombstone.Tombstone{Kind: TombstoneKind, ID: id, Reason: "removed", At: now, By: by, Hash: a.Hash})
		kept := f.Artifacts[:0]
		for _, x := range f.Artifacts {
			if x.ID != id {
				kept = append(kept, x)
			}
		}
		f.Artifacts = kept
		return true, nil
	})
	return out, err
}
