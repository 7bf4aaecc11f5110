package actioncmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/githubfake"
	"github.com/agentx-dev/agentx/internal/sync"
)

// binary is the agentx-action built by cmd/agentx-action/build.sh, the
// same command the Dockerfile runs.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agentx-action-e2e-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "agentx-action")
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "..", "cmd", "agentx-action", "build.sh")
	cmd := exec.Command("sh", script, binary, "e2e")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build agentx-action:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestBuiltBinaryIsSmallAndStatic(t *testing.T) {
	fi, err := os.Stat(binary)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("agentx-action: %d bytes (%.1f MB)", fi.Size(), float64(fi.Size())/(1<<20))
	if fi.Size() >= 20<<20 {
		t.Fatalf("agentx-action is %d bytes, the budget is 20 MB", fi.Size())
	}
	out, err := exec.Command(binary, "--version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "agentx-action e2e" {
		t.Fatalf("--version: %q %v", out, err)
	}
}

const token = "ghs_e2eSecretToken0123456789"

// runner simulates the GitHub runner around one step of the action.
type runner struct {
	t         *testing.T
	fake      *githubfake.Server
	workspace string
	dir       string
	env       map[string]string
}

func newRunner(t *testing.T, fake *githubfake.Server) *runner {
	r := &runner{t: t, fake: fake, workspace: t.TempDir(), dir: t.TempDir()}
	r.env = map[string]string{
		"GITHUB_ACTIONS": "true", "CI": "true", "HOME": r.dir, "PATH": os.Getenv("PATH"),
		"GITHUB_REPOSITORY": "o/r", "GITHUB_REPOSITORY_OWNER": "o", "GITHUB_API_URL": fake.URL(),
		"GITHUB_SERVER_URL": "https://github.com", "GITHUB_WORKSPACE": r.workspace, "GITHUB_REF": "refs/heads/main",
		"GITHUB_REF_NAME": "main", "GITHUB_RUN_ID": "42", "GITHUB_RUN_NUMBER": "7", "GITHUB_RUN_ATTEMPT": "1",
		"GITHUB_OUTPUT": filepath.Join(r.dir, "output"), "GITHUB_STEP_SUMMARY": filepath.Join(r.dir, "summary"),
		"GITHUB_EVENT_PATH": filepath.Join(r.dir, "event.json"), "GITHUB_EVENT_NAME": "push",
	}
	// Every input of action.yml with its default, as the runner passes them
	// to a Docker action (upper case, hyphens kept); the token's default
	// expression evaluates to the workflow token.
	inputs, _ := actionMetadata(t)
	for name, def := range inputs {
		r.env["INPUT_"+strings.ToUpper(name)] = def
	}
	r.env["INPUT_GITHUB-TOKEN"] = token
	r.env["INPUT_WRITE-INTERVAL"] = "0s" // tests never sleep
	r.event(map[string]any{"ref": "refs/heads/main"})
	return r
}

func (r *runner) event(payload any) {
	data, _ := json.Marshal(payload)
	if err := os.WriteFile(r.env["GITHUB_EVENT_PATH"], data, 0o644); err != nil {
		r.t.Fatal(err)
	}
}

type stepResult struct {
	code           int
	stdout, stderr string
	outputs        map[string]string
	summary        string
}

// go-githubactions v1.4.0 writes every output with this fixed delimiter,
// which is why no text from a ledger or a comment may go into one.
var outputRe = regexp.MustCompile(`(?s)([a-z-]+)<<(_GitHubActionsFileCommandDelimeter_)\n(.*?)\n(_GitHubActionsFileCommandDelimeter_)\n`)

func (r *runner) run() stepResult {
	r.t.Helper()
	os.Remove(r.env["GITHUB_OUTPUT"])
	os.Remove(r.env["GITHUB_STEP_SUMMARY"])
	cmd := exec.Command(binary)
	cmd.Dir = r.workspace
	for k, v := range r.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := stepResult{stdout: stdout.String(), stderr: stderr.String(), outputs: map[string]string{}}
	if ee, ok := err.(*exec.ExitError); ok {
		res.code = ee.ExitCode()
	} else if err != nil {
		r.t.Fatal(err)
	}
	out, _ := os.ReadFile(r.env["GITHUB_OUTPUT"])
	for _, m := range outputRe.FindAllStringSubmatch(string(out), -1) {
		if m[2] != m[4] {
			r.t.Fatalf("output delimiters differ: %q", m[0])
		}
		res.outputs[m[1]] = m[3]
	}
	sum, _ := os.ReadFile(r.env["GITHUB_STEP_SUMMARY"])
	res.summary = string(sum)
	// The token is masked first and never printed again.
	if !strings.HasPrefix(res.stdout, "::add-mask::"+token+"\n") {
		r.t.Fatalf("stdout does not start by masking the token: %q", res.stdout)
	}
	if strings.Count(res.stdout+res.stderr+string(out)+res.summary, token) != 1 {
		r.t.Fatal("the token leaked into the step's output")
	}
	return res
}

func (r *runner) writeLedger(l *ledger.Ledger) []byte {
	data, err := jsonfile.Marshal(l)
	if err != nil {
		r.t.Fatal(err)
	}
	p := filepath.Join(r.workspace, sync.LedgerPath("", l.IssueNumber))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		r.t.Fatal(err)
	}
	return data
}

func sampleLedger(issue int, now time.Time) *ledger.Ledger {
	ts := clock.Format(now)
	return &ledger.Ledger{IssueNumber: issue, Clarifications: []ledger.Record{{
		ID: fmt.Sprintf("CLR-%d-001", issue), IssueNumber: issue, From: "engineer", To: "architect", Topic: "auth",
		Blocking: true, Status: ledger.Pending, Round: 1, MaxRounds: 3, Created: ts, StaleAfter: clock.Format(now.Add(time.Hour)),
		Thread: []ledger.Entry{{Round: 1, From: "engineer", Type: ledger.Question, Body: "JWT or sessions? ask @bob", Timestamp: ts}},
	}}}
}

func TestActionSyncEndToEnd(t *testing.T) {
	fake := githubfake.New()
	defer fake.Close()
	r := newRunner(t, fake)
	r.env["INPUT_COMMAND"] = "sync"
	for i := 1; i <= 3; i++ {
		fake.AddIssue(i)
		r.writeLedger(sampleLedger(i, time.Now()))
	}
	res := r.run()
	if res.code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", res.code, res.stdout, res.stderr)
	}
	if res.outputs["comments-created"] != "3" || res.outputs["labels-added"] != "3" || res.outputs["issues-synced"] != "3" {
		t.Fatalf("outputs %v", res.outputs)
	}
	if !strings.Contains(res.summary, "| comments-created | 3 |") {
		t.Fatalf("summary %q", res.summary)
	}
	for i := 1; i <= 3; i++ {
		cs := fake.Comments(i)
		if len(cs) != 1 || !strings.Contains(cs[0].Body, "@\u200bbob") || strings.Join(fake.IssueLabels(i), ",") != "clarification-blocked" {
			t.Fatalf("issue %d: %+v labels %v", i, cs, fake.IssueLabels(i))
		}
	}
	if _, ok := fake.File(sync.StateFile); !ok {
		t.Fatal("sync state not committed")
	}
	// The next run without the state in its checkout: one read for the
	// state, no write.
	fake.ResetCounts()
	res = r.run()
	if res.code != 0 || res.outputs["comments-created"] != "0" || fake.Writes() != 0 || fake.Reads() != 1 {
		t.Fatalf("second run: exit %d, outputs %v, %d reads, %d writes", res.code, res.outputs, fake.Reads(), fake.Writes())
	}
	// A fresh checkout of the branch holds the committed state: no call.
	state, _ := fake.File(sync.StateFile)
	if err := os.WriteFile(filepath.Join(r.workspace, sync.StateFile), state, 0o644); err != nil {
		t.Fatal(err)
	}
	fake.ResetCounts()
	res = r.run()
	if res.code != 0 || fake.Writes() != 0 || fake.Reads() != 0 {
		t.Fatalf("run on a checkout with the state: exit %d, %d reads, %d writes", res.code, fake.Reads(), fake.Writes())
	}
	// One ledger changes (an agent answered): one read, one comment, one
	// label removed, and the state committed over the checkout's sha.
	l := sampleLedger(2, time.Now())
	rec := &l.Clarifications[0]
	rec.Status = ledger.Answered
	rec.Thread = append(rec.Thread, ledger.Entry{Round: 1, From: "architect", Type: ledger.Answer, Body: "Sessions.", Timestamp: rec.Created})
	r.writeLedger(l)
	fake.ResetCounts()
	res = r.run()
	if res.code != 0 || fake.Reads() != 1 || res.outputs["comments-created"] != "1" || res.outputs["labels-removed"] != "1" {
		t.Fatalf("changed ledger: exit %d, outputs %v, %v\n%s", res.code, res.outputs, fake.Calls(), res.stdout)
	}
	t.Logf("changed ledger run: %d reads, %d writes %v", fake.Reads(), fake.Writes(), fake.Calls())
}

func issueCommentEvent(issue int, c githubfake.Comment) map[string]any {
	return map[string]any{
		"action": "created",
		"issue":  map[string]any{"number": issue},
		"comment": map[string]any{"id": c.ID, "body": c.Body, "author_association": c.Association,
			"user": map[string]any{"login": c.User, "type": "User"}},
		"repository": map[string]any{"full_name": "o/r"},
	}
}

func TestActionIngestEndToEnd(t *testing.T) {
	fake := githubfake.New()
	defer fake.Close()
	fake.AddIssue(5)
	r := newRunner(t, fake)
	r.env["INPUT_COMMAND"] = "ingest"
	r.env["GITHUB_EVENT_NAME"] = "issue_comment"
	data := r.writeLedger(sampleLedger(5, time.Now()))
	fake.SetFile(sync.LedgerPath("", 5), data)

	c := fake.AddComment(5, "alice", "MEMBER", "/clarify answer CLR-5-001 Sessions, in Redis.")
	r.event(issueCommentEvent(5, c))
	res := r.run()
	if res.code != 0 || res.outputs["commands-applied"] != "1" || res.outputs["commands-rejected"] != "0" {
		t.Fatalf("exit %d outputs %v\n%s\n%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	got, _ := fake.File(sync.LedgerPath("", 5))
	l, err := ledger.Parse("remote", got, 5)
	if err != nil {
		t.Fatal(err)
	}
	if rec := l.Find("CLR-5-001"); rec.Status != ledger.Answered || rec.Thread[1].From != "alice" {
		t.Fatalf("record %+v", rec)
	}
	if cm, _ := fake.Comment(c.ID); strings.Join(cm.Reactions, ",") != "+1" {
		t.Fatalf("reactions %v", cm.Reactions)
	}

	// A stranger's command: a reply and a warning, and no comment text in
	// any output.
	secret := "/clarify resolve CLR-5-001 drop-table-text"
	c2 := fake.AddComment(5, "eve", "NONE", secret)
	r.event(issueCommentEvent(5, c2))
	res = r.run()
	if res.code != 0 || res.outputs["commands-rejected"] != "1" || !strings.Contains(res.stdout, "::warning") {
		t.Fatalf("exit %d outputs %v\n%s", res.code, res.outputs, res.stdout)
	}
	out, _ := os.ReadFile(r.env["GITHUB_OUTPUT"])
	if strings.Contains(string(out), "drop-table-text") {
		t.Fatal("comment text reached an output")
	}
	cs := fake.Comments(5)
	if last := cs[len(cs)-1]; last.User != githubfake.BotLogin || !strings.Contains(last.Body, "not allowed") {
		t.Fatalf("reply %q", last.Body)
	}
}

// TestActionTwoIngestProcessesRace runs two agentx-action processes on two
// commands for one issue, both holding the same ledger sha before either
// writes: both commands land, one after a 409 and a re-apply.
func TestActionTwoIngestProcessesRace(t *testing.T) {
	fake := githubfake.New()
	defer fake.Close()
	fake.AddIssue(8)
	l := sampleLedger(8, time.Now())
	second := l.Clarifications[0]
	second.ID, second.Topic = "CLR-8-002", "db"
	l.Clarifications = append(l.Clarifications, second)
	data, _ := jsonfile.Marshal(l)
	fake.SetFile(sync.LedgerPath("", 8), data)
	fake.HoldContentsPuts(2, 20*time.Second)
	var runners []*runner
	for i, body := range []string{"/clarify answer CLR-8-001 Sessions.", "/clarify resolve CLR-8-002 Postgres."} {
		r := newRunner(t, fake)
		r.env["INPUT_COMMAND"] = "ingest"
		r.env["GITHUB_EVENT_NAME"] = "issue_comment"
		r.writeLedger(l)
		user := []string{"alice", "bob"}[i]
		r.event(issueCommentEvent(8, fake.AddComment(8, user, "OWNER", body)))
		runners = append(runners, r)
	}
	var wg gosync.WaitGroup
	results := make([]stepResult, 2)
	for i, r := range runners {
		wg.Add(1)
		go func() { defer wg.Done(); results[i] = r.run() }()
	}
	wg.Wait()
	for i, res := range results {
		if res.code != 0 || res.outputs["commands-applied"] != "1" {
			t.Fatalf("process %d: exit %d outputs %v\n%s", i, res.code, res.outputs, res.stdout)
		}
	}
	got, _ := fake.File(sync.LedgerPath("", 8))
	final, err := ledger.Parse("remote", got, 8)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := final.Find("CLR-8-001").Status, final.Find("CLR-8-002").Status; a != ledger.Answered || b != ledger.Resolved {
		t.Fatalf("statuses %s, %s: a command was lost", a, b)
	}
	if n := fake.Calls()["PUT /repos/{owner}/{repo}/contents/{path...}"]; n != 3 {
		t.Fatalf("%d contents writes, want 3 (one conflict)", n)
	}
}

func TestActionMonitorEscalatesAndMirrors(t *testing.T) {
	fake := githubfake.New()
	defer fake.Close()
	fake.AddIssue(9)
	r := newRunner(t, fake)
	r.env["INPUT_COMMAND"] = "monitor"
	r.env["GITHUB_EVENT_NAME"] = "schedule"
	// A blocking question whose first timeout was handled long ago: the
	// monitor's second timeout escalates it.
	l := sampleLedger(9, time.Now().Add(-48*time.Hour))
	l.Clarifications[0].Status = ledger.Stale
	l.Clarifications[0].SetExtra("staleRound", json.RawMessage("1"))
	data := r.writeLedger(l)
	fake.SetFile(sync.LedgerPath("", 9), data)
	res := r.run()
	if res.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	got, _ := fake.File(sync.LedgerPath("", 9))
	committed, err := ledger.Parse("remote", got, 9)
	if err != nil {
		t.Fatal(err)
	}
	if st := committed.Clarifications[0].Status; st != ledger.Escalated {
		t.Fatalf("status %s after monitor", st)
	}
	if labels := strings.Join(fake.IssueLabels(9), ","); labels != "clarification-escalated" {
		t.Fatalf("labels %q", labels)
	}
	if res.outputs["comments-created"] != "2" {
		t.Fatalf("outputs %v", res.outputs)
	}
}

func TestActionDryRunWritesNothing(t *testing.T) {
	fake := githubfake.New()
	defer fake.Close()
	fake.AddIssue(3)
	r := newRunner(t, fake)
	r.env["INPUT_COMMAND"] = "sync"
	r.env["INPUT_DRY-RUN"] = "true"
	r.writeLedger(sampleLedger(3, time.Now()))
	res := r.run()
	if res.code != 0 || res.outputs["comments-created"] != "1" || fake.Writes() != 0 || !strings.Contains(res.summary, "dry run") {
		t.Fatalf("exit %d outputs %v writes %d summary %q", res.code, res.outputs, fake.Writes(), res.summary)
	}
}

func TestActionRejectsBadInputs(t *testing.T) {
	fake := githubfake.New()
	defer fake.Close()
	r := newRunner(t, fake)
	r.env["INPUT_COMMAND"] = "publish"
	res := r.run()
	if res.code != 2 || !strings.Contains(res.stdout, "::error::") || fake.Reads()+fake.Writes() != 0 {
		t.Fatalf("exit %d stdout %q", res.code, res.stdout)
	}
}
