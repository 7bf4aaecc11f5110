package hookcmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/gitstore"
	"github.com/agentx-dev/agentx/internal/core/localissue"
	"github.com/agentx-dev/agentx/internal/core/validate"
	"github.com/agentx-dev/agentx/internal/iostreams"
)

const artifactUsage = `artifact add --issue N --step STEP [--workflow W] PATH [--json]
       agentx-hook artifact list [--issue N] [--step STEP] [--stale] [--json]
       agentx-hook artifact show ID [--content] [--json]
       agentx-hook artifact approve|reject|ack|reopen|remove ID [--json]
       agentx-hook artifact generate --issues N [--per-issue K] [--json]

The stage artifacts of each issue (.agentx/state/artifacts/issue-N.json):
the deliverables a workflow step's output names (PRD-42, ADR-42, SPEC-42),
their git blob and the blobs of the upstream artifacts they were written
against. The post-commit and post-merge hooks record what a commit writes
to an output path; add records a file by hand. An artifact is stale when an
upstream one changed after it was written: ack says it still holds (it is
counted as written against the upstream as it is now), reopen puts its step
back; approve and reject set its review status; remove takes it out of the
ledger with a tombstone (so no merge brings it back; the file stays).`

func artifactSubs() map[string]runFunc {
	return map[string]runFunc{
		"add":      wire(parseArtifactAdd, runArtifactAdd),
		"list":     wire(parseArtifactList, runArtifactList),
		"show":     wire(parseArtifactShow, runArtifactShow),
		"approve":  wire(parseArtifactVerb("approve"), runArtifactVerb),
		"reject":   wire(parseArtifactVerb("reject"), runArtifactVerb),
		"ack":      wire(parseArtifactVerb("ack"), runArtifactVerb),
		"reopen":   wire(parseArtifactVerb("reopen"), runArtifactVerb),
		"generate": wire(parseArtifactGenerate, runArtifactGenerate),
		"remove":   wire(parseArtifactVerb("remove"), runArtifactVerb),
	}
}

func runArtifact(ctx context.Context, a *App, args []string) error {
	return a.dispatch(ctx, "artifact", artifactUsage, "add, list, show, approve, reject, ack, reopen, remove, generate", inMap(artifactSubs()), nil, args)
}

// Artifacts returns the artifact ledger store.
func (a *App) Artifacts() *artifact.Store {
	return &artifact.Store{WS: a.Workspace(), Locks: a.Locks()}
}

func (a *App) nowString() string { return clock.Format(a.Clock.Now()) }

// auditArtifacts appends one audit line for the outcomes of op.
func (a *App) auditArtifacts(ctx context.Context, op, actor string, outs []artifact.Outcome) {
	if len(outs) == 0 {
		return
	}
	e := audit.Entry{Op: op, Actor: actor, Before: map[string]string{}, After: map[string]string{}}
	for _, o := range outs {
		e.IDs = append(e.IDs, o.ID)
		if o.Before != "" {
			e.Before[o.ID] = o.Before
		}
		if o.After != "" { // removed: absent after
			e.After[o.ID] = o.After
		}
		if e.Issue == 0 || e.Issue == o.Issue {
			e.Issue = o.Issue
		}
	}
	a.auditAppend(ctx, e)
}

type artifactAddOptions struct {
	Issue    int
	Step     string
	Workflow string
	Path     string
	jsonFlag
}

func parseArtifactAdd(a *App, args []string) (*artifactAddOptions, error) {
	o := &artifactAddOptions{}
	flags := newFlags(a, "artifact add", "artifact add --issue N --step STEP [--workflow W] PATH [--json]")
	issue := flags.String("issue", "", "the issue `N` the artifact belongs to (default: the number the path names)")
	flags.StringVar(&o.Step, "step", "", "the workflow `step` whose deliverable it is (default: the step whose output the path is)")
	flags.StringVar(&o.Workflow, "workflow", "", "the `workflow` of the step (default: the step's, else default_workflow)")
	o.register(flags)
	var err error
	if o.Path, err = parseOne(flags, args, "artifact add needs one PATH (the file to record)"); err != nil {
		return o, err
	}
	if *issue != "" {
		if o.Issue, err = validate.Issue(*issue); err != nil {
			return o, err
		}
	}
	return o, nil
}

// stepOutput finds the step a hand-added artifact belongs to.
func stepOutput(set *config.Set, rel, workflow, step string) (config.StepOutput, int, error) {
	if so, n, ok := set.MatchPath(rel); ok && (step == "" || so.Step.ID == step) && (workflow == "" || so.Workflow == workflow) {
		return so, n, nil
	}
	if step == "" {
		return config.StepOutput{}, 0, usagef("%s is no workflow step's output: pass --step (and --issue)", rel)
	}
	var found []config.StepOutput
	for i := range set.Workflows {
		w := &set.Workflows[i]
		if workflow != "" && w.Name != workflow {
			continue
		}
		if st, ok := w.Step(step); ok {
			found = append(found, config.StepOutput{Workflow: w.Name, Step: st})
		}
	}
	switch {
	case len(found) == 1:
		return found[0], 0, nil
	case len(found) == 0:
		return config.StepOutput{}, 0, errcode.New(errcode.InvalidInput, "no workflow has a step %q", step).
			WithHint("the steps are the [[steps]] ids in .agentx/workflows/*.toml")
	}
	for _, so := range found {
		if so.Workflow == set.Config.DefaultWorkflow {
			return so, 0, nil
		}
	}
	return config.StepOutput{}, 0, usagef("several workflows have a step %q: pass --workflow", step)
}

func runArtifactAdd(ctx context.Context, a *App, o *artifactAddOptions) error {
	set, err := a.Config()
	if err != nil {
		return err
	}
	root := a.Workspace().Root
	abs := o.Path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(a.Cwd, abs)
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return errcode.New(errcode.InvalidInput, "%s is outside the workspace %s", o.Path, root)
	}
	rel = filepath.ToSlash(rel)
	so, n, err := stepOutput(set, rel, o.Workflow, o.Step)
	if err != nil {
		return err
	}
	if o.Issue != 0 {
		n = o.Issue
	}
	if n == 0 {
		return usagef("artifact add: pass --issue (the path %s names no issue)", rel)
	}
	data, err := atomicfile.ReadRegular(abs, atomicfile.StateLimit)
	if err != nil {
		return fmt.Errorf("read %s: %w", o.Path, err)
	}
	// The content goes into the object database, so that `artifact show
	// --content`, the diff of a later change and verify find it.
	blob := gitstore.BlobHash(data)
	if repo, err := gitstore.Open(root); err == nil {
		if _, err := repo.WriteBlob(data); err != nil {
			a.warn("artifact add: the content of %s was not stored in git: %v", rel, err)
		}
	} else {
		a.warn("artifact add: %s is not in a git repository; its content is recorded by hash only", rel)
	}
	outs, err := a.Artifacts().Record(ctx, set, "", a.nowString(),
		[]artifact.Written{{Path: rel, Blob: blob.String(), Output: so, Issue: n}})
	if err != nil {
		return err
	}
	a.auditArtifacts(ctx, "artifact.add", "", outs)
	msg := fmt.Sprintf("%s is recorded as it is (nothing changed)\n", artifact.IDFor(rel))
	if len(outs) > 0 {
		msg = outs[0].Line("recorded")
	}
	return a.emit(o.JSON, &artifact.ChangeDoc{Artifacts: outsList(outs), Message: strings.TrimSpace(msg)}, msg)
}

func outsList(o []artifact.Outcome) []artifact.Outcome {
	if o == nil {
		return []artifact.Outcome{}
	}
	return o
}

type artifactListOptions struct {
	artifact.Filter
	jsonFlag
}

func parseArtifactList(a *App, args []string) (*artifactListOptions, error) {
	o := &artifactListOptions{}
	flags := newFlags(a, "artifact list", "artifact list [--issue N] [--step STEP] [--stale] [--json]")
	issue := flags.String("issue", "", "only issue `N`")
	flags.StringVar(&o.Step, "step", "", "only the artifacts of `step`")
	flags.BoolVar(&o.StaleOnly, "stale", false, "only the stale ones")
	o.register(flags)
	if err := parseFlagsOnly(flags, args); err != nil {
		return o, err
	}
	if *issue != "" {
		var err error
		if o.Issue, err = validate.Issue(*issue); err != nil {
			return o, err
		}
	}
	return o, nil
}

func runArtifactList(_ context.Context, a *App, o *artifactListOptions) error {
	st := a.Artifacts()
	var files []*artifact.File
	if o.Issue != 0 {
		f, err := st.Load(o.Issue)
		if err != nil {
			return err
		}
		files = []*artifact.File{f}
	} else {
		var errs []error
		var err error
		if files, errs, err = st.LoadAll(); err != nil {
			return err
		}
		for _, e := range errs {
			a.warn("%v", e)
		}
	}
	es := artifact.List(files, o.Filter)
	return a.emit(o.JSON, &artifact.ListDoc{Artifacts: es}, artifact.ListText(es))
}

type artifactShowOptions struct {
	ID      string
	Content bool
	jsonFlag
}

func parseArtifactShow(a *App, args []string) (*artifactShowOptions, error) {
	o := &artifactShowOptions{}
	flags := newFlags(a, "artifact show", "artifact show ID [--content] [--json]")
	flags.BoolVar(&o.Content, "content", false, "print the artifact's content (its recorded blob) instead")
	o.register(flags)
	var err error
	o.ID, err = parseOne(flags, args, "artifact show needs one artifact ID (see `agentx-hook artifact list`)")
	return o, err
}

func runArtifactShow(_ context.Context, a *App, o *artifactShowOptions) error {
	f, art, err := a.Artifacts().Locate(o.ID)
	if err != nil {
		return err
	}
	if o.Content {
		repo, err := gitstore.Open(a.Workspace().Root)
		if err != nil {
			return err
		}
		data, err := repo.Blob(gitstore.NewHash(art.Blob))
		if err != nil {
			return errcode.Wrap(errcode.NotFound, err, "the content of %s (blob %s) is not in this repository", art.ID, art.Blob).
				WithHint("fetch the commit that wrote it" + commitHint(art.Commit))
		}
		_, err = iostreams.Raw(a.Stdout).Write(data)
		return err
	}
	e := f.View(art)
	return a.emit(o.JSON, &artifact.ShowDoc{Artifact: e}, artifact.ShowText(e))
}

func commitHint(c string) string {
	if c == "" {
		return ""
	}
	return " (" + artifact.Short(c) + ")"
}

type artifactVerbOptions struct {
	Verb string
	ID   string
	jsonFlag
}

func parseArtifactVerb(verb string) func(*App, []string) (*artifactVerbOptions, error) {
	return func(a *App, args []string) (*artifactVerbOptions, error) {
		o := &artifactVerbOptions{Verb: verb}
		flags := newFlags(a, "artifact "+verb, "artifact "+verb+" ID [--json]")
		o.register(flags)
		var err error
		o.ID, err = parseOne(flags, args, "artifact "+verb+" needs one artifact ID (see `agentx-hook artifact list`)")
		return o, err
	}
}

func runArtifactVerb(ctx context.Context, a *App, o *artifactVerbOptions) error {
	st, now := a.Artifacts(), a.nowString()
	var out artifact.Outcome
	var acked []artifact.Finding
	var err error
	switch o.Verb {
	case "approve":
		out, err = st.SetStatus(ctx, o.ID, artifact.Approved, now)
	case "reject":
		out, err = st.SetStatus(ctx, o.ID, artifact.Rejected, now)
	case "ack":
		out, acked, err = st.Ack(ctx, o.ID, now)
	case "reopen":
		out, err = st.Reopen(ctx, o.ID, now)
	case "remove":
		out, err = st.Remove(ctx, o.ID, a.actor(), now)
	}
	if err != nil {
		return err
	}
	var msg string
	if out.Before == out.After {
		msg = fmt.Sprintf("%s: nothing to %s (%s)\n", out.ID, o.Verb, out.Status)
	} else {
		a.auditArtifacts(ctx, "artifact."+o.Verb, "", []artifact.Outcome{out})
		msg = out.Line(map[string]string{"approve": "approved", "reject": "rejected", "ack": "acknowledged", "reopen": "reopened", "remove": "removed"}[o.Verb])
		for _, f := range acked {
			msg += fmt.Sprintf("  %s now counts as written against %s at %s\n", out.ID, f.Upstream, artifact.Short(f.NewBlob))
		}
		if o.Verb == "approve" {
			a.stepCompleted(out)
		}
	}
	return a.emit(o.JSON, &artifact.ChangeDoc{Artifacts: []artifact.Outcome{out}, Acked: acked, Message: strings.TrimSpace(msg)}, msg)
}

// stepCompleted sets the local issue file's status to the step's
// status_on_complete once every output of the step is approved (Local
// Mode; the Action labels the issue in GitHub Mode).
func (a *App) stepCompleted(out artifact.Outcome) {
	set, err := a.Config()
	if err != nil {
		return
	}
	f, err := a.Artifacts().Load(out.Issue)
	if err != nil {
		return
	}
	art := f.Find(out.ID)
	if art == nil {
		return
	}
	wf, ok := set.Workflow(art.Workflow)
	if !ok {
		return
	}
	step, ok := wf.Step(art.Step)
	if !ok || step.StatusOnComplete == "" {
		return
	}
	for _, t := range step.Output {
		a2 := f.Find(artifact.IDFor(config.OutputPath(t, out.Issue)))
		if a2 == nil || f.EffectiveStatus(a2) != artifact.Approved {
			return
		}
	}
	a.setIssueStatus(out.Issue, step.StatusOnComplete)
}

// setIssueStatus writes status into the local issue file of issue, when
// the team keeps one (.agentx/issues/N.json or issue-N.json).
func (a *App) setIssueStatus(issue int, status string) {
	dir := a.Workspace().IssuesDir()
	for _, p := range localissue.Paths(dir, issue) {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if err := localissue.SetStatus(context.Background(), a.Locks(), p, status); err != nil {
			a.warn("issue #%d: status %q not written: %v", issue, status, err)
		}
		return
	}
}
