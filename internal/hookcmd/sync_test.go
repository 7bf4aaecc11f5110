package hookcmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	sbt "github.com/agentx-dev/agentx/internal/core/statebranch/statebranchtest"
	"github.com/agentx-dev/agentx/internal/testenv"
)

// unionHookMain is agentx-hook with the stand-in merge that unions JSON
// records by id, for sync tests until the semantic merge is wired in.
func unionHookMain() {
	cwd, _ := os.Getwd()
	a := &App{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Cwd: cwd,
		Clock: clock.Real{}, Merge: sbt.UnionMerge}
	os.Exit(a.Run(context.Background(), os.Args[1:]))
}

// githubClone clones remote as one agent's workspace in GitHub Mode.
func githubClone(t *testing.T, remote string) string {
	t.Helper()
	dir := sbt.Clone(t, remote)
	run(t, dir, nil, "agentx-hook", "--root", dir, "init")
	sbt.WriteFile(t, filepath.Join(dir, ".agentx", "agentx.toml"), "mode = \"github\"\n")
	return dir
}

// TestConcurrentSyncFromTwoClonesLandsBothSides runs two agents as
// separate processes, each adding records to the same ledger and syncing,
// at the same time. Each sync can lose at most as many push races as the
// other agent has syncs (3 < 5 retries), so none may fail.
func TestConcurrentSyncFromTwoClonesLandsBothSides(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	clones := []string{githubClone(t, remote), githubClone(t, remote)}
	const rounds = 3
	var want []string
	var wg sync.WaitGroup
	errs := make(chan error, len(clones))
	for i, dir := range clones {
		var ids []string
		for r := range rounds {
			ids = append(ids, fmt.Sprintf("CLR-1-%c%02d", 'a'+i, r))
		}
		want = append(want, ids...)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				// The agent's own write; no sync runs in this clone meanwhile.
				path := filepath.Join(dir, ".agentx", "state", "clarifications", "issue-1.json")
				cur, err := os.ReadFile(path)
				var have []string
				if err == nil {
					have = sbt.IDs(t, cur)
				}
				if err := os.WriteFile(path, []byte(sbt.Records(append(have, ids[r])...)), 0o644); err != nil {
					errs <- err
					return
				}
				cmd := exec.Command("agentx-hook-union", "--root", dir, "sync")
				if out, err := cmd.CombinedOutput(); err != nil {
					errs <- fmt.Errorf("%s sync %d: %v\n%s", dir, r, err, out)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	slices.Sort(want)
	for _, dir := range clones {
		run(t, dir, nil, "agentx-hook-union", "--root", dir, "sync")
	}
	for _, dir := range clones {
		data, err := os.ReadFile(filepath.Join(dir, ".agentx", "state", "clarifications", "issue-1.json"))
		if err != nil {
			t.Fatal(err)
		}
		if got := sbt.IDs(t, data); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", dir, got, want)
		}
	}
	got := sbt.IDs(t, []byte(sbt.Git(t, remote, "show", "agentx/state:state/clarifications/issue-1.json")))
	if !slices.Equal(got, want) {
		t.Errorf("remote: %v, want %v", got, want)
	}
}

// TestStatePullAndPushFailOpen: the hooks' sync never fails the hook; an
// unreachable remote is one warning line, and Local Mode is silent.
func TestStatePullAndPushFailOpen(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	dir := githubClone(t, remote)
	sbt.Git(t, dir, "remote", "set-url", "origin", filepath.Join(t.TempDir(), "gone.git"))
	newApp := func() (*App, *bytes.Buffer) {
		var stderr bytes.Buffer
		return &App{Stdout: &bytes.Buffer{}, Stderr: &stderr, Getenv: func(string) string { return "" },
			Cwd: dir, Clock: clock.Real{}, rootFlag: dir}, &stderr
	}
	for _, f := range []func(*App){
		func(a *App) { a.StatePull(context.Background(), 0) },
		func(a *App) { a.StatePush(context.Background(), time.Second) },
	} {
		a, stderr := newApp()
		f(a)
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if len(lines) != 1 || !strings.HasPrefix(lines[0], "warning: state branch sync skipped: ") {
			t.Errorf("stderr %q", stderr.String())
		}
	}
	sbt.WriteFile(t, filepath.Join(dir, ".agentx", "agentx.toml"), "mode = \"local\"\n")
	a, stderr := newApp()
	a.StatePull(context.Background(), 0)
	if stderr.Len() != 0 {
		t.Errorf("local mode printed %q", stderr.String())
	}
}

// TestConcurrentRequestsAndSyncsWithTheSemanticMerge: two agents on two
// clones request clarifications on the same issue and sync, at the same
// time, with the real merge: every question lands on both sides and on
// the branch, each under its own id (collisions renumbered).
func TestConcurrentRequestsAndSyncsWithTheSemanticMerge(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	clones := []string{githubClone(t, remote), githubClone(t, remote)}
	for _, dir := range clones {
		sbt.WriteFile(t, filepath.Join(dir, ".agentx", "agentx.toml"), "mode = \"github\"\ndefault_workflow = \"feature\"\n")
	}
	const rounds = 3
	var wg sync.WaitGroup
	errs := make(chan error, len(clones))
	for i, dir := range clones {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				for _, args := range [][]string{
					{"clarify", "request", "--issue", "1", "--from", "engineer", "--to", "architect",
						"--topic", fmt.Sprintf("agent%d-q%d", i, r), "--question", "which way?"},
					{"sync"},
				} {
					out, err := exec.Command("agentx-hook", append([]string{"--root", dir}, args...)...).CombinedOutput()
					if err != nil {
						errs <- fmt.Errorf("%s %v: %v\n%s", dir, args, err, out)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, dir := range clones {
		run(t, dir, nil, "agentx-hook", "--root", dir, "sync")
	}
	topics := func(data []byte) []string {
		l, err := ledger.Parse("issue-1.json", data, 1)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		var out []string
		for _, r := range l.Clarifications {
			if ids[r.ID] {
				t.Errorf("id %s twice", r.ID)
			}
			ids[r.ID] = true
			out = append(out, r.Topic)
		}
		slices.Sort(out)
		return out
	}
	var want []string
	for i := range clones {
		for r := range rounds {
			want = append(want, fmt.Sprintf("agent%d-q%d", i, r))
		}
	}
	for _, dir := range clones {
		data, err := os.ReadFile(filepath.Join(dir, ".agentx", "state", "clarifications", "issue-1.json"))
		if err != nil {
			t.Fatal(err)
		}
		if got := topics(data); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", dir, got, want)
		}
	}
	if got := topics([]byte(sbt.Git(t, remote, "show", "agentx/state:state/clarifications/issue-1.json"))); !slices.Equal(got, want) {
		t.Errorf("remote: %v, want %v", got, want)
	}
}

// A removal undone by `checkpoint restore` stays undone in GitHub Mode:
// the branch still carries the removal's tombstone, and without the
// restore's revival the next sync would remove the observation again.
func TestRestoreUndoesARemovalAcrossSync(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	dir := githubClone(t, remote)
	out := run(t, dir, nil, "agentx-hook", "--root", dir, "memory", "add", "--agent", "engineer", "--issue", "5",
		"--category", "decision", "Chose SQLite for the local cache")
	id := strings.Fields(out)[0]
	if !strings.HasPrefix(id, "obs-") {
		t.Fatalf("memory add printed %q", out)
	}
	run(t, dir, nil, "agentx-hook", "--root", dir, "sync")
	run(t, dir, nil, "agentx-hook", "--root", dir, "checkpoint", "create", "-m", "before the removal")
	run(t, dir, nil, "agentx-hook", "--root", dir, "memory", "remove", id)
	run(t, dir, nil, "agentx-hook", "--root", dir, "sync")
	branch := sbt.Git(t, remote, "show", "agentx/state:memory/issue-5.json")
	if strings.Contains(branch, "Chose SQLite") || !strings.Contains(branch, `"reason": "removed"`) {
		t.Fatalf("the branch after the removal:\n%s", branch)
	}
	list := run(t, dir, nil, "agentx-hook", "--root", dir, "checkpoint", "list", "--json")
	cp := between(list, `"id": "`, `"`)
	run(t, dir, nil, "agentx-hook", "--root", dir, "checkpoint", "restore", cp)
	run(t, dir, nil, "agentx-hook", "--root", dir, "sync")
	if got := run(t, dir, nil, "agentx-hook", "--root", dir, "memory", "get", id); !strings.Contains(got, "Chose SQLite") {
		t.Fatalf("after restore and sync: %s", got)
	}
	if branch := sbt.Git(t, remote, "show", "agentx/state:memory/issue-5.json"); !strings.Contains(branch, "Chose SQLite") {
		t.Fatalf("the branch after restore and sync:\n%s", branch)
	}
}

// between is the text after the first start and before the next end.
func between(s, start, end string) string {
	_, rest, _ := strings.Cut(s, start)
	v, _, _ := strings.Cut(rest, end)
	return v
}

// hangingTransferGit is a git whose fetch and push hang (SIGTERM ignored,
// a child holding the pipes, as an ssh stuck on a dead network); every
// other command is the real git, found after this one on PATH.
const hangingTransferGit = `#!/bin/sh
for a in "$@"; do
  case "$a" in
  fetch|push) trap '' TERM; sleep 30 & sleep 30; exit 1 ;;
  esac
done
PATH=${PATH#*:} exec git "$@"
`

// TestStatePullStaysWithinBudgetWhenGitHangs: the hooks' pull and push
// return within the sync budget plus a small margin, and warn once, even
// when git ignores SIGTERM and leaves children holding its pipes.
func TestStatePullStaysWithinBudgetWhenGitHangs(t *testing.T) {
	sbt.Env(t)
	remote := sbt.Remote(t)
	dir := githubClone(t, remote)
	fake := t.TempDir()
	if err := testenv.WriteExecutable(filepath.Join(fake, "git"), []byte(hangingTransferGit), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", fake+string(os.PathListSeparator)+os.Getenv("PATH"))
	const budget = 500 * time.Millisecond
	// Process start and a loaded machine: wide, and still a third of the
	// 30 s the hanging git would hold a hook without the budget.
	const margin = 10 * time.Second
	for name, f := range map[string]func(*App){
		"pull": func(a *App) { a.StatePull(context.Background(), budget) },
		"push": func(a *App) { a.StatePush(context.Background(), budget) },
	} {
		var stderr bytes.Buffer
		a := &App{Stdout: &bytes.Buffer{}, Stderr: &stderr, Getenv: func(string) string { return "" },
			Cwd: dir, Clock: clock.Real{}, rootFlag: dir}
		start := time.Now()
		f(a)
		if took := time.Since(start); took > budget+margin {
			t.Errorf("%s took %s, past the budget %s + %s", name, took, budget, margin)
		}
		if !strings.Contains(stderr.String(), "no answer from origin within 500ms") {
			t.Errorf("%s: stderr %q", name, stderr.String())
		}
	}
}
