package sync

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// The stage mirror (issue 33, seed 004): each issue with an artifact
// ledger on the state branch shows its stage and its stale artifacts in
// one comment, and carries one label for the status its workflow's steps
// name (status_on_start, status_on_complete), as Local Mode writes it into
// the local issue file.

// StatusLabelPrefix starts the label of an issue status: "status: In
// design". Only the labels of the statuses the workflows name are
// managed; any other label stays.
const StatusLabelPrefix = "status: "

// stageMarker ends the stage comment. It is no entry marker
// (ParseMarker), so the clarification mirror never touches the comment.
const stageMarker = "<!-- agentx:stage v=1 -->"

const artifactDir = "state/artifacts/"

// StatusLabel is the label of status.
func StatusLabel(status string) string { return StatusLabelPrefix + status }

// StageWant is what one issue should show of its stage.
type StageWant struct {
	Issue int
	// Body is the stage comment, marker included ("": none).
	Body string
	// Labels maps each managed status label to whether it should be on.
	Labels map[string]bool
}

// DesiredStage computes what issue f.IssueNumber should show of its
// stage, from its artifact ledger, its clarification ledger (nil: none;
// the agents asking are at work, the blocking waits block it) and the
// workflows. A pure function of its inputs, like Desired.
func DesiredStage(set *config.Set, f *artifact.File, l *ledger.Ledger, clean Sanitizer) StageWant {
	w := StageWant{Issue: f.IssueNumber, Labels: map[string]bool{}}
	for _, s := range artifact.Statuses(set) {
		w.Labels[StatusLabel(s)] = false
	}
	wf, ok := artifact.WorkflowOf(set, f, set.Config.DefaultWorkflow)
	if !ok || len(f.Artifacts) == 0 {
		return w
	}
	active := map[string]bool{}
	var blocked []string
	if l != nil {
		for i := range l.Clarifications {
			r := &l.Clarifications[i]
			if !r.Status.Open() {
				continue
			}
			active[r.From] = true
			if r.Blocking && r.Status.Waiting() {
				blocked = append(blocked, r.ID)
			}
		}
	}
	st := artifact.DeriveStage(wf, f, active, blocked)
	if status := st.Status(wf, f); status != "" {
		w.Labels[StatusLabel(status)] = true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**Stage** (agentx): %s\n", inline(Unmention(clean(st.String()))))
	if fds := f.Findings(); len(fds) > 0 {
		b.WriteString("\nStale artifacts, written against an upstream artifact that changed since:\n\n")
		for _, fd := range fds {
			when := ""
			if fd.Commit != "" {
				when = " in " + codeSpan(artifact.Short(fd.Commit))
			}
			// Caught before its review, or after it was approved: seed
			// 004's stand-in for a review rejected for a misunderstanding.
			review := "found before review"
			if a := f.Find(fd.Artifact); a != nil && a.Status == artifact.Approved {
				review = "found after review (it was approved)"
			}
			fmt.Fprintf(&b, "- %s (%s): %s changed%s, %s; read the change: %s\n", codeSpan(clean(fd.Artifact)), inline(Unmention(clean(fd.Agent))),
				codeSpan(clean(fd.Upstream)), when, review, codeSpan(clean(fd.Diff)))
		}
		b.WriteString("\nOnce it still holds: `agentx-hook artifact ack ID`; or rewrite it.\n")
	}
	b.WriteString("\n" + stageMarker)
	w.Body = b.String()
	return w
}

// hash fingerprints everything the issue should show of its stage.
func (w StageWant) hash() string {
	h := sha256.New()
	h.Write([]byte(w.Body))
	for _, k := range sortedKeys(w.Labels) {
		fmt.Fprintf(h, "\x00%s=%v", k, w.Labels[k])
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// branchArtifacts returns the issues whose artifact ledgers snap holds,
// with their paths.
func branchArtifacts(snap *StateSnapshot) (issues []int, paths []string) {
	for _, p := range snap.Paths(artifactDir) {
		n, ok := workspace.LedgerIssue(strings.TrimPrefix(p, artifactDir))
		if !ok || !strings.HasPrefix(p, artifactDir) || strings.Contains(strings.TrimPrefix(p, artifactDir), "/") {
			continue
		}
		issues = append(issues, n)
		paths = append(paths, p)
	}
	return issues, paths
}

// stageKey is what a stage mirror depends on: both ledgers' blobs and the
// workflows. The same key as the last run's: nothing is read.
func (s *Syncer) stageKey(snap *StateSnapshot, artifactPath string, issue int) string {
	return snap.Blobs[artifactPath] + ":" + snap.Blobs[BranchLedgerPath(issue)] + ":" + s.workflowsPrint
}

// syncStages mirrors the stage of every issue with an artifact ledger:
// its stage comment and status label. An issue whose ledgers and
// workflows are those of the last run costs no call. A partial snapshot
// (the monitor's quick read of a complete mirror) lists no artifact
// ledger: nothing changed since that mirror, which covered them.
func (s *Syncer) syncStages(ctx context.Context, sb *StateBranch, snap *StateSnapshot, st *State) error {
	if s.Workflows == nil || snap.Partial {
		return nil
	}
	if s.workflowsPrint == "" {
		s.workflowsPrint = workflowsPrint(s.Workflows)
	}
	issues, paths := branchArtifacts(snap)
	for i, n := range issues {
		key := s.stageKey(snap, paths[i], n)
		prev, known := st.Stage(n)
		if known && prev.Key == key && !s.Full {
			continue
		}
		data, err := sb.ReadFile(ctx, snap, paths[i])
		if err != nil {
			return err
		}
		f, err := artifact.Parse(sb.Branch+":"+paths[i], data, n)
		if err != nil {
			s.Failures = append(s.Failures, IssueFailure{Issue: n, Err: err})
			continue
		}
		var l *ledger.Ledger
		if lp := BranchLedgerPath(n); snap.Blobs[lp] != "" {
			if l, _, err = sb.readLedger(ctx, snap, n, lp); err != nil && l == nil {
				l = nil // a corrupt ledger: the stage without its clarifications
			}
		}
		want := DesiredStage(s.Workflows, f, l, s.Clean)
		hash := want.hash()
		if known && prev.Hash == hash && !s.Full {
			st.SetStage(n, StageState{Key: key, Hash: hash, Labels: prev.Labels})
			continue
		}
		if err := s.mirrorStage(ctx, n, want, prev, known, st); err != nil {
			if stopsRun(err) {
				return err
			}
			s.Failures = append(s.Failures, IssueFailure{Issue: n, Err: err})
			continue
		}
		if !s.DryRun {
			st.SetStage(n, StageState{Key: key, Hash: hash, Labels: OnLabels(want.Labels)})
		}
	}
	return nil
}

// mirrorStage puts want on issue: the stage comment created or edited (a
// duplicate deleted), the status labels added or removed.
func (s *Syncer) mirrorStage(ctx context.Context, issue int, want StageWant, prev StageState, known bool, st *State) error {
	if err := s.stageComment(ctx, issue, want.Body); err != nil {
		return err
	}
	haveLabels := prev.Labels
	if !known || s.Full {
		var err error
		if haveLabels, err = s.GH.IssueLabels(ctx, issue); err != nil {
			return err
		}
	}
	return s.labels(ctx, issue, want.Labels, haveLabels, st)
}

// stageComment makes the issue's stage comment (the bot's, ending in the
// stage marker) say body: created, edited, its duplicates deleted.
func (s *Syncer) stageComment(ctx context.Context, issue int, body string) error {
	have, err := s.GH.Comments(ctx, issue)
	if err != nil {
		return err
	}
	var ours []Existing
	for _, c := range have {
		if strings.EqualFold(c.Author, s.Bot) && strings.HasSuffix(strings.TrimSpace(c.Body), stageMarker) {
			ours = append(ours, c)
		}
	}
	var ops []Op
	switch {
	case body == "":
	case len(ours) == 0:
		ops = append(ops, Op{Kind: Create, Want: &Want{Body: body}})
	case ours[0].Body != body:
		ops = append(ops, Op{Kind: Edit, CommentID: ours[0].ID, Want: &Want{Body: body}})
	}
	extra := ours
	if body != "" && len(ours) > 0 {
		extra = ours[1:]
	}
	for _, c := range extra {
		ops = append(ops, Op{Kind: Delete, CommentID: c.ID})
	}
	for _, op := range ops {
		if err := s.apply(ctx, issue, op); err != nil {
			return err
		}
	}
	return nil
}

// workflowsPrint fingerprints what a stage depends on in the workflows.
func workflowsPrint(set *config.Set) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", set.Config.DefaultWorkflow)
	for i := range set.Workflows {
		wf := &set.Workflows[i]
		fmt.Fprintf(h, "w%s\x00", wf.Name)
		for j := range wf.Steps {
			s := &wf.Steps[j]
			fmt.Fprintf(h, "s%s\x00%s\x00%q\x00%q\x00%s\x00%s\x00", s.ID, s.Agent, s.Needs, []string(s.Output), s.StatusOnStart, s.StatusOnComplete)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:6])
}
