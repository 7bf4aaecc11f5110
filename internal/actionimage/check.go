package actionimage

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/router"
	"github.com/agentx-dev/agentx/internal/core/workspace"
	"github.com/agentx-dev/agentx/internal/githubfake"
	"github.com/agentx-dev/agentx/internal/sync"
)

// RunnerUID is the uid GitHub-hosted runners run as: the workspace and the
// file-command files the container sees are that user's, not root's.
const RunnerUID = 1001

// Token is the workflow token the steps get; it must be masked first and
// never printed again.
const Token = "ghs_imageCheckToken0123456789"

// Options configure Check.
type Options struct {
	Engine   Engine
	RepoRoot string    // where action.yml is (its inputs and their defaults)
	Out      io.Writer // one line per step
	// Chown makes the mounted directories the runner's (uid 1001), as on
	// GitHub, and checks the action leaves nothing there its uid cannot
	// own; it needs root.
	Chown bool
}

// step is one action run: the command, the event that started it.
type step struct {
	command, event string
	payload        map[string]any
}

// Check runs sync, ingest, monitor and digest in turn and checks each.
func Check(ctx context.Context, o Options) error {
	tmp, err := os.MkdirTemp("", "agentx-imagecheck-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }() // a temporary directory: best effort
	inputs, err := actionInputs(filepath.Join(o.RepoRoot, "action.yml"))
	if err != nil {
		return err
	}
	ids, err := makeCheckout(ctx, tmp)
	if err != nil {
		return err
	}
	dirs := map[string]string{}
	for _, d := range []string{"home", "workflow", "file_commands"} {
		dirs[d] = filepath.Join(tmp, "_temp", "_github_"+d)
		if err := os.MkdirAll(dirs[d], 0o755); err != nil {
			return err
		}
	}
	mounts := []Mount{
		{filepath.Join(tmp, "workspace"), "/github/workspace"},
		{dirs["home"], "/github/home"},
		{dirs["workflow"], "/github/workflow"},
		{dirs["file_commands"], "/github/file_commands"},
	}
	fake := githubfake.New()
	defer fake.Close()
	fake.AddIssue(42)
	fake.AddIssue(7)

	answer := fake.AddComment(7, "alice", "OWNER", "/clarify resolve "+ids.escalated+" Use v2; v1 is frozen.")
	steps := []step{
		{"sync", "push", map[string]any{"ref": "refs/heads/main"}},
		{"ingest", "issue_comment", map[string]any{
			"action": "created", "issue": map[string]any{"number": 7},
			"comment": map[string]any{"id": answer.ID, "body": answer.Body, "author_association": "OWNER",
				"user": map[string]any{"login": "alice", "type": "User"}},
			"repository": map[string]any{"full_name": "acme/shop"},
		}},
		{"monitor", "schedule", map[string]any{"schedule": "17 * * * *"}},
		{"digest", "schedule", map[string]any{"schedule": "0 9 * * 1"}},
	}
	for i, s := range steps {
		start := time.Now()
		out, err := runStep(ctx, o, s, i, tmp, inputs, mounts, fake.URL())
		if err != nil {
			return err
		}
		if err := verify(fake, s.command, ids, out); err != nil {
			return fmt.Errorf("%s: %w\nstdout:\n%s\nstderr:\n%s", s.command, err, out.res.Stdout, out.res.Stderr)
		}
		if o.Chown {
			if err := ownedByRunner(tmp); err != nil {
				return fmt.Errorf("%s: %w", s.command, err)
			}
		}
		fmt.Fprintf(o.Out, "ok   %-8s %5.1fs  %s\n", s.command, time.Since(start).Seconds(), out.summaryLine())
	}
	return nil
}

type stepOutput struct {
	res     Result
	outputs map[string]string
	summary string
}

func (s stepOutput) summaryLine() string {
	var parts []string
	for _, k := range []string{"comments-created", "labels-added", "labels-removed", "commands-applied",
		"issues-reconciled", "digest-issue", "digest-opened", "digest-settled"} {
		if v, ok := s.outputs[k]; ok && v != "0" && v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	return strings.Join(parts, " ")
}

// runStep prepares the runner's files for step i (fresh output and summary
// files, the event payload) and starts the container.
func runStep(ctx context.Context, o Options, s step, i int, tmp string, inputs map[string]string, mounts []Mount, apiURL string) (stepOutput, error) {
	env := map[string]string{
		"HOME": "/github/home", "GITHUB_ACTIONS": "true", "CI": "true",
		"GITHUB_WORKSPACE": "/github/workspace", "GITHUB_EVENT_PATH": "/github/workflow/event.json",
		"GITHUB_EVENT_NAME": s.event, "GITHUB_API_URL": apiURL, "GITHUB_SERVER_URL": "https://github.com",
		"GITHUB_GRAPHQL_URL": apiURL + "/graphql", "GITHUB_REPOSITORY": "acme/shop", "GITHUB_REPOSITORY_OWNER": "acme",
		"GITHUB_REF": "refs/heads/main", "GITHUB_REF_NAME": "main", "GITHUB_SHA": strings.Repeat("a", 40),
		"GITHUB_RUN_ID": "9000" + strconv.Itoa(i), "GITHUB_RUN_NUMBER": strconv.Itoa(i + 1), "GITHUB_RUN_ATTEMPT": "1",
		"GITHUB_JOB": "agentx", "GITHUB_ACTION": "agentx", "GITHUB_ACTOR": "alice", "GITHUB_WORKFLOW": "agentx",
		// The runner also passes RUNNER_TEMP and RUNNER_WORKSPACE, paths on
		// its host that mean nothing inside the container; left out.
		"RUNNER_OS": "Linux", "RUNNER_ARCH": "X64", "RUNNER_NAME": "GitHub Actions 1",
		"RUNNER_TOOL_CACHE": "/opt/hostedtoolcache",
	}
	// The file commands are files the runner creates, one set per step.
	fc := map[string]string{"GITHUB_OUTPUT": "set_output_", "GITHUB_STEP_SUMMARY": "step_summary_",
		"GITHUB_ENV": "set_env_", "GITHUB_PATH": "add_path_", "GITHUB_STATE": "save_state_"}
	for k, prefix := range fc {
		env[k] = fmt.Sprintf("/github/file_commands/%s%d", prefix, i)
	}
	for name, def := range inputs {
		env["INPUT_"+strings.ToUpper(name)] = def
	}
	env["INPUT_COMMAND"] = s.command
	env["INPUT_GITHUB-TOKEN"] = Token
	env["INPUT_WRITE-INTERVAL"] = "0s"
	for k := range fc {
		p, _ := mapPath(mounts, env[k])
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			return stepOutput{}, err
		}
	}
	event, _ := json.Marshal(s.payload)
	eventPath, _ := mapPath(mounts, env["GITHUB_EVENT_PATH"])
	if err := os.WriteFile(eventPath, event, 0o644); err != nil {
		return stepOutput{}, err
	}
	if o.Chown {
		if err := chownTree(tmp, RunnerUID); err != nil {
			return stepOutput{}, err
		}
	}
	res, err := o.Engine.Run(ctx, Container{Env: env, Mounts: mounts, Workdir: "/github/workspace"})
	if err != nil {
		return stepOutput{}, err
	}
	out := stepOutput{res: res, outputs: map[string]string{}}
	outPath, _ := mapPath(mounts, env["GITHUB_OUTPUT"])
	data, err := os.ReadFile(outPath)
	if err != nil {
		return out, err
	}
	for _, m := range outputRe.FindAllStringSubmatch(string(data), -1) {
		out.outputs[m[1]] = m[3]
	}
	sumPath, _ := mapPath(mounts, env["GITHUB_STEP_SUMMARY"])
	sum, err := os.ReadFile(sumPath)
	if err != nil {
		return out, err
	}
	out.summary = string(sum)
	if res.Code != 0 {
		return out, fmt.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", s.command, res.Code, res.Stdout, res.Stderr)
	}
	if !strings.HasPrefix(res.Stdout, "::add-mask::"+Token+"\n") {
		return out, fmt.Errorf("%s: stdout does not start by masking the token: %.200q", s.command, res.Stdout)
	}
	if n := strings.Count(res.Stdout+res.Stderr+string(data)+out.summary, Token); n != 1 {
		return out, fmt.Errorf("%s: the token shows %d times in the step's output (want the mask only)", s.command, n)
	}
	return out, nil
}

// outputRe reads go-githubactions' name<<delimiter outputs.
var outputRe = regexp.MustCompile(`(?s)([a-z-]+)<<(_GitHubActionsFileCommandDelimeter_)\n(.*?)\n_GitHubActionsFileCommandDelimeter_\n`)

// verify checks what a command did on the fake, not only its outputs.
func verify(fake *githubfake.Server, command string, ids records, out stepOutput) error {
	switch command {
	case "sync":
		return verifySync(fake, out.outputs)
	case "ingest":
		return verifyIngest(fake, ids, out.outputs)
	case "monitor":
		if out.outputs["issues-reconciled"] != "1" {
			return fmt.Errorf("issues-reconciled %q, want 1 (reconcile-per-run's default)", out.outputs["issues-reconciled"])
		}
		if !strings.Contains(strings.ToLower(out.summary), "monitor") {
			return fmt.Errorf("the step summary does not report the monitor: %.300q", out.summary)
		}
	case "digest":
		return verifyDigest(fake, out)
	}
	return nil
}

func verifySync(fake *githubfake.Server, o map[string]string) error {
	// The comments the output counts are on the issues (alice's answer
	// on #7, posted before, aside), and each clarification has some.
	made := len(fake.Comments(42)) + len(fake.Comments(7)) - 1
	if o["comments-created"] != strconv.Itoa(made) || len(fake.Comments(42)) < 2 || len(fake.Comments(7)) < 2 {
		return fmt.Errorf("comments-created %q; on the fake: #42 %d, #7 %d (with alice's)",
			o["comments-created"], len(fake.Comments(42)), len(fake.Comments(7)))
	}
	if !hasLabel(fake.IssueLabels(42), "clarification-blocked") || !hasLabel(fake.IssueLabels(7), "clarification-escalated") {
		return fmt.Errorf("labels: #42 %v, #7 %v", fake.IssueLabels(42), fake.IssueLabels(7))
	}
	if _, ok := fake.BranchFile(sync.DefaultStateBranch, sync.BranchLedgerPath(42)); !ok {
		return fmt.Errorf("the state branch holds no ledger of #42 (not seeded from the checkout)")
	}
	return nil
}

func verifyIngest(fake *githubfake.Server, ids records, o map[string]string) error {
	if o["commands-applied"] != "1" {
		return fmt.Errorf("commands-applied %q, want 1", o["commands-applied"])
	}
	data, ok := fake.BranchFile(sync.DefaultStateBranch, sync.BranchLedgerPath(7))
	if !ok {
		return fmt.Errorf("no ledger of #7 on the state branch")
	}
	l, err := ledger.Parse("state branch", data, 7)
	if err != nil {
		return err
	}
	if r := l.Find(ids.escalated); r == nil || r.Status != ledger.Resolved {
		return fmt.Errorf("%s is not resolved on the state branch", ids.escalated)
	}
	if hasLabel(fake.IssueLabels(7), "clarification-escalated") {
		return fmt.Errorf("#7 still carries clarification-escalated")
	}
	return nil
}

func verifyDigest(fake *githubfake.Server, out stepOutput) error {
	o := out.outputs
	n, err := strconv.Atoi(o["digest-issue"])
	if err != nil {
		return fmt.Errorf("digest-issue %q", o["digest-issue"])
	}
	iss, ok := fake.Issue(n)
	if !ok || !hasLabel(iss.Labels, sync.DigestLabel) {
		return fmt.Errorf("digest issue #%d: %+v", n, iss)
	}
	if o["digest-opened"] != "3" || o["digest-settled"] != "1" {
		return fmt.Errorf("digest: opened %q settled %q, want 3 and 1 (the escalation, later resolved)", o["digest-opened"], o["digest-settled"])
	}
	if strings.TrimSpace(out.summary) == "" {
		return fmt.Errorf("the digest wrote no step summary")
	}
	return nil
}

func hasLabel(labels []string, name string) bool {
	for _, l := range labels {
		if strings.EqualFold(l, name) {
			return true
		}
	}
	return false
}

// records are the clarifications the checkout holds.
type records struct{ escalated string }

// makeCheckout makes tmp/workspace as actions/checkout leaves it: a clone
// of a bare remote whose default branch holds .agentx with the defaults
// and ledgers the agents wrote through the core router (Local Mode before
// the state branch existed), so the first sync seeds the state branch.
func makeCheckout(ctx context.Context, tmp string) (records, error) {
	src := filepath.Join(tmp, "src")
	ws := workspace.Workspace{Root: src}
	for name, data := range config.DefaultFiles() {
		p := filepath.Join(ws.AgentxDir(), filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return records{}, err
		}
		if err := atomicfile.Write(p, data, atomicfile.Options{NoSync: true}); err != nil {
			return records{}, err
		}
	}
	cfg, err := config.Load(ws.ConfigFile(), ws.WorkflowsDir())
	if err != nil {
		return records{}, err
	}
	// Real time: the digest's window is the week before the run.
	rt := router.New(router.Options{WS: ws, NoSync: true, Config: cfg, Clock: clock.Real{}})
	req, err := rt.Request(ctx, router.RequestInput{Issue: 42, From: "engineer", To: "architect", Topic: "session storage",
		Question: "Sessions in Redis or signed cookies?", Blocking: true})
	if err != nil {
		return records{}, err
	}
	if _, err := rt.Answer(ctx, req.Record.ID, "", "Redis: we need server-side revocation."); err != nil {
		return records{}, err
	}
	if _, err := rt.Request(ctx, router.RequestInput{Issue: 42, From: "engineer", To: "architect", Topic: "token lifetime",
		Question: "How long should a session live?", Blocking: true}); err != nil {
		return records{}, err
	}
	esc, err := rt.Request(ctx, router.RequestInput{Issue: 7, From: "engineer", To: "architect", Topic: "API version",
		Question: "v1 or v2 of the payments API?", Blocking: true})
	if err != nil {
		return records{}, err
	}
	if _, err := rt.Escalate(ctx, esc.Record.ID, "", "A product decision."); err != nil {
		return records{}, err
	}
	git := func(dir string, args ...string) error {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "-c", "user.name=agent", "-c", "user.email=agent@example.com",
			"-c", "init.defaultBranch=main"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "agents' ledgers"},
		{"clone", "-q", "--bare", src, filepath.Join(tmp, "remote.git")},
		{"clone", "-q", filepath.Join(tmp, "remote.git"), filepath.Join(tmp, "workspace")}} {
		if err := git(src, args...); err != nil {
			return records{}, err
		}
	}
	return records{escalated: esc.Record.ID}, nil
}

// actionInputs reads action.yml's inputs and their defaults; the token's
// default expression is replaced by the token, as the runner evaluates it.
// A few lines of parsing keep YAML out of the module (actionlint checks
// the file in CI).
func actionInputs(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	inputs := map[string]string{}
	section, current := "", ""
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case !strings.HasPrefix(line, " ") && strings.HasSuffix(line, ":"):
			section = strings.TrimSuffix(line, ":")
		case section == "inputs" && strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") && strings.HasSuffix(line, ":"):
			current = strings.TrimSuffix(trimmed, ":")
			inputs[current] = ""
		case section == "inputs" && strings.HasPrefix(trimmed, "default:"):
			inputs[current] = strings.Trim(strings.TrimSpace(strings.TrimPrefix(trimmed, "default:")), `"`)
		}
	}
	if _, ok := inputs["command"]; !ok {
		return nil, fmt.Errorf("%s: no input named command (the parser or the file changed shape)", path)
	}
	return inputs, nil
}
