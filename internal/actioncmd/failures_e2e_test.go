package actioncmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/githubfake"
	"github.com/agentx-dev/agentx/internal/sync"
)

// End-to-end runs of the built binary where GitHub refuses or limits:
// every failure is explained once, where a person looks, with its fix.

const (
	commentCreate = "POST /repos/{owner}/{repo}/issues/{number}/comments"
	labelsAdd     = "POST /repos/{owner}/{repo}/issues/{number}/labels"
	labelRemove   = "DELETE /repos/{owner}/{repo}/issues/{number}/labels/{name}"
	labelCreate   = "POST /repos/{owner}/{repo}/labels"
	labelGet      = "GET /repos/{owner}/{repo}/labels/{name}"
)

func syncRunner(t *testing.T, issues ...int) (*githubfake.Server, *runner) {
	fake := githubfake.New()
	t.Cleanup(fake.Close)
	r := newRunner(t, fake)
	r.env["INPUT_COMMAND"] = "sync"
	for _, n := range issues {
		fake.AddIssue(n)
		r.writeLedger(sampleLedger(n, time.Now()))
	}
	return fake, r
}

func expectCalls(t *testing.T, fake *githubfake.Server, want map[string]int) {
	t.Helper()
	if missing := fake.MissingCounts(want); len(missing) > 0 {
		t.Fatalf("expected calls did not happen: %v", missing)
	}
}

func answered(issue int) *ledger.Ledger {
	l := sampleLedger(issue, time.Now())
	rec := &l.Clarifications[0]
	rec.Status = ledger.Answered
	rec.Thread = append(rec.Thread, ledger.Entry{Round: 1, From: "architect", Type: ledger.Answer, Body: "Sessions.", Timestamp: rec.Created})
	return l
}

// A token without issues: write: one annotation naming the permissions
// GitHub asked for, the permissions: YAML in the summary, and the run
// stops at the first refusal (every issue would fail alike).
func TestActionMissingPermissionNamesTheYAML(t *testing.T) {
	t.Parallel()
	fake, r := syncRunner(t, 1, 2)
	fake.SetFault(func(c githubfake.Call) *githubfake.Response {
		if c.Route == commentCreate {
			return githubfake.NotAccessible("issues=write; pull_requests=write")
		}
		return nil
	})
	res := r.run()
	if res.code != 1 || strings.Count(res.stdout, "::error") != 1 {
		t.Fatalf("exit %d\n%s", res.code, res.stdout)
	}
	if !strings.Contains(res.stdout, "Resource not accessible by integration") || !strings.Contains(res.stdout, "Fix: add `issues: write` to the job's `permissions:`") ||
		res.outputs["comments-created"] != "0" {
		t.Fatalf("annotation does not say what and how: %s", res.stdout)
	}
	if !strings.Contains(res.summary, "```yaml\npermissions:\n  issues: write\n```") {
		t.Fatalf("summary lacks the permissions block: %q", res.summary)
	}
	if n := fake.Calls()[commentCreate]; n != 1 {
		t.Fatalf("%d comment creates: a missing permission was retried or the run went on", n)
	}
	expectCalls(t, fake, map[string]int{commentCreate: 1, branchRead: 1, refRead: 1})
}

// A pull request from a fork: the token is read-only whatever the
// workflow asks, and the fix is the trigger, not the permissions.
func TestActionForkTokenExplained(t *testing.T) {
	t.Parallel()
	fake, r := syncRunner(t, 1)
	r.env["GITHUB_EVENT_NAME"] = "pull_request"
	r.event(map[string]any{"pull_request": map[string]any{"head": map[string]any{"repo": map[string]any{"fork": true, "full_name": "someone/r"}}}})
	fake.SetFault(func(c githubfake.Call) *githubfake.Response {
		if c.Method != "GET" {
			return githubfake.NotAccessible("")
		}
		return nil
	})
	res := r.run()
	if res.code != 1 || strings.Count(res.stdout, "::error") != 1 || !strings.Contains(res.stdout, "fork") ||
		!strings.Contains(res.summary, "never on `pull_request` from forks") {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.summary)
	}
}

// One failing issue does not stop the others: every issue is attempted,
// each failure gets one annotation and a row with its cause, the exit is
// non-zero, and the failed issues are not recorded as synced.
func TestActionOneFailingIssueDoesNotStopTheOthers(t *testing.T) {
	t.Parallel()
	fake, r := syncRunner(t, 1, 2, 4)
	fake.AddIssue(3)
	fake.PutBranchFile(sync.DefaultStateBranch, sync.BranchLedgerPath(3), []byte("{not a ledger"))
	fake.SetFault(func(c githubfake.Call) *githubfake.Response {
		if c.Route == commentCreate && c.Path == "/repos/o/r/issues/2/comments" {
			return &githubfake.Response{Status: 422, Body: `{"message":"Validation Failed","errors":[{"resource":"IssueComment","code":"custom","message":"body is too long"}]}`}
		}
		return nil
	})
	res := r.run()
	if res.code != 1 || strings.Count(res.stdout, "::error") != 2 {
		t.Fatalf("exit %d, want 1 with two annotations\n%s", res.code, res.stdout)
	}
	for _, want := range []string{"issue #2: ", "Validation Failed", "issue #3: its ledger does not parse"} {
		if !strings.Contains(res.stdout, want) {
			t.Fatalf("annotations lack %q:\n%s", want, res.stdout)
		}
	}
	if !strings.Contains(res.summary, "**2 issue(s) failed**") || !strings.Contains(res.summary, "| #2 |") || !strings.Contains(res.summary, "| #3 |") {
		t.Fatalf("summary %q", res.summary)
	}
	for _, n := range []int{1, 4} {
		if len(fake.Comments(n)) != 1 {
			t.Fatalf("issue #%d was not mirrored after #2 and #3 failed", n)
		}
	}
	if res.outputs["issues-synced"] != "2" {
		t.Fatalf("outputs %v", res.outputs)
	}
	st, _ := fake.BranchFile(sync.DefaultStateBranch, sync.SyncStatePath)
	state := sync.ParseState(st)
	for n, want := range map[int]bool{1: true, 2: false, 3: false, 4: true} {
		if _, ok := state.Get(n); ok != want {
			t.Fatalf("sync state records #%d: %v, want %v", n, ok, want)
		}
	}
	// The next run retries only what failed.
	fake.SetFault(nil)
	res = r.run()
	if res.code != 1 || len(fake.Comments(2)) != 1 || res.outputs["comments-created"] != "1" {
		t.Fatalf("second run: exit %d outputs %v\n%s", res.code, res.outputs, res.stdout)
	}
}

// operations-per-run bounds a run's writes; the issues not reached wait
// for the next run (exit 0, a warning, issues-waiting), none is recorded
// as synced before it is, and no comment is ever posted twice.
func TestActionBudgetLeavesTheRestForTheNextRun(t *testing.T) {
	t.Parallel()
	fake, r := syncRunner(t, 1, 2, 3, 4, 5)
	r.env["INPUT_OPERATIONS-PER-RUN"] = "4"
	res := r.run()
	// #1: comment, label created, label added; #2: comment, then spent.
	if res.code != 0 || res.outputs["issues-synced"] != "1" || res.outputs["issues-waiting"] != "4" {
		t.Fatalf("exit %d outputs %v\n%s", res.code, res.outputs, res.stdout)
	}
	if strings.Count(res.stdout, "::warning") != 1 || !strings.Contains(res.stdout, "operations-per-run") || strings.Contains(res.stdout, "::error") {
		t.Fatalf("stdout %s", res.stdout)
	}
	if !strings.Contains(res.summary, "**4 issue(s) wait**") {
		t.Fatalf("summary %q", res.summary)
	}
	st, _ := fake.BranchFile(sync.DefaultStateBranch, sync.SyncStatePath)
	if _, ok := sync.ParseState(st).Get(2); ok {
		t.Fatal("issue #2 recorded as synced with its label still missing")
	}
	runs := 1
	for ; res.outputs["issues-waiting"] != "0" && runs < 10; runs++ {
		if res = r.run(); res.code != 0 {
			t.Fatalf("run %d: exit %d\n%s", runs+1, res.code, res.stdout)
		}
	}
	for n := 1; n <= 5; n++ {
		if len(fake.Comments(n)) != 1 || len(fake.IssueLabels(n)) != 1 {
			t.Fatalf("after %d runs issue #%d has %d comments, labels %v", runs, n, len(fake.Comments(n)), fake.IssueLabels(n))
		}
	}
	t.Logf("5 issues at 4 writes a run: %d runs", runs)
}

// An exhausted primary quota whose reset is past max-wait ends the run
// at once, cleanly: exit 0, a warning saying what it would wait for, the
// rest left for the next run, which finishes.
func TestActionPrimaryRateLimitEndsTheRunCleanly(t *testing.T) {
	t.Parallel()
	fake, r := syncRunner(t, 1, 2, 3)
	r.env["INPUT_MAX-WAIT"] = "1m"
	creates := 0
	fake.SetFault(func(c githubfake.Call) *githubfake.Response {
		if c.Route == commentCreate {
			if creates++; creates == 2 {
				return githubfake.PrimaryLimit(time.Now().Add(time.Hour))
			}
		}
		return nil
	})
	start := time.Now()
	res := r.run()
	if res.code != 0 || strings.Contains(res.stdout, "::error") || !strings.Contains(res.stdout, "::warning") ||
		!strings.Contains(res.stdout, "primary rate limit") || !strings.Contains(res.stdout, "left of max-wait") {
		t.Fatalf("exit %d\n%s", res.code, res.stdout)
	}
	if time.Since(start) > 30*time.Second {
		t.Fatal("the run waited for a reset past max-wait")
	}
	if res.outputs["issues-waiting"] != "2" || !strings.Contains(res.summary, "**2 issue(s) wait**") {
		t.Fatalf("outputs %v summary %q", res.outputs, res.summary)
	}
	fake.SetFault(nil)
	if res = r.run(); res.code != 0 || res.outputs["issues-waiting"] != "0" {
		t.Fatalf("next run: exit %d %v", res.code, res.outputs)
	}
	for n := 1; n <= 3; n++ {
		if len(fake.Comments(n)) != 1 {
			t.Fatalf("issue #%d: %d comments", n, len(fake.Comments(n)))
		}
	}
}

// ACTIONS_STEP_DEBUG (the runner's RUNNER_DEBUG=1) prints a ::debug::
// line per API call and decision; a dry run lists its planned writes in
// the step summary.
func TestActionDebugLinesAndDryRunPlan(t *testing.T) {
	t.Parallel()
	fake, r := syncRunner(t, 3)
	r.env["INPUT_DRY-RUN"] = "true"
	res := r.run()
	if strings.Contains(res.stdout, "::debug::") {
		t.Fatalf("debug lines without step debug:\n%s", res.stdout)
	}
	r.env["RUNNER_DEBUG"] = "1"
	res = r.run()
	if res.code != 0 || fake.Writes() != 0 {
		t.Fatalf("exit %d, %d writes", res.code, fake.Writes())
	}
	for _, want := range []string{"::debug::api: GET /repos/o/r/issues/3 -> 200", "rate limit remaining 4999", "::debug::issue #3: create comment"} {
		if !strings.Contains(res.stdout, want) {
			t.Fatalf("stdout lacks %q:\n%s", want, res.stdout)
		}
	}
	for _, want := range []string{"Planned operations (dry run)", "| #3 | create comment |  |", "| #3 | create label | clarification-blocked |", "| #3 | add labels | clarification-blocked |"} {
		if !strings.Contains(res.summary, want) {
			t.Fatalf("summary lacks %q:\n%s", want, res.summary)
		}
	}
}

// Label names that need escaping in a URL path work for get, create, add
// and remove; a removal that found the label gone is not counted.
func TestActionLabelNamesNeedingEscapes(t *testing.T) {
	t.Parallel()
	fake, r := syncRunner(t, 7, 8)
	const name = "needs answer? #1 / ü"
	r.env["INPUT_BLOCKED-LABEL"] = name
	if res := r.run(); res.code != 0 || res.outputs["labels-added"] != "2" {
		t.Fatalf("exit %d outputs %v\n%s", res.code, res.outputs, res.stdout)
	}
	if _, ok := fake.RepoLabel(name); !ok || strings.Join(fake.IssueLabels(7), ",") != name {
		t.Fatalf("labels %v", fake.IssueLabels(7))
	}
	expectCalls(t, fake, map[string]int{labelGet: 1, labelCreate: 1, labelsAdd: 2})
	// Both answered; someone removed #8's label by hand meanwhile.
	r.writeLedger(answered(7))
	r.writeLedger(answered(8))
	fake.SetFault(nil)
	removeByHand(t, fake, 8, name)
	fake.ResetCounts()
	res := r.run()
	if res.code != 0 || res.outputs["labels-removed"] != "1" || len(fake.IssueLabels(7)) != 0 {
		t.Fatalf("exit %d outputs %v labels %v\n%s", res.code, res.outputs, fake.IssueLabels(7), res.stdout)
	}
	expectCalls(t, fake, map[string]int{labelRemove: 2})
}

// removeByHand takes a label off an issue the way a person would.
func removeByHand(t *testing.T, fake *githubfake.Server, issue int, name string) {
	t.Helper()
	snap := fake.IssueLabels(issue)
	if len(snap) != 1 || snap[0] != name {
		t.Fatalf("issue #%d labels %v", issue, snap)
	}
	fake.SetIssueLabels(issue)
}

// A root input naming a directory without .agentx: the checkout step is
// missing. One annotation says so and how to add it.
func TestActionMissingCheckout(t *testing.T) {
	t.Parallel()
	fake, r := syncRunner(t, 1)
	r.env["INPUT_ROOT"] = "project"
	res := r.run()
	if res.code != 1 || strings.Count(res.stdout, "::error") != 1 || !strings.Contains(res.stdout, "holds no .agentx") ||
		!strings.Contains(res.summary, "actions/checkout") || fake.Reads()+fake.Writes() != 0 {
		t.Fatalf("exit %d calls %d\n%s\n%s", res.code, fake.Reads()+fake.Writes(), res.stdout, res.summary)
	}
}

// With the default root, a workspace with no checkout at all runs on the
// defaults and says so once (a notice and a summary line); a checkout
// without .agentx/ (a repository that does not configure agentx) or an
// .agentx/ without .git says nothing.
func TestActionNoCheckoutNotice(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		setup  func(r *runner)
		notice bool
	}{
		{"no checkout", func(*runner) {}, true},
		{"checkout without .agentx", func(r *runner) { os.Mkdir(filepath.Join(r.workspace, ".git"), 0o755) }, false},
		{"worktree checkout (.git file)", func(r *runner) {
			os.WriteFile(filepath.Join(r.workspace, ".git"), []byte("gitdir: /elsewhere\n"), 0o644)
		}, false},
		{".agentx without .git", func(r *runner) { r.checkoutFile("agentx.toml", []byte("mode = \"github\"\n")) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake, r := syncRunner(t, 1)
			tc.setup(r)
			res := r.run()
			if res.code != 0 || fake.Writes() == 0 {
				t.Fatalf("exit %d, %d writes\n%s%s", res.code, fake.Writes(), res.stdout, res.stderr)
			}
			notices := strings.Count(res.stdout, "::notice::"+noCheckoutNote+"\n")
			inSummary := strings.Count(res.summary, noCheckoutNote)
			if tc.notice && (notices != 1 || strings.Count(res.stdout, "::notice") != 1 || inSummary != 1) ||
				!tc.notice && (strings.Contains(res.stdout+res.stderr+res.summary, "no checkout") || strings.Contains(res.stdout, "::notice")) {
				t.Fatalf("want notice %t: %d notices, %d in the summary\n%s\n%s", tc.notice, notices, inSummary, res.stdout, res.summary)
			}
		})
	}
}

// A ruleset refuses the state branch's update with 409 "Repository rule
// violations found": not a lost race, so not retried; the person's
// command gets a reply saying it could not be saved.
func TestActionRulesetRefusalIsNotRetried(t *testing.T) {
	t.Parallel()
	for _, status := range []int{409, 422} {
		fake, r := issueRunner(t, 5, "ingest", "issue_comment")
		r.writeLedger(sampleLedger(5, time.Now()))
		fake.SetFault(func(c githubfake.Call) *githubfake.Response {
			if c.Route == refUpdate {
				return githubfake.RulesetViolation(status)
			}
			return nil
		})
		c := fake.AddComment(5, "alice", "MEMBER", "/clarify answer CLR-5-001 Sessions.")
		r.event(issueCommentEvent(5, c))
		fake.ResetCounts()
		res := r.run()
		if res.code != 1 || strings.Count(res.stdout, "::error") != 1 || !strings.Contains(res.summary, "Not saved:") {
			t.Fatalf("%d: exit %d\n%s\n%s", status, res.code, res.stdout, res.summary)
		}
		if n := fake.Calls()[refUpdate]; n != 1 {
			t.Fatalf("%d: %d ref updates: a ruleset refusal was retried as a conflict", status, n)
		}
		cs := fake.Comments(5)
		if last := cs[len(cs)-1]; !strings.Contains(last.Body, "could not be saved") {
			t.Fatalf("%d: no reply on the command: %q", status, last.Body)
		}
	}
}

// A command that a rate limit kept from being saved is a failure of the
// run (not a clean early stop, as for sync): the person is told in a
// reply, the run exits 1 with one annotation. A re-delivered event of a
// command already applied is not counted again.
func TestActionIngestNotSavedByRateLimitAndRedelivery(t *testing.T) {
	t.Parallel()
	fake, r := issueRunner(t, 5, "ingest", "issue_comment")
	r.env["INPUT_MAX-WAIT"] = "1m"
	r.writeLedger(sampleLedger(5, time.Now()))
	fake.SetFault(func(c githubfake.Call) *githubfake.Response {
		if c.Route == refUpdate {
			return githubfake.TooManyRequests(3600)
		}
		return nil
	})
	c := fake.AddComment(5, "alice", "MEMBER", "/clarify answer CLR-5-001 Sessions.")
	r.event(issueCommentEvent(5, c))
	res := r.run()
	if res.code != 1 || strings.Count(res.stdout, "::error") != 1 || strings.Contains(res.stdout, "stopped early") ||
		!strings.Contains(res.stdout, "could not be saved") {
		t.Fatalf("exit %d\n%s", res.code, res.stdout)
	}
	cs := fake.Comments(5)
	if last := cs[len(cs)-1]; !strings.Contains(last.Body, "could not be saved: GitHub's rate limit") || strings.Contains(last.Body, "127.0.0.1") {
		t.Fatalf("reply %q", last.Body)
	}
	if got, _ := fake.Comment(c.ID); len(got.Reactions) == 0 || got.Reactions[len(got.Reactions)-1] != "confused" {
		t.Fatalf("reactions %v", got.Reactions)
	}
	// The limit is gone; the command is posted again and lands; then the
	// same event is delivered once more.
	fake.SetFault(nil)
	c2 := fake.AddComment(5, "alice", "MEMBER", "/clarify answer CLR-5-001 Sessions.")
	r.event(issueCommentEvent(5, c2))
	if res = r.run(); res.code != 0 || res.outputs["commands-applied"] != "1" {
		t.Fatalf("posted again: exit %d %v\n%s", res.code, res.outputs, res.stdout)
	}
	if res = r.run(); res.code != 0 || res.outputs["commands-applied"] != "0" {
		t.Fatalf("re-delivered: exit %d %v, want nothing counted\n%s", res.code, res.outputs, res.stdout)
	}
}
