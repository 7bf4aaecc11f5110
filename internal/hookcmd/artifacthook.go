package hookcmd

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/gitcmd"
	"github.com/agentx-dev/agentx/internal/core/intake"
	"github.com/agentx-dev/agentx/internal/core/issueref"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/validate"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// recordCommit is the post-commit hook: HEAD read once (one git
// process, blobs included); the stage artifacts it wrote recorded (with
// what they made stale said), and the commit stored as a code-change
// observation of the issue the environment or the branch names, else the
// issue its artifacts name, by $AGENTX_AGENT, else the agent of the step
// whose artifact it wrote, else the default commit agent.
func (a *App) recordCommit(ctx context.Context) error {
	root := a.Workspace().Root
	sh, err := intake.ShowHeadRaw(ctx, gitcmd.Exec{Dir: root})
	if err != nil {
		return err
	}
	wrote := a.recordArtifacts(ctx, sh, "post-commit")
	if !a.settings().Memory.IsEnabled() {
		return nil
	}
	issue, ok, err := issueref.Resolve("", a.Getenv("AGENTX_ISSUE"), workspace.GitBranch(ctx, root))
	if err != nil {
		return err
	}
	// What the commit wrote names the issue and the agent whether or not
	// its record changed now: a hook run again after one killed between
	// the artifact and the observation still makes the observation (the
	// store drops it when it is there already).
	if !ok && len(wrote) > 0 {
		issue, ok = wrote[0].Issue, true
	}
	if !ok {
		return nil
	}
	agent := a.Getenv("AGENTX_AGENT")
	switch {
	case agent != "":
		if err := validate.Agent("AGENTX_AGENT", agent); err != nil {
			return err
		}
	case len(wrote) > 0 && wrote[0].Output.Step != nil && wrote[0].Output.Step.Agent != "":
		agent = wrote[0].Output.Step.Agent
	default:
		agent = intake.CommitAgent
	}
	return a.intake().RecordShown(ctx, sh.NameStatus, agent, issue)
}

// recordArtifacts files the step outputs a commit wrote (sh: its files
// and blobs), says on stderr which artifacts that made stale, and returns
// the outputs written, recorded now or before. Nothing but string
// matching runs unless the commit wrote an output path; a failure is a
// warning (the hook fails open).
func (a *App) recordArtifacts(ctx context.Context, sh intake.Shown, hook string) []artifact.Written {
	set, err := a.Config()
	if err != nil {
		return nil
	}
	var paths []string
	blobs := map[string]string{}
	for _, f := range sh.Files {
		if f.Status == "" || f.Status[0] == 'D' {
			continue // a deleted file is no deliverable
		}
		paths = append(paths, f.Path)
		blobs[f.Path] = f.Blob
	}
	written := artifact.Match(set, paths)
	if len(written) == 0 {
		return nil
	}
	for i := range written {
		written[i].Blob = blobs[written[i].Path]
	}
	outs, err := a.Artifacts().Record(ctx, set, sh.Commit, a.nowString(), written)
	a.auditArtifacts(ctx, "artifact.record", "", outs)
	if err != nil {
		a.warn("agentx %s: artifacts: %v", hook, err)
	}
	issues := map[int]bool{}
	for _, o := range outs {
		verb := "updated"
		if o.New() {
			verb = "recorded"
		}
		fmt.Fprintf(a.Stderr, "agentx %s: %s", hook, o.Line(verb))
		issues[o.Issue] = true
	}
	for n := range issues {
		f, err := a.Artifacts().Load(n)
		if err != nil {
			continue
		}
		for _, fd := range f.Findings() {
			fmt.Fprintf(a.Stderr, "agentx %s: %s\n", hook, fd.String())
		}
	}
	return written
}

// recordMergedArtifacts is the post-merge hook's share: the step outputs
// the merge brought in (HEAD against its first parent) recorded.
func (a *App) recordMergedArtifacts(ctx context.Context) {
	git := gitcmd.Exec{Dir: a.Workspace().Root}
	// ORIG_HEAD is where HEAD was before the merge: a fast-forward over
	// several commits brings in all their files, not just the last one's.
	sh, err := intake.ShowHeadRaw(ctx, git)
	if err != nil {
		a.warn("agentx post-merge: artifacts not recorded: %v", err)
		return
	}
	if out, err := git.Git(ctx, "diff", "--no-color", "--no-ext-diff", "--raw", "--no-abbrev", "ORIG_HEAD", "HEAD"); err == nil {
		sh.Files = intake.ParseRawDiff(out).Files
	}
	a.recordArtifacts(ctx, sh, "post-merge")
}

// checkArtifacts runs the monitor's artifact half into rep: the stale
// artifacts, and (notify) one clarification per upstream change.
func (a *App) checkArtifacts(ctx context.Context, rep *monitor.Report, notify bool) {
	rt, err := a.Router()
	if err != nil {
		return
	}
	monitor.New(rt).CheckArtifacts(ctx, a.Artifacts(), rep, notify) // audits what it records
}

// recordAbout stores the subject of clarification id (--about) in its
// record, under the ledger's lock; a failure is a warning (the request
// stands).
func (a *App) recordAbout(ctx context.Context, issue int, id string, ab artifact.About) {
	raw, _ := json.Marshal(ab) // two strings: cannot fail
	_, err := a.Ledgers().Update(ctx, issue, func(l *ledger.Ledger) error {
		if r := l.Find(id); r != nil {
			r.SetExtra(artifact.AboutKey, raw)
		}
		return nil
	})
	if err != nil {
		a.warn("clarify request: the subject %s of %s was not recorded: %v", ab.ID, id, err)
	}
}

// outdatedLines say which of recs were answered or resolved about an
// artifact that changed since (--about): their answer may be outdated.
func (a *App) outdatedLines(recs []ledger.Record) []string {
	var out []string
	files := map[int]*artifact.File{}
	for i := range recs {
		r := &recs[i]
		ab, ok := artifact.ParseAbout(r.ExtraValue(artifact.AboutKey))
		if !ok {
			continue
		}
		n, ok := artifact.IssueOfID(ab.ID)
		if !ok {
			n = r.IssueNumber
		}
		f, seen := files[n]
		if !seen {
			f, _ = a.Artifacts().Load(n)
			files[n] = f
		}
		if f == nil {
			continue
		}
		if now, changed := ab.Outdated(f); changed {
			out = append(out, artifact.OutdatedLine(r.ID, string(r.Status), ab, now))
		}
	}
	return out
}
