package actioncmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/sync"
)

// Every failure is explained where a person looks: one annotation (the
// run's page and the PR's checks) and a line in the step summary, each
// saying what is wrong and the exact fix. A run stopped by GitHub's rate
// limits or by its own budget is not a failure: it warns, says what is
// left, and exits 0 (the next run goes on).

// errNoCheckout is a root input naming a directory with no .agentx.
var errNoCheckout = errors.New("no checkout")

// readBudgets reads operations-per-run and max-wait, and whether the
// runner's step debug is on.
func (a *App) readBudgets(gha *githubactions.Action, in *inputs) error {
	in.budget = sync.DefaultOperationsPerRun
	if v := gha.GetInput("operations-per-run"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("input operations-per-run: %q is not a whole number of writes (1 or more)", v)
		}
		in.budget = n
	}
	in.maxWait = sync.DefaultMaxWait
	if v := gha.GetInput("max-wait"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("input max-wait: %q is not a duration like 10m", v)
		}
		in.maxWait = d
		if d == 0 {
			in.maxWait = time.Nanosecond // never wait: stop at the first limit
		}
	}
	// The runner sets RUNNER_DEBUG=1 when the ACTIONS_STEP_DEBUG secret
	// or variable is true (or a run is re-run with debug logging).
	in.debug = a.Getenv("RUNNER_DEBUG") == "1" || strings.EqualFold(a.Getenv("ACTIONS_STEP_DEBUG"), "true")
	return nil
}

// debugf returns the `::debug::` logger when step debug is on, else nil
// (no line is even formatted).
func (a *App) debugf(gha *githubactions.Action, in *inputs) func(string, ...any) {
	if !in.debug {
		return nil
	}
	return gha.Debugf
}

// logf prints a line to the step's log (stderr): waits on GitHub.
func (a *App) logf(format string, args ...any) {
	fmt.Fprintf(a.Stderr, "agentx-action: "+format+"\n", args...)
}

// checkoutPresent refuses a root input that names a directory without
// .agentx: the step expects a checkout there and would otherwise run on
// defaults, silently.
func checkoutPresent(in *inputs) error {
	if !in.rootSet {
		return nil
	}
	if fi, err := os.Stat(filepath.Join(in.root, ".agentx")); err == nil && fi.IsDir() {
		return nil
	}
	return fmt.Errorf("%w: root %s holds no .agentx directory", errNoCheckout, in.root)
}

// noCheckoutNote is said when a run on the default root finds no
// checkout at all.
const noCheckoutNote = "no checkout: running on the defaults (add actions/checkout before this step to use .agentx/agentx.toml and workflows)"

// noteNoCheckout says, in one notice (and summaryNoCheckout in a summary
// line), that a run on the default root found neither .agentx/ nor a .git
// in the workspace: running without a checkout is supported (the state
// lives on the state branch), but a job that forgot actions/checkout
// would otherwise run on the defaults unawares. A checkout without
// .agentx/ is a repository that does not configure agentx: nothing to say.
func (a *App) noteNoCheckout(gha *githubactions.Action, in *inputs) {
	if in.rootSet || exists(filepath.Join(in.root, ".agentx")) || exists(filepath.Join(in.workspaceRoot, ".git")) {
		return
	}
	in.noCheckout = true
	gha.Noticef("%s", noCheckoutNote)
}

// summaryNoCheckout adds the notice's line to the step summary, after
// what the run reports (a digest's summary is the issue's text, which the
// line is not part of).
func (a *App) summaryNoCheckout(gha *githubactions.Action, in *inputs) {
	if in.noCheckout {
		a.summary(gha, in, "\n"+noCheckoutNote+"\n")
	}
}

// exists reports whether path is there, of any type (.git is a file in a
// worktree or a submodule). What cannot be told counts as there: the
// notice is for a plain absence only.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// fail reports a run that ended with err and returns the exit status.
func (a *App) fail(gha *githubactions.Action, in *inputs, err error) int {
	if (errors.Is(err, sync.ErrRateLimited) || errors.Is(err, sync.ErrBudget)) && !errors.Is(err, sync.ErrNotSaved) {
		a.stoppedEarly(gha, in, err)
		return 0
	}
	var failed *sync.FailedIssues
	if errors.As(err, &failed) {
		var rows []string
		for _, f := range failed.Failures {
			what, fix := explain(f.Err, in)
			gha.Errorf("%s: issue #%d: %s. Fix: %s", in.command, f.Issue, what, firstLine(fix))
			rows = append(rows, fmt.Sprintf("| #%d | %s | %s |", f.Issue, cell(what), cell(fix)))
		}
		a.summary(gha, in, fmt.Sprintf("**%d issue(s) failed** (every other issue was attempted):\n\n| issue | what is wrong | fix |\n|---|---|---|\n%s\n",
			len(failed.Failures), strings.Join(rows, "\n")))
		return 1
	}
	what, fix := explain(err, in)
	gha.Errorf("%s failed: %s. Fix: %s", in.command, what, firstLine(fix))
	head := "Failed"
	switch {
	case errors.Is(err, sync.ErrProtected):
		head = "Not saved" // the state branch took nothing from this run
	case errors.Is(err, sync.ErrWrongBot):
		head = "Stopped" // before posting anything
	}
	a.summary(gha, in, fmt.Sprintf("**%s:** %s\n\n**Fix:** %s\n", head, what, fix))
	return 1
}

// stoppedEarly reports a run ended by the rate limit or the budget: a
// warning, and the summary says what is left.
func (a *App) stoppedEarly(gha *githubactions.Action, in *inputs, err error) {
	waiting := 0
	if a.syncer != nil {
		waiting = a.syncer.Waiting
	}
	why := fmt.Sprintf("the run's %d writes (operations-per-run) are spent", in.budget)
	var rle *sync.RateLimitedError
	if errors.As(err, &rle) {
		why = rle.Error() // without the URL and the call chain around it
	} else if errors.Is(err, sync.ErrRateLimited) {
		why = err.Error()
	}
	gha.Warningf("%s stopped early: %s; %d issue(s) wait for the next run", in.command, why, waiting)
	a.summary(gha, in, fmt.Sprintf("**Stopped early:** %s. **%d issue(s) wait** for the next run, which picks them up; nothing is lost.\n", why, waiting))
}

// reportRun sets issues-waiting and adds the dry run's planned
// operations to the step summary.
func (a *App) reportRun(gha *githubactions.Action, in *inputs) {
	if a.syncer == nil {
		return
	}
	gha.SetOutput("issues-waiting", strconv.Itoa(a.syncer.Waiting))
	if !in.dryRun || len(a.syncer.Planned) == 0 {
		return
	}
	const maxRows = 300
	var b strings.Builder
	b.WriteString("#### Planned operations (dry run)\n\n| issue | operation | comment or label |\n|---|---|---|\n")
	for i, op := range a.syncer.Planned {
		if i == maxRows {
			fmt.Fprintf(&b, "\n…and %d more.\n", len(a.syncer.Planned)-maxRows)
			break
		}
		fmt.Fprintf(&b, "| #%d | %s | %s |\n", op.Issue, op.Action, cell(op.Target))
	}
	a.summary(gha, in, b.String())
}

func (a *App) summary(gha *githubactions.Action, in *inputs, text string) {
	if in.stepSummaryOn {
		gha.AddStepSummary(text)
	}
}

// explain says what is wrong and how to fix it, for a person reading the
// run's page.
func explain(err error, in *inputs) (what, fix string) {
	var perr *sync.PermissionError
	switch {
	case errors.Is(err, sync.ErrWrongBot):
		return err.Error(), "set the action's `bot-login` input to the login named above; nothing was posted (https://github.com/agentx-dev/agentx/blob/main/docs/github-mode.md#troubleshooting-wrong-bot-login)"
	case errors.Is(err, errNoCheckout):
		return err.Error(), "add `- uses: actions/checkout@v4` before this step, or correct the `root` input (leave it unset to run without a checkout, on defaults)"
	case errcode.CodeOf(err) == errcode.CorruptState:
		return "its ledger does not parse (" + err.Error() + ")", "repair or restore that file on the state branch `" + in.stateBranch + "` (its history: `git log -p origin/" + in.stateBranch + " -- state/clarifications/`); the issue is not mirrored until then"
	case fromFork(in) && (errors.Is(err, sync.ErrPermission) || errors.Is(err, sync.ErrProtected)):
		return "a pull request from a fork runs with a read-only token (" + err.Error() + ")", "run agentx on `push`, `schedule` and `issue_comment` (as examples/workflows do), never on `pull_request` from forks"
	case errors.Is(err, sync.ErrProtected) && errors.As(err, &perr):
		return "the token may not write the state branch `" + in.stateBranch + "` (" + err.Error() + ")", yamlFix(perr)
	case errors.Is(err, sync.ErrProtected):
		return "the state branch `" + in.stateBranch + "` is protected (" + err.Error() + ")", "give the job `permissions: contents: write`, and exempt `" + in.stateBranch + "` from branch protection and rulesets for github-actions, or set the `state-branch` input (or `[github] state_branch`) to an unprotected branch; see https://github.com/agentx-dev/agentx/blob/main/docs/github-mode.md#troubleshooting-every-failure-and-its-fix"
	case errors.As(err, &perr):
		return err.Error(), yamlFix(perr)
	case errors.Is(err, sync.ErrNotSaved) && errors.Is(err, sync.ErrRateLimited):
		return "a /clarify command could not be saved (" + err.Error() + ")", "nothing to repair: the person was asked (in a reply) to post it again; if it recurs, raise `max-wait` or space the scheduled runs so they leave GitHub's quota to ingest"
	}
	return err.Error(), "re-run the job; if it fails again, re-run it with debug logging (ACTIONS_STEP_DEBUG) to see every API call, and report it"
}

// yamlFix is the fix for perr: the permissions GitHub said the call
// needs (else everything agentx writes with), inline for the annotation,
// then as the `permissions:` block to paste, for the summary.
func yamlFix(perr *sync.PermissionError) string {
	perms := perr.Permissions()
	if len(perms) == 0 {
		perms = map[string]string{"contents": "write", "issues": "write", "pull-requests": "write"}
	}
	block := sync.PermissionsYAML(perms)
	var inline []string
	for _, line := range strings.Split(strings.TrimSpace(block), "\n")[1:] {
		inline = append(inline, "`"+strings.TrimSpace(line)+"`")
	}
	return "add " + strings.Join(inline, ", ") + " to the job's `permissions:` (comments on pull requests need `pull-requests: write`):\n\n```yaml\n" + block + "```"
}

// fromFork reports a pull_request run whose head is a fork: its token is
// read-only whatever the workflow asks.
func fromFork(in *inputs) bool {
	if in.eventName != "pull_request" && in.eventName != "pull_request_review_comment" {
		return false
	}
	pr, _ := in.event["pull_request"].(map[string]any)
	head, _ := pr["head"].(map[string]any)
	repo, _ := head["repo"].(map[string]any)
	fork, _ := repo["fork"].(bool)
	name, _ := repo["full_name"].(string)
	return fork || (name != "" && !strings.EqualFold(name, in.repository))
}

// firstLine is the fix up to its first line break (an annotation is one
// line; the summary has the whole of it).
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSuffix(line, ":")
}

// cell makes text safe for one Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	s = strings.ReplaceAll(s, "```yaml\n", "<code>")
	s = strings.ReplaceAll(s, "```", "</code>")
	return strings.ReplaceAll(s, "\n", "<br>")
}
