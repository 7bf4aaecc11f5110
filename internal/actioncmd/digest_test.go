package actioncmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/githubfake"
	"github.com/agentx-dev/agentx/internal/sync"
)

// resolvedLedger is a ledger with one auto-resolved and one pending record.
func resolvedLedger(issue int, now time.Time) *ledger.Ledger {
	l := sampleLedger(issue, now.Add(-48*time.Hour))
	r := &l.Clarifications[0]
	r.Status = ledger.Resolved
	at := clock.Format(now.Add(-47 * time.Hour))
	r.ResolvedAt = &at
	r.Thread = append(r.Thread,
		ledger.Entry{Round: 1, From: "architect", Type: ledger.Answer, Body: "JWT.", Timestamp: clock.Format(now.Add(-47*time.Hour - time.Minute))},
		ledger.Entry{Round: 1, From: "engineer", Type: ledger.Resolution, Body: "ok", Timestamp: at})
	return l
}

// digestRunner is a runner of the digest command over a fake GitHub whose
// state branch holds one ledger, and the Monday its runs start from.
func digestRunner(t *testing.T) (*githubfake.Server, *runner, time.Time) {
	t.Helper()
	fake := githubfake.New()
	t.Cleanup(fake.Close)
	r := newRunner(t, fake)
	r.env["INPUT_COMMAND"] = "digest"
	monday := time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)
	r.writeLedger(resolvedLedger(4, monday))
	return fake, r, monday
}

// TestActionDigestOneIssueAWeek runs the action in process on a fake clock:
// the first run of a week opens the digest issue, a re-run the next day
// edits it, and the next week's run opens another.
func TestActionDigestOneIssueAWeek(t *testing.T) {
	t.Parallel()
	fake, r, monday := digestRunner(t)
	clk := clock.NewFake(monday)
	run := func() (int, string, map[string]string) {
		t.Helper()
		os.Remove(r.env["GITHUB_OUTPUT"])
		var stdout, stderr bytes.Buffer
		a := &App{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return r.env[k] }, Cwd: r.workspace, Clock: clk}
		code := a.Run(context.Background(), nil)
		out, _ := os.ReadFile(r.env["GITHUB_OUTPUT"])
		outputs := map[string]string{}
		for _, m := range outputRe.FindAllStringSubmatch(string(out), -1) {
			outputs[m[1]] = m[3]
		}
		return code, stdout.String() + stderr.String(), outputs
	}

	code, log, out := run()
	if code != 0 {
		t.Fatalf("exit %d: %s", code, log)
	}
	issues := fake.IssuesLabelled(sync.DigestLabel)
	if len(issues) != 1 || out["digest-issue"] == "" {
		t.Fatalf("first run: digest issues %v, outputs %v\n%s", issues, out, log)
	}
	first, _ := fake.Issue(issues[0])
	if first.Title != "AgentX digest 2026-W47" || !strings.Contains(first.Body, "| Opened | 1 | 0 | +1 |") ||
		!strings.Contains(first.Body, "(https://github.com/o/r/issues/4)") {
		t.Fatalf("first run opened %+v", first)
	}
	if out["digest-opened"] != "1" || out["digest-auto-resolution-rate"] != "100" || out["digest-average-rounds"] != "1" || out["digest-stale"] != "0" {
		t.Fatalf("outputs %v", out)
	}

	// Tuesday: an escalation happened meanwhile; the same week's issue is edited.
	clk.Set(monday.Add(24 * time.Hour))
	l := resolvedLedger(4, monday)
	esc := sampleLedger(5, monday.Add(-time.Hour)).Clarifications[0]
	esc.Status = ledger.Escalated
	esc.Thread = append(esc.Thread, ledger.Entry{Round: 1, From: "alice", Type: ledger.Escalation, Body: "mine", Timestamp: clock.Format(monday)})
	esc.IssueNumber, esc.ID = 4, "CLR-4-002"
	l.Clarifications = append(l.Clarifications, esc)
	r.writeLedger(l)
	fake.ResetCounts()
	if code, log, out = run(); code != 0 {
		t.Fatalf("re-run: exit %d: %s", code, log)
	}
	if got := fake.IssuesLabelled(sync.DigestLabel); len(got) != 1 || out["digest-issue"] != strconv.Itoa(first.Number) {
		t.Fatalf("re-run in the same week: digest issues %v, output %q", got, out["digest-issue"])
	}
	again, _ := fake.Issue(issues[0])
	if again.Body == first.Body || !strings.Contains(again.Body, "| &nbsp;&nbsp;by a person | 1 | 0 | +1 |") {
		t.Fatalf("re-run did not edit the body:\n%s", again.Body)
	}
	if calls := fake.Calls(); calls["PATCH /repos/{owner}/{repo}/issues/{number}"] != 1 || calls["POST /repos/{owner}/{repo}/issues"] != 0 {
		t.Fatalf("re-run calls %v", calls)
	}
	if !strings.Contains(log, "updated issue #") || out["digest-escalated"] != "1" || out["digest-escalations-waiting"] != "1" {
		t.Fatalf("re-run log %q outputs %v", log, out)
	}

	// The next Monday: a new week, a new issue; last week's is untouched.
	clk.Set(monday.Add(7 * 24 * time.Hour))
	if code, log, _ = run(); code != 0 {
		t.Fatalf("next week: exit %d: %s", code, log)
	}
	got := fake.IssuesLabelled(sync.DigestLabel)
	if len(got) != 2 {
		t.Fatalf("next week: digest issues %v", got)
	}
	next, _ := fake.Issue(got[1])
	if next.Title != "AgentX digest 2026-W48" {
		t.Fatalf("next week's title %q", next.Title)
	}
	if old, _ := fake.Issue(issues[0]); old.Body != again.Body {
		t.Fatal("last week's digest was changed by this week's run")
	}
}

// TestActionDigestBuiltBinary runs the built agentx-action as the runner
// does: step summary, outputs with numbers only, ledger text sanitised in
// the issue, and a dry run that writes nothing.
func TestActionDigestBuiltBinary(t *testing.T) {
	t.Parallel()
	fake := githubfake.New()
	defer fake.Close()
	r := newRunner(t, fake)
	r.env["INPUT_COMMAND"] = "digest"
	r.env["INPUT_DAYS"] = "14"
	now := time.Now()
	l := resolvedLedger(9, now)
	l.Clarifications[0].Topic = "auth ask @bob"
	l.Clarifications = append(l.Clarifications, sampleLedger(9, now.Add(-time.Hour)).Clarifications[0])
	l.Clarifications[1].ID, l.Clarifications[1].Topic = "CLR-9-002", "AUTH ask  @bob"
	r.writeLedger(l)

	r.env["INPUT_DRY-RUN"] = "true"
	res := r.run()
	if res.code != 0 || len(fake.IssuesLabelled(sync.DigestLabel)) != 0 || fake.Writes() != 0 {
		t.Fatalf("dry run: exit %d, %d writes\n%s%s", res.code, fake.Writes(), res.stdout, res.stderr)
	}
	if !strings.Contains(res.summary, "# AgentX digest ") || !strings.Contains(res.summary, "(14 days)") {
		t.Fatalf("dry-run summary %q", res.summary)
	}

	r.env["INPUT_DRY-RUN"] = "false"
	res = r.run()
	if res.code != 0 {
		t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	issues := fake.IssuesLabelled(sync.DigestLabel)
	if len(issues) != 1 {
		t.Fatalf("digest issues %v", issues)
	}
	iss, _ := fake.Issue(issues[0])
	week := regexp.MustCompile(`^# AgentX digest (\d{4}-W\d{2})\n`).FindStringSubmatch(res.summary)
	if week == nil || iss.Title != "AgentX digest "+week[1] || strings.TrimSpace(iss.Body) != strings.TrimSpace(strings.Replace(res.summary, noCheckoutNote, "", 1)) {
		t.Fatalf("issue %q does not carry the summary's week and text", iss.Title)
	}
	// The runner's workspace holds no checkout: the summary says so after
	// the digest, and the issue does not.
	if !strings.Contains(res.summary, noCheckoutNote) || strings.Contains(iss.Body, "no checkout") {
		t.Fatalf("no-checkout note: summary %t, issue %t", strings.Contains(res.summary, noCheckoutNote), strings.Contains(iss.Body, "no checkout"))
	}
	if strings.Contains(iss.Body, "@bob") || !strings.Contains(iss.Body, "@\u200bbob") {
		t.Fatalf("a mention reached the digest issue:\n%s", iss.Body)
	}
	if lbl, ok := fake.RepoLabel(sync.DigestLabel); !ok || lbl.Color == "ededed" {
		t.Fatalf("digest label not created with its colour: %+v", lbl)
	}
	number := regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)
	for k, v := range res.outputs {
		if !number.MatchString(v) {
			t.Errorf("output %s=%q is not a number", k, v)
		}
	}
	if res.outputs["digest-opened"] != "2" || res.outputs["digest-still-open"] != "1" || res.outputs["digest-issue"] != strconv.Itoa(iss.Number) {
		t.Fatalf("outputs %v", res.outputs)
	}
	if _, err := os.Stat(filepath.Join(r.workspace, ".agentx", "digests")); err == nil {
		t.Fatal("the action wrote a digest file into the checkout")
	}
}
