// The simulated GitHub runner around one step of the action (runner,
// stepResult: env, event payload, outputs, step summary, the token masked
// and never leaked), the ledgers the tests put on the state branch or in
// the checkout, and the fake's Git Data API routes.

package actioncmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/githubfake"
	"github.com/agentx-dev/agentx/internal/sync"
)

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
		"GOCOVERDIR": coverDir,
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

// issueRunner is a fake GitHub holding issue and a runner set to run
// command on event (empty: the default push).
func issueRunner(t *testing.T, issue int, command, event string) (*githubfake.Server, *runner) {
	fake := githubfake.New()
	t.Cleanup(fake.Close)
	fake.AddIssue(issue)
	r := newRunner(t, fake)
	r.env["INPUT_COMMAND"] = command
	if event != "" {
		r.env["GITHUB_EVENT_NAME"] = event
	}
	return fake, r
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

// writeLedger puts l on the state branch, where agents' syncs put it.
func (r *runner) writeLedger(l *ledger.Ledger) []byte {
	data, err := jsonfile.Marshal(l)
	if err != nil {
		r.t.Fatal(err)
	}
	r.fake.PutBranchFile(sync.DefaultStateBranch, sync.BranchLedgerPath(l.IssueNumber), data)
	return data
}

// checkoutFile writes a file under the checkout's .agentx (GitHub Mode
// before the state branch committed the state on the default branch).
func (r *runner) checkoutFile(rel string, data []byte) {
	p := filepath.Join(r.workspace, ".agentx", filepath.FromSlash(rel))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *runner) branchLedger(issue int) *ledger.Ledger {
	r.t.Helper()
	data, ok := r.fake.BranchFile(sync.DefaultStateBranch, sync.BranchLedgerPath(issue))
	if !ok {
		r.t.Fatalf("no ledger of issue #%d on the state branch", issue)
	}
	l, err := ledger.Parse("remote", data, issue)
	if err != nil {
		r.t.Fatal(err)
	}
	return l
}

func sampleLedger(issue int, now time.Time) *ledger.Ledger {
	ts := clock.Format(now)
	return &ledger.Ledger{IssueNumber: issue, Clarifications: []ledger.Record{{
		ID: fmt.Sprintf("CLR-%d-001", issue), IssueNumber: issue, From: "engineer", To: "architect", Topic: "auth",
		Blocking: true, Status: ledger.Pending, Round: 1, MaxRounds: 3, Created: ts, StaleAfter: clock.Format(now.Add(time.Hour)),
		Thread: []ledger.Entry{{Round: 1, From: "engineer", Type: ledger.Question, Body: "JWT or sessions? ask @bob", Timestamp: ts}},
	}}}
}

// The Git Data API routes of the fake, by what they do for the state.
const (
	refRead    = "GET /repos/{owner}/{repo}/git/ref/{ref...}"
	branchRead = "GET /repos/{owner}/{repo}/branches/{branch...}"
	treeRead   = "GET /repos/{owner}/{repo}/git/trees/{sha}"
	blobRead   = "GET /repos/{owner}/{repo}/git/blobs/{sha}"
	treeWrite  = "POST /repos/{owner}/{repo}/git/trees"
	commit     = "POST /repos/{owner}/{repo}/git/commits"
	refUpdate  = "PATCH /repos/{owner}/{repo}/git/refs/{ref...}"
	refCreate  = "POST /repos/{owner}/{repo}/git/refs"
	contentsIO = "/contents/"
)

// noContentsAPI fails when anything went through the contents API: the
// state is on the state branch, read and written as git objects.
func noContentsAPI(t *testing.T, calls map[string]int) {
	t.Helper()
	for route := range calls {
		if strings.Contains(route, contentsIO) {
			t.Fatalf("the run used the contents API: %v", calls)
		}
	}
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
