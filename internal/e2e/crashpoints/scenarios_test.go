//go:build linux && (amd64 || arm64)

// The writing commands killed at every point, each in a workspace that
// already holds records of every kind.

package crashpoints

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// localWorkspace makes a Local Mode workspace in dir holding two
// ledgers (a pending, an answered and another issue's pending
// clarification), observations on two issues and an agent's session.
func localWorkspace(t *testing.T, dir string) {
	git(t, dir, "init", "-q", "-b", "main")
	mustHook(t, dir, "init")
	records(t, dir)
}

// records stores the records every workspace starts with.
func records(t *testing.T, dir string) {
	mustHook(t, dir, "clarify", "request", "--issue", "42", "--from", "engineer", "--to", "architect", "--topic", "api", "--question", "REST or gRPC?")
	mustHook(t, dir, "clarify", "request", "--issue", "42", "--from", "engineer", "--to", "architect", "--topic", "db", "--question", "Postgres?")
	mustHook(t, dir, "clarify", "answer", "CLR-42-002", "--body", "Yes, Postgres.", "--as", "architect")
	mustHook(t, dir, "clarify", "request", "--issue", "7", "--from", "reviewer", "--to", "engineer", "--topic", "tests", "--question", "Which suite?", "--non-blocking")
	mustHook(t, dir, "memory", "add", "--agent", "engineer", "--issue", "42", "--category", "decision", "Chose gRPC for the public API")
	mustHook(t, dir, "memory", "add", "--agent", "architect", "--issue", "7", "--category", "key-fact", "Note: the cache defaults to five minutes")
	mustHook(t, dir, "memory", "add", "--agent", "engineer", "--issue", "42", "--category", "error", "go test failed: missing go.sum entry")
	mustHook(t, dir, "hook", "start", "--agent", "engineer", "--issue", "42", "--deadline", "10m")
}

// transcript is a Claude Code transcript whose capture stores a
// decision and a key fact.
const transcript = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"We decided to keep the session cache in memory."}]}}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Important: the token endpoint requires mutual TLS."}]}}
`

// finishPayload is hook finish's SessionEnd payload for the workspace at
// root, its transcript there.
func finishPayload(root string) string {
	return `{"session_id":"crash-1","hook_event_name":"SessionEnd","cwd":"` + root + `","transcript_path":"` + filepath.Join(root, "transcript.jsonl") + `"}`
}

func withTranscript(t *testing.T, dir string) {
	localWorkspace(t, dir)
	writeFile(t, filepath.Join(dir, "transcript.jsonl"), transcript)
}

// writeFile writes content to path, making its directory.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// appendFile appends text to the file at path.
func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestClarifyRequest(t *testing.T) {
	crash(t, scenario{prepare: localWorkspace, rerunAddsAgain: true,
		args: []string{"clarify", "request", "--issue", "42", "--from", "engineer", "--to", "architect", "--topic", "auth", "--question", "Tokens or sessions?"}})
}

func TestClarifyAnswer(t *testing.T) {
	crash(t, scenario{prepare: localWorkspace, target: "clr:CLR-42-001", refusesWhenDone: true,
		args: []string{"clarify", "answer", "CLR-42-001", "--body", "gRPC, with REST at the edge.", "--as", "architect"}})
}

func TestClarifyResolve(t *testing.T) {
	crash(t, scenario{prepare: localWorkspace, target: "clr:CLR-42-002", refusesWhenDone: true,
		recover: []string{"hook", "start", "--agent", "engineer", "--issue", "42", "--deadline", "10m"},
		args:    []string{"clarify", "resolve", "CLR-42-002", "--body", "Thanks.", "--as", "engineer"}})
}

func TestClarifyAsk(t *testing.T) {
	crash(t, scenario{prepare: localWorkspace, target: "clr:CLR-42-002", refusesWhenDone: true,
		args: []string{"clarify", "ask", "CLR-42-002", "--body", "Which version?", "--as", "engineer"}})
}

func TestClarifyEscalate(t *testing.T) {
	crash(t, scenario{prepare: localWorkspace, target: "clr:CLR-42-001", refusesWhenDone: true, light: true,
		args: []string{"clarify", "escalate", "CLR-42-001", "--as", "engineer", "--summary", "Architect unavailable; blocks the release"}})
}

func TestClarifyAbandon(t *testing.T) {
	crash(t, scenario{prepare: localWorkspace, target: "clr:CLR-7-001", refusesWhenDone: true, light: true,
		args: []string{"clarify", "abandon", "CLR-7-001", "--as", "reviewer", "--body", "The suite was chosen elsewhere."}})
}

// pairWorkflow lets three agents clarify with each other, blocking
// (monitor_deadlock.txtar's).
const pairWorkflow = `name = "pair"

[[steps]]
id = "design"
agent = "architect"
can_clarify = ["engineer", "reviewer"]

[[steps]]
id = "build"
agent = "engineer"
can_clarify = ["architect", "reviewer"]

[[steps]]
id = "review"
agent = "reviewer"
can_clarify = ["architect", "engineer"]
clarify_blocking_allowed = true
`

// A request that closes a cycle of blocking clarifications escalates the
// others in the same run, in two ledgers (issues 1 and 2): a kill between
// them leaves each ledger whole, and the next request's check sees the
// cycle it left.
func TestClarifyRequestBreaksADeadlock(t *testing.T) {
	crash(t, scenario{prepare: func(t *testing.T, dir string) {
		localWorkspace(t, dir)
		writeFile(t, filepath.Join(dir, ".agentx", "workflows", "pair.toml"), pairWorkflow)
		mustHook(t, dir, "clarify", "request", "--workflow", "pair", "--issue", "1", "--from", "engineer", "--to", "reviewer", "--topic", "test plan", "--question", "Which suites gate the merge?")
		mustHook(t, dir, "clarify", "request", "--workflow", "pair", "--issue", "2", "--from", "reviewer", "--to", "architect", "--topic", "api review", "--question", "Is the v2 API frozen?")
	}, rerunAddsAgain: true, allStep: 2, light: true, done: deadlockBroken,
		args: []string{"clarify", "request", "--workflow", "pair", "--issue", "1", "--from", "architect", "--to", "engineer", "--topic", "feasibility", "--question", "Can the cache ship this sprint?"}})
}

// deadlockBroken says whether the workspace in the copy at root holds
// no cycle any more: monitor finds nothing to do.
func deadlockBroken(root string) error {
	res, err := hook(root, "monitor")
	if err != nil || res.code != 0 || !strings.Contains(res.stdout, "No stale, stuck or deadlocked") {
		return fmt.Errorf("monitor after the next run: %v %s", err, res)
	}
	return nil
}

// summary is what an agent hands `memory capture --file`: the old
// summary format, one observation a bullet.
const summary = `## Decisions
- Going with Postgres 16 for the event store
## Key Facts
- The migration runs before the deploy
`

func TestMemoryCapture(t *testing.T) {
	crash(t, scenario{prepare: func(t *testing.T, dir string) {
		localWorkspace(t, dir)
		writeFile(t, filepath.Join(dir, "summary.md"), summary)
	}, args: []string{"memory", "capture", "--agent", "engineer", "--issue", "42", "--file", "summary.md"}})
}

func TestMemoryAdd(t *testing.T) {
	crash(t, scenario{prepare: localWorkspace, rerunAddsAgain: true,
		args: []string{"memory", "add", "--agent", "engineer", "--issue", "42", "--category", "decision", "Going with JWT access tokens"}})
}

// removedObs is the observation TestMemoryRemove removes.
const removedObs = "go test failed: missing go.sum entry"

func TestMemoryRemove(t *testing.T) {
	crash(t, scenario{prepare: localWorkspace, argsFrom: func(t *testing.T, dir string) ([]string, []string) {
		s, err := readSnapshot(dir)
		if err != nil {
			t.Fatal(err)
		}
		for k, r := range s {
			if r["content"] == removedObs {
				return []string{"memory", "remove", strings.TrimPrefix(k, "obs:")}, []string{k}
			}
		}
		t.Fatalf("no observation %q in %v", removedObs, s)
		return nil, nil
	}})
}

func TestHookStart(t *testing.T) {
	crash(t, scenario{prepare: localWorkspace,
		args: []string{"hook", "start", "--agent", "reviewer", "--issue", "7", "--deadline", "10m"}})
}

func TestHookFinishCapture(t *testing.T) {
	crash(t, scenario{prepare: withTranscript, stdin: finishPayload,
		args: []string{"hook", "finish", "--agent", "engineer", "--issue", "42", "--deadline", "10m"}})
}

func TestCheckpointCreate(t *testing.T) {
	crash(t, scenario{prepare: localWorkspace,
		args: []string{"checkpoint", "create", "-m", "before the crash"}})
}

func TestMemoryRebuild(t *testing.T) {
	crash(t, scenario{prepare: localWorkspace, args: []string{"memory", "rebuild"}})
}

func TestMemoryCompact(t *testing.T) {
	crash(t, scenario{prepare: localWorkspace, args: []string{"memory", "compact", "--issue", "42"}})
}

// githubWorkspace makes, in dir, a bare remote and two clones of it in
// GitHub Mode, a and b: both synced, then each with records of its own
// the other lacks, so that a's sync fetches, merges, writes its files,
// commits and pushes.
func githubWorkspace(t *testing.T, dir string) {
	git(t, dir, "init", "-q", "--bare", "-b", "main", "remote.git")
	a := filepath.Join(dir, "a")
	git(t, dir, "init", "-q", "-b", "main", "a")
	writeFile(t, filepath.Join(a, "README.md"), "code\n")
	mustHook(t, a, "init", "--mode", "github")
	git(t, a, "add", "README.md", "AGENTS.md", ".agentx/agentx.toml", ".agentx/workflows", ".agentx/.gitignore")
	git(t, a, "commit", "-q", "-m", "agentx: GitHub Mode")
	git(t, a, "remote", "add", "origin", "../remote.git")
	git(t, a, "push", "-q", "-u", "origin", "main")
	records(t, a)
	mustHook(t, a, "sync")
	git(t, dir, "clone", "-q", "remote.git", "b")
	b := filepath.Join(dir, "b")
	git(t, b, "remote", "set-url", "origin", "../remote.git")
	mustHook(t, b, "sync")
	mustHook(t, b, "clarify", "answer", "CLR-42-001", "--body", "gRPC.", "--as", "architect")
	mustHook(t, b, "memory", "add", "--agent", "reviewer", "--issue", "7", "--category", "decision", "Going with the integration suite")
	mustHook(t, b, "sync")
	mustHook(t, a, "clarify", "request", "--issue", "42", "--from", "engineer", "--to", "architect", "--topic", "auth", "--question", "Tokens or sessions?")
	mustHook(t, a, "memory", "add", "--agent", "engineer", "--issue", "42", "--category", "decision", "Going with JWT access tokens")
}

func TestSyncGitHubMode(t *testing.T) {
	crash(t, scenario{prepare: githubWorkspace, work: "a", target: "clr:CLR-42-001",
		args: []string{"sync"}})
}

// The same sync with git's own calls as kill points: a fetch killed while
// it writes objects or its ref, a push killed on either side.
func TestSyncGitHubModeWithGit(t *testing.T) {
	crash(t, scenario{prepare: githubWorkspace, work: "a", target: "clr:CLR-42-001", children: true, allStep: 3,
		args: []string{"sync"}})
}

// githubSession is githubWorkspace with a transcript in a and patient
// hooks there.
func githubSession(t *testing.T, dir string) {
	githubWorkspace(t, dir)
	a := filepath.Join(dir, "a")
	patientHooks(t, a)
	writeFile(t, filepath.Join(a, "transcript.jsonl"), transcript)
}

// patientHooks gives the hooks of the work tree at dir a sync budget past
// any load: a budget spent would skip the pull, and the verdict must not
// depend on time.
func patientHooks(t *testing.T, dir string) {
	appendFile(t, filepath.Join(dir, ".agentx", "agentx.toml"), "\n[github]\nsync_budget = \"10m\"\n")
}

// The session end in GitHub Mode: capture, then the hook's sync (pull
// and push) within its budget.
func TestHookFinishGitHubMode(t *testing.T) {
	crash(t, scenario{prepare: githubSession, work: "a", stdin: finishPayload, target: "clr:CLR-42-001",
		args: []string{"hook", "finish", "--agent", "engineer", "--issue", "42", "--deadline", "10m"}})
}

// A restore takes the state back to a checkpoint: what was stored after
// it goes (the restore says so, after checkpointing the present state),
// everything else stays, each file whole.
func TestCheckpointRestore(t *testing.T) {
	var id string
	crash(t, scenario{prepare: func(t *testing.T, dir string) {
		localWorkspace(t, dir)
		var c struct{ Short string }
		if err := json.Unmarshal([]byte(mustHook(t, dir, "checkpoint", "create", "-m", "the base", "--json")), &c); err != nil {
			t.Fatal(err)
		}
		id = c.Short
		mustHook(t, dir, "clarify", "request", "--issue", "42", "--from", "engineer", "--to", "architect", "--topic", "later", "--question", "After the checkpoint?")
		mustHook(t, dir, "memory", "add", "--agent", "engineer", "--issue", "7", "--category", "decision", "Going with the later plan")
	}, argsFrom: func(t *testing.T, dir string) ([]string, []string) {
		s, err := readSnapshot(dir)
		if err != nil {
			t.Fatal(err)
		}
		gone := []string{"clr:CLR-42-003"}
		for k, r := range s {
			if r["content"] == "Going with the later plan" {
				gone = append(gone, k)
			}
		}
		if len(gone) != 2 || s[gone[0]] == nil || id == "" {
			t.Fatalf("the records after the checkpoint %s: %v", id, gone)
		}
		return []string{"checkpoint", "restore", id}, gone
	}})
}

// lostWorkspace is the loss sync --recover undoes (the script
// sync_recover.txtar): in dir, a bare remote whose state branch a plain-git
// commit stripped of a ledger (issue 8's) and a memory file (issue 42's),
// and b, a fresh GitHub Mode clone that pulled the stripped branch and so
// never saw them.
func lostWorkspace(t *testing.T, dir string) {
	githubWorkspace(t, dir)
	a := filepath.Join(dir, "a")
	mustHook(t, a, "clarify", "request", "--issue", "8", "--from", "engineer", "--to", "architect", "--topic", "db", "--question", "Postgres or SQLite?")
	mustHook(t, a, "sync")
	git(t, dir, "clone", "-q", "-b", "agentx/state", "remote.git", "damage")
	damage := filepath.Join(dir, "damage")
	git(t, damage, "rm", "-q", "state/clarifications/issue-8.json", "memory/issue-42.json")
	git(t, damage, "-c", "user.name=Ada", "-c", "user.email=ada@example.com", "commit", "-q", "-m", "lost by a buggy sync")
	git(t, damage, "push", "-q", "origin", "agentx/state")
	git(t, dir, "clone", "-q", "remote.git", "c")
	c := filepath.Join(dir, "c")
	git(t, c, "remote", "set-url", "origin", "../remote.git")
	mustHook(t, c, "init", "--mode", "github")
	mustHook(t, c, "sync", "--pull-only")
	for _, f := range []string{".agentx/state/clarifications/issue-8.json", ".agentx/memory/issue-42.json"} {
		if _, err := os.Stat(filepath.Join(c, f)); err == nil {
			t.Fatalf("c has %s before the recovery", f)
		}
	}
}

// The recovery: records read back from the branch's history into the
// local files, then synced. A kill leaves each file whole, every record
// it printed as recovered there, and the next run completes the rest,
// the push included.
func TestSyncRecover(t *testing.T) {
	crash(t, scenario{prepare: lostWorkspace, work: "c", allStep: 2, light: true, done: recoveredOnTheBranch, args: []string{"sync", "--recover"}})
}

// The recovery with git's calls as kill points too (its fetch and push).
func TestSyncRecoverWithGit(t *testing.T) {
	crash(t, scenario{prepare: lostWorkspace, work: "c", children: true, allStep: 4, light: true, done: recoveredOnTheBranch, args: []string{"sync", "--recover"}})
}

// recoveredOnTheBranch says whether the remote's state branch in the
// copy at root holds again what lostWorkspace's commit stripped.
func recoveredOnTheBranch(root string) error {
	return onTheBranch(root, map[string]string{
		"state/clarifications/issue-8.json": "Postgres or SQLite?",
		"memory/issue-42.json":              "Going with JWT access tokens",
	})
}

// onTheBranch says whether each file (path: a text it holds) is on the
// state branch of the bare remote in the copy at root.
func onTheBranch(root string, files map[string]string) error {
	for path, want := range files {
		res, err := run(filepath.Join(root, "remote.git"), "", "git", "show", "agentx/state:"+path)
		if err != nil || res.code != 0 {
			return fmt.Errorf("the remote's state branch has no %s: %v %s", path, err, res)
		}
		if !strings.Contains(res.stdout, want) {
			return fmt.Errorf("the remote's %s lacks %q", path, want)
		}
	}
	return nil
}

// temporary matches the name of an atomic write's temporary file.
var temporary = regexp.MustCompile(`\.tmp-\d+-\d+$`)

// noTemporaries says whether the tree at root, .git included, holds no
// temporary a killed write left outside .agentx/: the next run clears
// what it owns. (Under .agentx/ they are git-ignored and verify --repair
// removes a dead writer's.)
func noTemporaries(root string) error {
	var left []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".agentx" {
			return filepath.SkipDir
		}
		if temporary.MatchString(d.Name()) {
			left = append(left, strings.TrimPrefix(path, root+"/"))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(left) > 0 {
		return fmt.Errorf("temporaries left after the next run: %v", left)
	}
	return nil
}

// userAgentsMD is a repository's own AGENTS.md, there before init: init
// adds its section between markers and keeps the rest.
const userAgentsMD = "# Agents\n\nRun `make lint` before every commit.\n"

// agentsMDKept says whether the work tree's AGENTS.md still begins with
// the user's text.
func agentsMDKept(work string) error {
	data, err := os.ReadFile(filepath.Join(work, "AGENTS.md"))
	if err != nil || !strings.HasPrefix(string(data), userAgentsMD) {
		return fmt.Errorf("the user's AGENTS.md: %v %q", err, data)
	}
	return nil
}

// The first init in a repository with its own AGENTS.md: a kill leaves
// the user's text whole, and the next init completes the workspace.
func TestInit(t *testing.T) {
	crash(t, scenario{prepare: func(t *testing.T, dir string) {
		git(t, dir, "init", "-q", "-b", "main")
		writeFile(t, filepath.Join(dir, "AGENTS.md"), userAgentsMD)
	}, whole: agentsMDKept, makesWorkspace: true, light: true, done: noTemporaries, args: []string{"init"}})
}

// Copilot's instructions file, rewritten at every session end: a kill
// leaves the last one whole and no temporary in .github/.
func TestRecallWriteInstructions(t *testing.T) {
	crash(t, scenario{prepare: func(t *testing.T, dir string) {
		localWorkspace(t, dir)
		mustHook(t, dir, "memory", "recall", "--agent", "engineer", "--issue", "42", "--write-instructions")
	}, light: true, done: noTemporaries, args: []string{"memory", "recall", "--agent", "architect", "--issue", "7", "--write-instructions"}})
}

// userFile is a file of the user's, there before setup: its content and
// a line of it setup must keep.
type userFile struct{ body, keep string }

// The user's own host settings and MCP servers, for each host.
var (
	userClaude = map[string]userFile{
		".claude/settings.json": {`{
  "permissions": {"allow": ["Bash(go test:*)"]},
  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./scripts/guard.sh"}]}]}
}
`, "./scripts/guard.sh"},
		".mcp.json": {`{"mcpServers": {"docs": {"command": "docs-mcp", "args": ["--stdio"]}}}` + "\n", "docs-mcp"},
	}
	userCodex   = map[string]userFile{".codex/config.toml": {"model = \"o4-mini\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n", "docs-mcp"}}
	userCopilot = map[string]userFile{
		".github/mcp.json": {`{"mcpServers": {"docs": {"command": "docs-mcp"}}}` + "\n", "docs-mcp"},
		".vscode/mcp.json": {`{"servers": {"docs": {"command": "docs-mcp"}}}` + "\n", "docs-mcp"},
	}
)

// setupOver is the scenario of setup --HOST over the user's files: the
// settings are merged into them, each replaced whole, and the git hooks
// installed. A kill leaves every file of the user's parsing and holding
// the user's own entries; the next run leaves the setup complete (setup
// --check: nothing to change) and no temporary behind.
func setupOver(host string, files map[string]userFile) scenario {
	return scenario{prepare: func(t *testing.T, dir string) {
		localWorkspace(t, dir)
		for name, f := range files {
			writeFile(t, filepath.Join(dir, name), f.body)
		}
	}, whole: func(work string) error {
		for name, f := range files {
			data, err := os.ReadFile(filepath.Join(work, name))
			if err != nil {
				return fmt.Errorf("the user's %s: %w", name, err)
			}
			var doc map[string]any
			if strings.HasSuffix(name, ".json") {
				err = json.Unmarshal(data, &doc)
			} else {
				_, err = toml.Decode(string(data), &doc)
			}
			if err != nil {
				return fmt.Errorf("the user's %s does not parse (%d bytes): %w", name, len(data), err)
			}
			if !strings.Contains(string(data), f.keep) {
				return fmt.Errorf("the user's %s lost %q:\n%s", name, f.keep, data)
			}
		}
		return nil
	}, done: func(root string) error {
		res, err := hook(root, "setup", "--"+host, "--check")
		if err != nil || res.code != 0 {
			return fmt.Errorf("setup --%s --check: %v %s", host, err, res)
		}
		return noTemporaries(root)
	}, light: true, args: []string{"setup", "--" + host}}
}

func TestSetupClaude(t *testing.T)  { crash(t, setupOver("claude", userClaude)) }
func TestSetupCodex(t *testing.T)   { crash(t, setupOver("codex", userCodex)) }
func TestSetupCopilot(t *testing.T) { crash(t, setupOver("copilot", userCopilot)) }

// The way out: uninstall after setup --claude over the user's settings
// and AGENTS.md. Everything agentx added goes, the records with it (the
// command says so); a kill leaves the user's files whole and still
// theirs, and the next run finishes the job: nothing left to remove, no
// temporary behind.
func TestUninstall(t *testing.T) {
	sc := setupOver("claude", userClaude)
	prepare := sc.prepare
	sc.prepare = func(t *testing.T, dir string) {
		writeFile(t, filepath.Join(dir, "AGENTS.md"), userAgentsMD)
		prepare(t, dir)
		mustHook(t, dir, "setup", "--claude")
	}
	settingsKept := sc.whole
	sc.whole = func(work string) error {
		if err := agentsMDKept(work); err != nil {
			return err
		}
		return settingsKept(work)
	}
	sc.done = func(root string) error {
		res, err := hook(root, "uninstall", "--dry-run")
		if err != nil || res.code != 0 || !strings.Contains(res.stdout, "nothing") {
			return fmt.Errorf("uninstall --dry-run after the next run: %v %s", err, res)
		}
		return noTemporaries(root)
	}
	sc.removesWorkspace = true
	sc.argsFrom = func(t *testing.T, dir string) ([]string, []string) {
		s, err := readSnapshot(dir)
		if err != nil {
			t.Fatal(err)
		}
		var gone []string
		for k := range s {
			gone = append(gone, k)
		}
		return []string{"uninstall", "--yes"}, gone
	}
	crash(t, sc)
}

// withDocs is localWorkspace with seed 004's product requirements for
// issue 42 written (not committed) where the feature workflow's prd step
// puts them.
func withDocs(t *testing.T, dir string) {
	localWorkspace(t, dir)
	writeFile(t, filepath.Join(dir, "docs", "prd", "PRD-42.md"), "# PRD 42\n\nUsers sign in with tokens.\n")
}

func TestArtifactAdd(t *testing.T) {
	crash(t, scenario{prepare: withDocs, light: true,
		args: []string{"artifact", "add", "--issue", "42", "--step", "prd", "docs/prd/PRD-42.md"}})
}

// hasStatus says whether the record key (a snapshot key) of the work
// tree at root has status.
func hasStatus(root, key, status string) error {
	s, err := readSnapshot(root)
	if err != nil {
		return err
	}
	if got := s[key]["status"]; got != status {
		return fmt.Errorf("%s is %v after the next run, want %s", key, got, status)
	}
	return nil
}

// artifactStatus is a check that artifact id has status after the next
// run.
func artifactStatus(id, status string) func(root string) error {
	return func(root string) error { return hasStatus(root, "art:"+id, status) }
}

func TestArtifactApprove(t *testing.T) {
	crash(t, scenario{prepare: func(t *testing.T, dir string) {
		withDocs(t, dir)
		mustHook(t, dir, "artifact", "add", "--issue", "42", "--step", "prd", "docs/prd/PRD-42.md")
	}, light: true, done: artifactStatus("PRD-42", "approved"), args: []string{"artifact", "approve", "PRD-42"}})
}

// The post-commit hook records what a commit wrote to a step's output.
func TestPostCommitRecordsArtifacts(t *testing.T) {
	crash(t, scenario{prepare: func(t *testing.T, dir string) {
		withDocs(t, dir)
		git(t, dir, "add", "docs")
		git(t, dir, "-c", "user.name=Ada", "-c", "user.email=ada@example.com", "commit", "-q", "-m", "feat: #42 product requirements")
	}, light: true, done: artifactStatus("PRD-42", "draft"), args: []string{"git-hook", "post-commit"}})
}

// A store's import: several observations in one command, each stored once
// (a next run finds them there).
func TestMemoryAddFile(t *testing.T) {
	crash(t, scenario{prepare: func(t *testing.T, dir string) {
		localWorkspace(t, dir)
		obs := `[{"agent":"engineer","issueNumber":42,"category":"decision","content":"Going with Redis for the cache"},
 {"agent":"architect","issueNumber":7,"category":"key-fact","content":"Note: the queue is at-least-once"},
 {"agent":"reviewer","issueNumber":9,"category":"error","content":"lint failed: unused import in the handler"}]
`
		writeFile(t, filepath.Join(dir, "obs.json"), obs)
	}, light: true, args: []string{"memory", "add", "--file", "obs.json"}})
}

// The monitor marking a clarification stale past its SLA (the request
// made a month ago): its ledger and the event log whole, the mark made
// once. The event log is a rolling per-machine log (the last 1,000
// events, docs/formats.md): a kill between the ledger and its event
// loses the event, never the status, and never doubles it.
func TestMonitorMarksStale(t *testing.T) {
	crash(t, scenario{prepare: func(t *testing.T, dir string) {
		localWorkspace(t, dir)
		res, err := runEnv(dir, "", []string{"AGENTX_NOW=2026-10-01T09:00:00Z"}, hookBin, "clarify", "request", "--issue", "8",
			"--from", "engineer", "--to", "product-manager", "--topic", "export scope", "--question", "Include archived projects?")
		if err != nil || res.code != 0 {
			t.Fatalf("the month-old request: %v %s", err, res)
		}
	}, light: true, done: func(root string) error {
		if err := hasStatus(root, "clr:CLR-8-001", "stale"); err != nil {
			return err
		}
		data, err := os.ReadFile(filepath.Join(root, ".agentx", "state", "events.jsonl"))
		if n := strings.Count(string(data), "clarification-stale"); err != nil || n > 1 {
			return fmt.Errorf("%d clarification-stale events after the next run, want at most 1 (%v)", n, err)
		}
		return nil
	}, args: []string{"monitor"}})
}

// localCommitted is a Local Mode workspace in dir/a whose state is
// committed on main and pushed to a bare remote, dir/remote.git, with a
// setting of the user's in agentx.toml: what a team moving to GitHub
// Mode starts from (migrate_local_to_github.txtar).
func localCommitted(t *testing.T, dir string) {
	git(t, dir, "init", "-q", "--bare", "-b", "main", "remote.git")
	a := filepath.Join(dir, "a")
	git(t, dir, "init", "-q", "-b", "main", "a")
	localWorkspace(t, a)
	appendFile(t, filepath.Join(a, ".agentx", "agentx.toml"), "\n# the team's own comment, kept\n")
	git(t, a, "add", "-A")
	git(t, a, "-c", "user.name=Ada", "-c", "user.email=ada@example.com", "commit", "-q", "-m", "agentx state, committed in Local Mode")
	git(t, a, "remote", "add", "origin", "../remote.git")
	git(t, a, "push", "-q", "-u", "origin", "main")
}

// The switch to GitHub Mode rewrites the team's agentx.toml: a kill
// leaves it whole with the team's text, and the next run completes it.
func TestInitModeGitHub(t *testing.T) {
	crash(t, scenario{prepare: localCommitted, work: "a", light: true, whole: func(work string) error {
		data, err := os.ReadFile(filepath.Join(work, ".agentx", "agentx.toml"))
		if err != nil || !strings.Contains(string(data), "# the team's own comment, kept") {
			return fmt.Errorf("agentx.toml: %v %q", err, data)
		}
		var doc map[string]any
		if _, err := toml.Decode(string(data), &doc); err != nil {
			return fmt.Errorf("agentx.toml does not parse: %w", err)
		}
		return nil
	}, done: func(root string) error {
		data, err := os.ReadFile(filepath.Join(root, "a", ".agentx", "agentx.toml"))
		if err != nil || !strings.Contains(string(data), `mode = "github"`) {
			return fmt.Errorf("agentx.toml after the next run: %v %q", err, data)
		}
		return nil
	}, args: []string{"init", "--mode", "github"}})
}

// The migration's carry: sync --init-from HEAD puts every committed
// record on the new state branch. A kill loses none locally, and the next
// run has pushed them all.
func TestSyncInitFrom(t *testing.T) {
	crash(t, scenario{prepare: func(t *testing.T, dir string) {
		localCommitted(t, dir)
		mustHook(t, filepath.Join(dir, "a"), "init", "--mode", "github")
	}, work: "a", light: true, allStep: 2, done: func(root string) error {
		return onTheBranch(root, map[string]string{
			"state/clarifications/issue-42.json": "REST or gRPC?",
			"memory/issue-42.json":               "Chose gRPC for the public API",
			"memory/issue-7.json":                "the cache defaults to five minutes",
		})
	}, args: []string{"sync", "--init-from", "HEAD"}})
}

// A fresh clone's first session in GitHub Mode: hook start pulls the
// state branch and writes every ledger and memory file it holds into the
// new work tree. A kill leaves each file whole; the next start has them
// all.
func TestHookStartFreshClone(t *testing.T) {
	crash(t, scenario{prepare: func(t *testing.T, dir string) {
		githubWorkspace(t, dir)
		mustHook(t, filepath.Join(dir, "a"), "sync")
		git(t, dir, "clone", "-q", "remote.git", "c")
		c := filepath.Join(dir, "c")
		git(t, c, "remote", "set-url", "origin", "../remote.git")
		patientHooks(t, c)
	}, work: "c", light: true, allStep: 2, done: func(root string) error {
		want, err := readSnapshot(filepath.Join(root, "a"))
		if err != nil {
			return err
		}
		got, err := readSnapshot(filepath.Join(root, "c"))
		if err != nil {
			return err
		}
		for k := range want {
			if got[k] == nil {
				return fmt.Errorf("%s, on the state branch, is not in the clone after the next start", k)
			}
		}
		return nil
	}, args: []string{"hook", "start", "--agent", "engineer", "--issue", "42", "--deadline", "10m"}})
}

// setup --remove takes agentx's entries out of the user's files: a kill
// leaves each whole and still the user's, and after the next run none
// names agentx-hook any more.
func TestSetupRemove(t *testing.T) {
	sc := setupOver("claude", userClaude)
	prepare := sc.prepare
	sc.prepare = func(t *testing.T, dir string) {
		prepare(t, dir)
		mustHook(t, dir, "setup", "--claude")
	}
	sc.args = []string{"setup", "--claude", "--remove"}
	sc.done = func(root string) error {
		for name := range userClaude {
			data, err := os.ReadFile(filepath.Join(root, name))
			if err != nil || strings.Contains(string(data), "agentx") {
				return fmt.Errorf("%s after the next run: %v\n%s", name, err, data)
			}
		}
		return noTemporaries(root)
	}
	crash(t, sc)
}

// The reference tools' manifest, written whole from the issue files.
func TestMemoryRebuildReference(t *testing.T) {
	crash(t, scenario{prepare: localWorkspace, light: true, args: []string{"memory", "rebuild", "--reference"}})
}
