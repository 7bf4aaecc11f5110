package hookcmd

// The merge driver run by a real git: testscript.Main (script_test.go) puts
// this test binary on $PATH as agentx-hook, so git execs it exactly as it
// would the installed binary.

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/contenthash"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/statemerge"
)

type gitRepo struct {
	t   testing.TB
	dir string
	env []string
}

// gitRepoAt is the repository dir, with the environment every command of
// these tests runs in (HOME, a fixed identity), and nothing made yet.
func gitRepoAt(t testing.TB, home, dir string) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed: %v", err)
	}
	return &gitRepo{t: t, dir: dir, env: append(os.Environ(),
		"HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com", "AGENTX_ROOT=", "NO_COLOR=1",
		// The hooks' own work (the monitor after a merge, commit
		// observations) is tested elsewhere; here it would only add changes.
		"AGENTX=0")}
}

// newGitRepo makes a repository with agentx initialised and its git hooks
// and merge driver installed.
func newGitRepo(t testing.TB, home, dir string) *gitRepo {
	t.Helper()
	r := gitRepoAt(t, home, dir)
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.run("git", "init", "-q", "-b", "main")
	r.run("agentx-hook", "init")
	r.run("agentx-hook", "hooks", "install", "--merge-driver")
	// Per-machine and derived files are not shared state (docs/merge.md).
	r.appendFile(".agentx/.gitignore", "memory/manifest.json\nstate/agent-status.json\nstate/events.jsonl\n")
	return r
}

// run runs a command in the repository and fails the test on a non-zero
// exit.
func (r *gitRepo) run(name string, args ...string) string {
	r.t.Helper()
	out, err := r.try(name, args...)
	if err != nil {
		r.t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

func (r *gitRepo) try(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = r.dir, r.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// agentx runs an agentx-hook command at the instant now.
func (r *gitRepo) agentx(now string, args ...string) string {
	r.t.Helper()
	saved := r.env
	r.env = append(r.env, "AGENTX_NOW=2026-03-01T"+now+":00Z")
	defer func() { r.env = saved }()
	return r.run("agentx-hook", args...)
}

func (r *gitRepo) appendFile(name, text string) {
	r.t.Helper()
	f, err := os.OpenFile(filepath.Join(r.dir, name), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		r.t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		r.t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		r.t.Fatal(err)
	}
}

func (r *gitRepo) read(name string) string {
	r.t.Helper()
	data, err := os.ReadFile(filepath.Join(r.dir, name))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(data)
}

func (r *gitRepo) commitAll(msg string) {
	r.t.Helper()
	r.run("git", "add", "-A")
	r.run("git", "commit", "-q", "-m", msg)
}

const (
	ledgerFile = ".agentx/state/clarifications/issue-42.json"
	memoryFile = ".agentx/memory/issue-42.json"
)

// divergedRepo is the scenario of the issue: a base with one request,
// then two branches of one commit each that both allocate CLR-42-002 for
// different questions, one resolving CLR-42-001 while the other answers
// it, and both adding observations. It is built once (buildDiverged) and
// copied into each test, with the test's own HOME.
func divergedRepo(t *testing.T) *gitRepo {
	t.Helper()
	home := t.TempDir()
	r := gitRepoAt(t, home, filepath.Join(home, "repo"))
	divergedFixture.copyTo(t, r.dir)
	return r
}

var divergedFixture = &fixture{name: "diverged", build: func(dir string) error {
	return buildWith(func(tb testing.TB) {
		// The copies are of the repository only: each test has its own HOME.
		home := dir + ".home"
		if err := os.Mkdir(home, 0o755); err != nil {
			tb.Fatal(err)
		}
		buildDiverged(newGitRepo(tb, home, dir))
	})
}}

// buildDiverged makes divergedRepo's two branches in r, made by newGitRepo.
func buildDiverged(r *gitRepo) {
	t := r.t
	t.Helper()
	r.agentx("10:00", "clarify", "request", "--issue", "42", "--from", "engineer", "--to", "architect", "--topic", "auth", "--question", "Middleware or controller?")
	r.agentx("10:00", "memory", "add", "--agent", "engineer", "--issue", "42", "Base: the login redirect loops on expired sessions")
	r.commitAll("base")

	r.run("git", "checkout", "-q", "-b", "feature")
	if id := strings.TrimSpace(r.agentx("10:01", "clarify", "request", "--issue", "42", "--from", "engineer", "--to", "architect", "--topic", "session store", "--question", "Redis or Postgres?")); id != "CLR-42-002" {
		t.Fatalf("feature allocated %s", id)
	}
	r.agentx("10:02", "clarify", "resolve", "CLR-42-001", "--body", "Middleware, decided by the lead.")
	r.agentx("10:02", "memory", "add", "--agent", "engineer", "--issue", "42", "Feature: sessions move to Redis")
	r.commitAll("feature work")

	r.run("git", "checkout", "-q", "main")
	if id := strings.TrimSpace(r.agentx("10:03", "clarify", "request", "--issue", "42", "--from", "engineer", "--to", "product-manager", "--topic", "scope", "--question", "Is SSO in the MVP?")); id != "CLR-42-002" {
		t.Fatalf("main allocated %s", id)
	}
	r.agentx("10:04", "clarify", "answer", "CLR-42-001", "--body", "Middleware.")
	r.agentx("10:04", "memory", "add", "--agent", "reviewer", "--issue", "42", "Main: SSO question raised with the PM")
	r.commitAll("main work")
}

// outcome is the state files after an operation.
type outcome struct{ ledger, memory string }

func (r *gitRepo) outcome() outcome {
	return outcome{ledger: r.read(ledgerFile), memory: r.read(memoryFile)}
}

// TestMergeDriverWithGit runs git merge, rebase and cherry-pick in both
// directions. Bringing feature into main gives the same bytes whichever
// operation does it (feature's CLR-42-002 is renumbered: it is the incoming
// side), and the same holds the other way round; the two directions give
// the same records except for which one was renumbered.
func TestMergeDriverWithGit(t *testing.T) {
	t.Parallel()
	r := divergedRepo(t)
	into := map[string]map[string]outcome{"main": {}, "feature": {}}
	other := map[string]string{"main": "feature", "feature": "main"}
	for _, target := range []string{"main", "feature"} {
		src := other[target]
		// git merge SRC (on TARGET)
		r.run("git", "checkout", "-q", "-B", "work", target)
		out := r.run("git", "merge", "-q", "--no-edit", src)
		if !strings.Contains(out, "renumbered to CLR-42-003") {
			t.Errorf("merge %s into %s: git showed no renumbering:\n%s", src, target, out)
		}
		into[target]["merge"] = r.outcome()
		// git rebase TARGET (on SRC): SRC's commit replayed onto TARGET
		r.run("git", "checkout", "-q", "-B", "work", src)
		r.run("git", "rebase", "-q", target)
		into[target]["rebase"] = r.outcome()
		// git cherry-pick SRC (on TARGET)
		r.run("git", "checkout", "-q", "-B", "work", target)
		r.run("git", "cherry-pick", src)
		into[target]["cherry-pick"] = r.outcome()
		if s := r.run("git", "status", "--porcelain"); s != "" {
			t.Errorf("worktree not clean after cherry-pick into %s:\n%s", target, s)
		}
	}
	for target, ops := range into {
		for op, got := range ops {
			if got != ops["merge"] {
				t.Errorf("%s into %s differs from merge:\n%s\nmerge:\n%s", op, target, got.ledger, ops["merge"].ledger)
			}
		}
	}
	a, b := into["main"]["merge"], into["feature"]["merge"]
	if a.memory != b.memory {
		t.Errorf("memory differs by direction:\n%s\n%s", a.memory, b.memory)
	}
	if recordsWithoutIDs(t, a.ledger) != recordsWithoutIDs(t, b.ledger) {
		t.Errorf("ledgers differ beyond the renumbering:\n%s\n%s", a.ledger, b.ledger)
	}

	// What the merge into main holds.
	l, err := ledger.Parse(ledgerFile, []byte(a.ledger), 42)
	if err != nil {
		t.Fatal(err)
	}
	byTopic := map[string]ledger.Record{}
	for _, rec := range l.Clarifications {
		byTopic[rec.Topic] = rec
	}
	if rec := byTopic["auth"]; rec.ID != "CLR-42-001" || rec.Status != ledger.Resolved || len(rec.Thread) != 3 {
		t.Errorf("auth: %s %s with %d entries; want CLR-42-001 resolved with question, resolution and answer", rec.ID, rec.Status, len(rec.Thread))
	}
	if rec := byTopic["scope"]; rec.ID != "CLR-42-002" {
		t.Errorf("main's own request is %s, want CLR-42-002", rec.ID)
	}
	if rec := byTopic["session store"]; rec.ID != "CLR-42-003" || string(rec.ExtraValue(statemerge.RenamedFromKey)) != `"CLR-42-002"` {
		t.Errorf("feature's request is %s (renamedFrom %s), want CLR-42-003 from CLR-42-002", rec.ID, rec.ExtraValue(statemerge.RenamedFromKey))
	}
	f, err := memory.ParseIssueFile(memoryFile, []byte(a.memory))
	if err != nil {
		t.Fatal(err)
	}
	// Feature's resolve of CLR-42-001 kept its decision in memory too.
	decisions := 0
	for _, o := range f.Observations {
		if strings.HasPrefix(o.Summary, "CLR-42-001 settled (auth): ") {
			decisions++
		}
	}
	if len(f.Observations) != 4 || decisions != 1 {
		t.Errorf("memory holds %d observations (%d decisions of CLR-42-001), want base + one from each branch + the decision", len(f.Observations), decisions)
	}

	// The merged ledger works: the renumbered record is found by its new id.
	r.run("git", "checkout", "-q", "-B", "work", "main")
	r.run("git", "merge", "-q", "--no-edit", "feature")
	r.agentx("10:05", "clarify", "answer", "CLR-42-003", "--body", "Redis.")
}

// recordsWithoutIDs describes a ledger's records without ids, sorted.
func recordsWithoutIDs(t *testing.T, data string) string {
	l, err := ledger.Parse(ledgerFile, []byte(data), 42)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, rec := range l.Clarifications {
		if rec.RecordIntegrity() == contenthash.Tampered {
			t.Errorf("%s: its record hash does not match after the merge", rec.ID)
		}
		rec.ID = ""
		rec.SetExtra(statemerge.RenamedFromKey, nil)
		rec.SetExtra(ledger.RecordHashKey, nil) // it covers the id
		b, _ := rec.MarshalJSON()
		out = append(out, string(b))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// TestMergeDriverCorruptFallsBack: a side that does not parse leaves git's
// normal conflict, with the working file exactly as ours had it and no
// conflict markers written into the JSON.
func TestMergeDriverCorruptFallsBack(t *testing.T) {
	t.Parallel()
	r := divergedRepo(t)
	r.run("git", "checkout", "-q", "feature")
	if err := os.WriteFile(filepath.Join(r.dir, ledgerFile), []byte("{\"issueNumber\": 42, \"clarifications\": [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.commitAll("break the ledger")
	r.run("git", "checkout", "-q", "main")
	ours := r.read(ledgerFile)
	out, err := r.try("git", "merge", "--no-edit", "feature")
	if err == nil {
		t.Fatalf("git merge succeeded over a corrupt ledger:\n%s", out)
	}
	if !strings.Contains(out, "CONFLICT") || !strings.Contains(out, "cannot merge .agentx/state/clarifications/issue-42.json") {
		t.Errorf("git output:\n%s", out)
	}
	if got := r.read(ledgerFile); got != ours {
		t.Errorf("the working file changed:\n%s", got)
	}
	if s := r.run("git", "status", "--porcelain", "--", ledgerFile); !strings.HasPrefix(s, "UU ") {
		t.Errorf("git status: %q, want an unmerged path", s)
	}
	// The memory file still merged by meaning in the same run.
	if s := r.run("git", "status", "--porcelain", "--", memoryFile); !strings.HasPrefix(s, "M  ") {
		t.Errorf("memory file status %q, want merged", s)
	}
}

// TestMergedMemoryKeepsTheManifest: the merge driver merges a memory
// issue file into git's temporary file, which git then writes into the
// work tree: nothing of agentx runs after that but the post-merge hook,
// which brings the manifest in line with the memory files the merge
// changed (issue 38: verify reported MANIFEST_MISSING_ENTRY until a
// rebuild).
func TestMergedMemoryKeepsTheManifest(t *testing.T) {
	t.Parallel()
	r := divergedRepo(t)
	r.run("git", "checkout", "-q", "-B", "work", "main")
	var env []string
	for _, kv := range r.env {
		if kv != "AGENTX=0" {
			env = append(env, kv)
		}
	}
	r.env = env // the hooks run, as in a person's repository
	r.run("git", "merge", "-q", "--no-edit", "feature")
	out, _ := r.try("agentx-hook", "verify")
	if strings.Contains(out, "MANIFEST_MISSING_ENTRY") {
		t.Fatalf("verify after the merge:\n%s", out)
	}
}
