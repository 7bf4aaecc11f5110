package hookcmd

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/gitexclude"
	"github.com/agentx-dev/agentx/internal/core/gitstore"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/cursor"
	"github.com/agentx-dev/agentx/internal/core/intake"
	"github.com/agentx-dev/agentx/internal/core/recall"
	"github.com/agentx-dev/agentx/internal/core/recalljournal"
	"github.com/agentx-dev/agentx/internal/core/spool"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

// The memory pipeline's commands: `hook finish` captures (package intake),
// `hook start` finishes leftover captures and recalls (package recall),
// `memory capture|recall|compact` do each by hand. This file wires the
// core packages to the workspace and decides what is printed.

const (
	// envSpoolOnly stops a capture right after the durable spool write, as
	// a host killing the hook would (tests and the durable-part benchmark).
	// Honoured only when set.
	envSpoolOnly = "AGENTX_SPOOL_ONLY"
	// instructionsFile is where Copilot reads recall (recall.InstructionsFile).
	instructionsFile = recall.InstructionsFile
)

// settings is agentx.toml; one that cannot be read means the defaults
// (a warning was or will be printed by whoever needs the rest).
func (a *App) settings() *config.Config {
	if cfg, err := a.Config(); err == nil {
		return &cfg.Config
	}
	return &config.Config{}
}

// readInputFile reads a file named on the command line within [limits]
// input_file (config.LimitsSettings.ReadInput).
func (a *App) readInputFile(what, path string) ([]byte, error) {
	return a.settings().Limits.ReadInput(what, path)
}

// intake wires the workspace's spool, cursors and store for a capture.
func (a *App) intake() *intake.Intake { return a.intakeWith(false) }

// intakeWith is intake stopping after the spool write when spoolOnly (or
// $AGENTX_SPOOL_ONLY) says so: a hook whose deadline passed keeps the
// capture for the next `hook start`.
func (a *App) intakeWith(spoolOnly bool) *intake.Intake {
	ws := a.Workspace()
	return &intake.Intake{
		TranscriptMaxBytes: int64(a.settings().Limits.Transcript),
		Spool:              spool.New(ws.SpoolDir(), a.Locks(), spool.Options{Clock: a.Clock}),
		Cursors:            cursor.New(ws.CursorsDir(), a.Locks(), a.Clock),
		Store:              a.Memory(),
		SpoolOnly:          spoolOnly || a.Getenv(envSpoolOnly) != "",
		Warn:               a.warn,
		CopilotSessions:    copilotSessions(a.Getenv),
		StepOf:             a.stepOf(),
	}
}

// stepOf names the workflow step an agent works in on an issue: in the
// workflow the issue's artifacts name, else the default one (nil without
// a configuration). Each issue's ledger is read once per process.
func (a *App) stepOf() func(agent string, issue int) string {
	cfg, err := a.Config()
	if err != nil {
		return nil
	}
	files := map[int]*artifact.File{}
	return func(agent string, issue int) string {
		f, ok := files[issue]
		if !ok {
			f, _ = a.Artifacts().Load(issue) // unreadable: the default workflow's step
			files[issue] = f
		}
		wf, ok := artifact.WorkflowOf(cfg, f, cfg.Config.DefaultWorkflow)
		if !ok {
			return ""
		}
		if st, ok := artifact.AgentStep(wf, agent); ok {
			return st.ID
		}
		return ""
	}
}

// copilotSessions is Copilot CLI's session-state directory:
// $COPILOT_HOME/session-state, else ~/.copilot/session-state ("" with
// neither set).
func copilotSessions(getenv func(string) string) string {
	home := getenv("COPILOT_HOME")
	if home == "" {
		h := getenv("HOME")
		if h == "" {
			return ""
		}
		home = filepath.Join(h, ".copilot")
	}
	return filepath.Join(home, "session-state")
}

// recallRequest is one recall (recall.Request).
type recallRequest = recall.Request

// recallService wires recall to this workspace: its store, journal, event
// log and git, and the open clarifications of an issue for keywords.
func (a *App) recallService() *recall.Service {
	journal := recalljournal.New(a.Workspace().RecallJournalFile(), a.Locks())
	journal.Old = a.Workspace().OldRecallJournalFile()
	return &recall.Service{
		Store: a.Memory(), Journal: journal,
		Events: a.Events(), Clock: a.Clock, Root: a.Workspace().Root,
		MaxTokens: a.settings().Memory.Budget(), CLI: a.cliName(), Warn: a.warn,
		IssueTexts: a.openClarificationTexts, Anchors: a.anchors(true),
	}
}

// openClarificationTexts are the topics and threads of an issue's open
// clarifications (what recall takes keywords from).
func (a *App) openClarificationTexts(issue int) []string {
	l, err := a.Ledgers().Load(issue)
	if err != nil {
		return nil
	}
	return l.OpenTexts()
}

// agentAndIssue resolves --agent (else $AGENTX_AGENT) and --issue (else
// $AGENTX_ISSUE, else the branch name) for the memory pipeline commands.
func (a *App) agentAndIssue(ctx context.Context, cmd string, agent *string, issueFlag string) (int, bool, error) {
	if *agent == "" {
		*agent = a.Getenv("AGENTX_AGENT")
	}
	if *agent == "" { // a missing flag is a usage error, like hook start's
		return 0, false, usagef("%s needs --agent (or $AGENTX_AGENT)", cmd)
	}
	if err := config.CheckAgentName("--agent", *agent, a.Config); err != nil {
		return 0, false, err
	}
	return a.issueFor(ctx, issueFlag)
}

const captureUsage = `memory capture --agent A [--issue N] [--file F] [--session S] [--json]

Captures observations from a session: a host hook payload (Claude Code,
Copilot CLI, Codex; its transcript is read) or a summary in the old
compaction format (## Decisions, ## Code Changes, ## Errors Encountered,
## Key Facts), from --file or stdin. Sanitised before anything reaches disk;
each session turn is captured once.`

// memoryCaptureOptions is `memory capture`'s command line.
type memoryCaptureOptions struct {
	Agent   string // --agent, else $AGENTX_AGENT (resolved when run)
	Issue   string // --issue, else $AGENTX_ISSUE, else the branch name
	File    string
	Session string
	jsonFlag
}

func parseMemoryCapture(a *App, args []string) (*memoryCaptureOptions, error) {
	o := &memoryCaptureOptions{}
	flags := newFlags(a, "memory capture", captureUsage)
	flags.StringVar(&o.Agent, "agent", "", "the observing agent `A` (else $AGENTX_AGENT)")
	flags.StringVar(&o.Issue, "issue", "", "issue `N` (else $AGENTX_ISSUE, else the branch name)")
	flags.StringVar(&o.File, "file", "", "read the payload or summary from `F` instead of stdin")
	flags.StringVar(&o.Session, "session", "", "session ID `S` for a summary")
	o.register(flags)
	return o, parseFlagsOnly(flags, args)
}

func runMemoryCapture(ctx context.Context, a *App, o *memoryCaptureOptions) error {
	agent := o.Agent
	issue, ok, err := a.agentAndIssue(ctx, "memory capture", &agent, o.Issue)
	if err != nil {
		return err
	}
	if !ok {
		return usagef("memory capture needs --issue (or $AGENTX_ISSUE, or a branch named like 42-fix-login)")
	}
	if err := validate.Session("--session", o.Session); err != nil {
		return err
	}
	data, err := intake.ReadInput(o.File, a.Stdin, a.readInputFile)
	if err != nil {
		return err
	}
	if !a.settings().Memory.IsEnabled() {
		return a.printCapture(&intake.Report{Agent: agent, Issue: issue}, o.JSON, "Memory is disabled ([memory] enabled = false); nothing captured.")
	}
	c, err := intake.FromInput(agent, issue, data, o.Session, o.File)
	if err != nil {
		return err
	}
	rep, err := a.intake().Durably(ctx, c)
	if err != nil {
		return err
	}
	return a.printCapture(rep, o.JSON, rep.Line())
}

func (a *App) printCapture(rep *intake.Report, asJSON bool, line string) error {
	if asJSON {
		return a.writeDoc(rep.Doc(line))
	}
	a.printLines(append([]string{line}, rep.StoredLines()...), nil)
	return nil
}

const recallUsage = `memory recall --agent A [--issue N] [--query Q] [--budget TOKENS] [--format text|claude|codex|json] [--write-instructions] [--json]

Prints the ## Memory Recall section a session starts with: the observations
most relevant to the agent and issue (recency, recall count and keyword
overlap with the query, the branch name, open clarifications and recent
commits), within [memory] max_tokens and the host's own ceiling (claude:
10,000 characters, codex: about 2,500 tokens). --write-instructions writes
it to ` + instructionsFile + ` for GitHub Copilot, which ignores what a
sessionStart hook prints (in Copilot's form: no --format beside it). Text and --json are a preview: they do not count
as a recall; --format claude|codex and --write-instructions inject it, and
count.`

// recallOptions is `memory recall`'s command line.
type recallOptions struct {
	// req is the recall asked for; its Agent (else $AGENTX_AGENT) and
	// Issue (issueFlag, else $AGENTX_ISSUE, else the branch name) are
	// resolved when run.
	req       recallRequest
	issueFlag string
	format    string // text, claude, codex or json
	write     bool   // --write-instructions
}

func (o *recallOptions) jsonMode() bool { return o.format == "json" }

func parseRecall(a *App, args []string) (*recallOptions, error) {
	flags := newFlags(a, "memory recall", recallUsage)
	agent := flags.String("agent", "", "the agent `A` (else $AGENTX_AGENT)")
	issueFlag := flags.String("issue", "", "issue `N` (else $AGENTX_ISSUE, else the branch name)")
	query := flags.String("query", "", "words `Q` to rank by, besides the branch, clarifications and commits")
	budget := flags.Int("budget", 0, "at most `TOKENS` (default [memory] max_tokens)")
	var f formatFlag
	f.register(flags, "text", "output `form`: text, claude, codex or json")
	write := flags.Bool("write-instructions", false, "write "+instructionsFile+" (Copilot) instead of printing")
	pos, err := f.parse(flags, args)
	if err == nil && len(pos) > 0 { // `recall ... redis` meant --query redis
		err = usagef("%s takes no arguments (got %q)", flags.Name(), pos[0])
	}
	format := &f.Format
	opts := &recallOptions{format: *format, write: *write}
	if err != nil {
		return opts, err
	}
	switch *format {
	case "text", "claude", "codex", "json":
	default:
		return opts, usagef("--format must be text, claude, codex or json (got %q)", *format)
	}
	// The instructions file holds Copilot's form of the recall (its
	// ceiling, its wording) and stdout gets one line saying where it went:
	// another form asked for beside it would be ignored without a word.
	if *write && *format != "text" {
		return opts, usagef("memory recall: --write-instructions writes Copilot's form of the recall, not --format %s (drop one of them)", *format)
	}
	if err := recall.CheckBudget(*budget); err != nil {
		return opts, usagef("%s", err.Error())
	}
	opts.issueFlag = *issueFlag
	opts.req = recallRequest{Agent: *agent, Query: *query, Budget: *budget}
	opts.req.For(*format, *write)
	return opts, nil
}

func runMemoryRecall(ctx context.Context, a *App, opts *recallOptions) error {
	if opts.write && opts.req.Agent == "" && a.Getenv("AGENTX_AGENT") == "" {
		// Written for Copilot at a session's end (setup's sessionEnd
		// command): the session's agent, as the hooks choose it.
		if cfg, err := a.Config(); err == nil {
			opts.req.Agent = cfg.Config.Hooks.DefaultAgentOr()
		}
	}
	var err error
	if opts.req.Issue, opts.req.HasIssue, err = a.agentAndIssue(ctx, "memory recall", &opts.req.Agent, opts.issueFlag); err != nil {
		return err
	}
	// off says why nothing is recalled (memory or recall switched off).
	res, off, text, err := a.recallService().Section(ctx, a.settings().Memory, opts.req)
	if err != nil {
		return err
	}
	if opts.write {
		line, err := recall.WriteInstructionsLine(a.Workspace().Root, opts.req, text, off)
		if err == nil {
			fmt.Fprintln(a.Stdout, line)
			if off == "" {
				a.excludeInstructions()
			}
		}
		return err
	}
	switch opts.format {
	case "claude", "codex":
		return writeSessionStart(a.Stdout, text)
	case "json":
		return a.writeDoc(res.Doc(opts.req, off, text))
	}
	if off != "" {
		fmt.Fprintln(a.Stdout, off)
		return nil
	}
	_, err = io.WriteString(a.Stdout, text)
	return err
}

// excludeInstructions keeps Copilot's instructions file out of git status
// in this clone: it is one agent's recall from this clone's memory,
// rewritten at every Copilot session end, so committing it put a change
// in every session (issue 37). The line goes in .git/info/exclude, which
// no commit carries; a file the branch already tracks stays tracked until
// someone runs `git rm --cached` on it.
func (a *App) excludeInstructions() {
	repo, err := gitstore.Open(a.Workspace().Root)
	if err != nil {
		return // not a git repository: nothing shows it
	}
	if _, err := gitexclude.Ensure(repo.CommonDir, "/"+instructionsFile); err != nil {
		a.warn("%s may show in git status: %v", instructionsFile, err)
	}
}
