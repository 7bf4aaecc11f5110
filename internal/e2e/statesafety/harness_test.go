//go:build unix

package statesafety

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	sbt "github.com/agentx-dev/agentx/internal/core/statebranch/statebranchtest"

	"github.com/agentx-dev/agentx/internal/testenv"
)

// agentxBin is the agentx-hook binary TestMain builds or finds built
// (testenv.SharedBinary), without the race detector: it starts several
// times faster, and the code under test is the binary's behaviour, not
// its data races.
var agentxBin string

// modelEnv keeps the AGENTX_MODEL_ settings of the test's environment,
// which TestMain clears for the processes the tests start.
var modelEnv = map[string]string{}

// scratch is the directory TestMain creates and removes.
var scratch string

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	defer testenv.UseRAMTempDir()()
	dir, err := os.MkdirTemp("", "agentx-statesafety-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	scratch = dir
	// Built once per content of the module, shared with later runs and a
	// second copy of the suite (issue 37).
	agentxBin, err = testenv.SharedBinary("agentx-hook", "go build ./cmd/agentx-hook",
		testenv.GoBuild("github.com/agentx-dev/agentx/cmd/agentx-hook"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := gitEnv(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// The scenarios mostly wait for git and agentx-hook processes: with
	// only GOMAXPROCS of them at once, beside the model test they ran one
	// after another (issue 37).
	testenv.RaiseParallel(4)
	return m.Run()
}

// gitEnv makes git (and agentx-hook) independent of the machine: the
// state branch tests' git environment (statebranchtest.SetGitEnv), no
// AGENTX_ or GIT_ variable of the environment the tests run in, no colour
// and no prompt.
func gitEnv(dir string) error {
	// Read by name (envInt names them to go test's cache too).
	for _, k := range []string{"AGENTX_MODEL_SEQS", "AGENTX_MODEL_SEED", "AGENTX_MODEL_WORKERS", "AGENTX_MODEL_TRACE"} {
		if v := os.Getenv(k); v != "" {
			modelEnv[k] = v
		}
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "AGENTX_") || strings.HasPrefix(k, "GIT_") {
			os.Unsetenv(k)
		}
	}
	if err := sbt.SetGitEnv(dir); err != nil {
		return err
	}
	os.Setenv("NO_COLOR", "1")
	os.Setenv("GIT_TERMINAL_PROMPT", "0")
	return nil
}

// result is what one process did.
type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout: %s\nstderr: %s", r.code, strings.TrimSpace(r.stdout), strings.TrimSpace(r.stderr))
}

// run runs name with args in dir, stdin empty, within a minute; a process
// that could not start is an error, a non-zero exit is not.
func run(dir, name string, args ...string) (result, error) {
	return runWith(dir, nil, "", name, args...)
}

// runWith is run with variables added to the environment and stdin.
func runWith(dir string, env []string, stdin, name string, args ...string) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
		if ctx.Err() != nil {
			return res, fmt.Errorf("%s %s: timed out after a minute: %s", name, strings.Join(args, " "), res)
		}
	case err != nil:
		return res, fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return res, nil
}

// mustGit runs git in dir and returns its trimmed stdout, failing on any
// error.
func mustGit(dir string, args ...string) (string, error) {
	return gitEnvIn(dir, nil, args...)
}

// gitEnvIn is mustGit with variables added to the environment.
func gitEnvIn(dir string, env []string, args ...string) (string, error) {
	return gitInputEnv(dir, env, "", args...)
}

// gitInput is mustGit with stdin.
func gitInput(dir, stdin string, args ...string) (string, error) {
	return gitInputEnv(dir, nil, stdin, args...)
}

func gitInputEnv(dir string, env []string, stdin string, args ...string) (string, error) {
	res, err := runWith(dir, env, stdin, "git", args...)
	if err != nil {
		return "", err
	}
	if res.code != 0 {
		return "", fmt.Errorf("git %s in %s: %s", strings.Join(args, " "), dir, res)
	}
	return strings.TrimSpace(res.stdout), nil
}

// hook runs agentx-hook in dir.
func hook(dir string, args ...string) (result, error) { return run(dir, agentxBin, args...) }

// killedSync starts `agentx-hook sync` in dir, kills it with SIGKILL after
// delay, and waits until every process it started (git fetch, git push,
// which a SIGKILL of their parent leaves running, as it would for a user)
// has ended too (quiesce under world), so that the next step sees a quiet
// repository.
func killedSync(world, dir string, delay time.Duration) (finished bool, err error) {
	cmd := exec.Command(agentxBin, "sync")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		return false, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		finished = true
	case <-time.After(delay):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-done
	}
	return finished, quiesce(world)
}

// busy says whether a process other than this one still works in dir:
// its working directory or its command line is there (git -C DIR), and it
// is no zombie (an orphan's zombie waits for init to reap it). agentx runs
// git in process groups of its own and rebuilds the memory index in a
// session of its own, so neither a process group nor the children of the
// process started tell when everything a step started has ended.
func busy(dir string) bool {
	procs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil || len(procs) == 0 {
		return false // no /proc: nothing to wait for that can be seen
	}
	isNew := sinceWorld(dir)
	self := fmt.Sprint(os.Getpid())
	for _, p := range procs {
		if filepath.Base(p) == self || !isNew(filepath.Base(p)) {
			continue
		}
		cwd, _ := os.Readlink(filepath.Join(p, "cwd"))
		cmdline, _ := os.ReadFile(filepath.Join(p, "cmdline"))
		if !strings.HasPrefix(cwd, dir) && !bytes.Contains(cmdline, []byte(dir)) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(p, "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ...: comm may hold spaces.
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 {
			if f := strings.Fields(string(stat[i+1:])); len(f) > 0 && (f[0] == "Z" || f[0] == "X") {
				continue
			}
		}
		return true
	}
	return false
}

// pidMark is where the process ids of this process's namespace stood at
// an instant: the last one handed out (/proc/loadavg) and the forks of
// the whole system so far (/proc/stat), which bounds how many ids were
// handed out since.
type pidMark struct{ last, forks, max int64 }

// readPidMark reads the mark now; false where it cannot be read, or
// /proc is not of this process's namespace.
func readPidMark() (pidMark, bool) {
	var m pidMark
	self, err := os.Readlink("/proc/self")
	if err != nil || self != fmt.Sprint(os.Getpid()) {
		return m, false
	}
	load, err1 := os.ReadFile("/proc/loadavg")
	stat, err2 := os.ReadFile("/proc/stat")
	pidMax, err3 := os.ReadFile("/proc/sys/kernel/pid_max")
	if err1 != nil || err2 != nil || err3 != nil {
		return m, false
	}
	f := strings.Fields(string(load))
	_, forks, _ := strings.Cut(string(stat), "\nprocesses ")
	forks, _, _ = strings.Cut(forks, "\n")
	var e1, e2, e3 error
	if len(f) == 5 {
		m.last, e1 = strconv.ParseInt(f[4], 10, 64)
	}
	m.forks, e2 = strconv.ParseInt(forks, 10, 64)
	m.max, e3 = strconv.ParseInt(strings.TrimSpace(string(pidMax)), 10, 64)
	return m, len(f) == 5 && e1 == nil && e2 == nil && e3 == nil && m.max > 0
}

// worldMarks holds, by world directory, the pidMark taken just before
// the world was made.
var worldMarks sync.Map

// sinceWorld returns what tells the process ids handed out since world
// dir was made, as /proc names them, from those of processes older than
// it, which cannot be working in it (nothing made before the world knew
// its name): busy then reads nothing of the machine's other processes,
// where it read two files of each, a third of the test binary's own CPU
// (issue 37). Every id is new where that cannot be told: no mark, or so
// many forks since that the ids may have come round again. Read after
// /proc was listed, so that every process listed is older than the mark
// now.
func sinceWorld(dir string) func(pid string) bool {
	all := func(string) bool { return true }
	v, ok := worldMarks.Load(dir)
	if !ok {
		return all
	}
	then := v.(pidMark)
	now, ok := readPidMark()
	if !ok || now.max != then.max || now.forks-then.forks >= then.max {
		return all
	}
	span := (now.last - then.last + then.max) % then.max
	return func(pid string) bool {
		n, err := strconv.ParseInt(pid, 10, 64)
		if err != nil {
			return true
		}
		d := (n - then.last + then.max) % then.max
		return d > 0 && d <= span
	}
}

// quiesce waits until nothing works in dir any more (busy), at most a
// minute.
func quiesce(dir string) error {
	deadline := time.Now().Add(time.Minute)
	for busy(dir) {
		if time.Now().After(deadline) {
			return fmt.Errorf("processes still work in %s after a minute", dir)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// Names of the places a world has.
const (
	stateBranch = "agentx/state"
	altBranch   = "agentx/state-alt"
)

// treeNames are the work trees of a world: three clones and a linked
// worktree of the first.
var treeNames = []string{"a", "b", "c", "w"}

// world is one bare remote with three clones (a, b, c) of it in GitHub
// Mode, and a linked worktree w of a, each with uncommitted work of the
// user's own (a staged and an unstaged change, a stash, a branch).
type world struct {
	dir    string
	remote string
	trees  map[string]string // name -> work tree directory
	toml   string            // the committed .agentx/agentx.toml
	// commits is what each commit read so far holds (refHoldings).
	commits map[plumbing.Hash]*holdings
}

func (w *world) tree(name string) string { return w.trees[name] }

// repoOf is the clone whose repository holds tree name's refs.
func repoOf(name string) string {
	if name == "w" {
		return "a"
	}
	return name
}

var (
	templateOnce sync.Once
	templateDir  string
	templateErr  error
)

// newWorld copies the world template (built once) into a new directory
// of t's.
func newWorld(t testing.TB) *world {
	t.Helper()
	w, err := makeWorld(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// makeWorld copies the world template (built once) into dir; it is safe
// on any goroutine.
func makeWorld(dir string) (*world, error) {
	if m, ok := readPidMark(); ok {
		worldMarks.Store(dir, m)
	}
	templateOnce.Do(func() {
		templateDir = filepath.Join(scratch, "template")
		templateErr = buildTemplate(templateDir)
	})
	if templateErr != nil {
		return nil, fmt.Errorf("world template: %w", templateErr)
	}
	if err := copyWorld(templateDir, dir); err != nil {
		return nil, err
	}
	w := openWorld(dir)
	data, err := os.ReadFile(filepath.Join(w.tree("a"), ".agentx", "agentx.toml"))
	if err != nil {
		return nil, err
	}
	w.toml = string(data)
	return w, nil
}

// copyWorld copies the world at src to dst, a directory that does not
// exist or is empty.
func copyWorld(src, dst string) error {
	if err := copyTree(src, dst); err != nil {
		return err
	}
	// The worktree's links are absolute paths (the only ones a world
	// holds): point them at the copy.
	for _, f := range []string{filepath.Join(dst, "w", ".git"), filepath.Join(dst, "a", ".git", "worktrees", "w", "gitdir")} {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(f, bytes.ReplaceAll(data, []byte(src), []byte(dst)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func openWorld(dir string) *world {
	w := &world{dir: dir, remote: filepath.Join(dir, "remote.git"), trees: map[string]string{}}
	for _, n := range treeNames {
		w.trees[n] = filepath.Join(dir, n)
	}
	return w
}

// buildTemplate makes the world every test starts from. The clones reach
// the remote by the relative URL ../remote.git, so that a copy works.
func buildTemplate(dir string) error {
	w := openWorld(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	a := w.tree("a")
	steps := []struct {
		dir  string
		args []string
	}{
		{dir, []string{"init", "-q", "--bare", "-b", "main", "remote.git"}},
		{dir, []string{"init", "-q", "-b", "main", "a"}},
	}
	for _, s := range steps {
		if _, err := mustGit(s.dir, s.args...); err != nil {
			return err
		}
	}
	for name, content := range map[string]string{"README.md": "code\n", "notes.txt": "notes\n"} {
		if err := os.WriteFile(filepath.Join(a, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	if res, err := hook(a, "init", "--mode", "github"); err != nil || res.code != 0 {
		return fmt.Errorf("agentx-hook init: %v %s", err, res)
	}
	for _, args := range [][]string{
		{"add", "README.md", "notes.txt", "AGENTS.md", ".agentx/agentx.toml", ".agentx/workflows", ".agentx/.gitignore"},
		{"commit", "-q", "-m", "agentx: GitHub Mode"},
		{"remote", "add", "origin", "../remote.git"},
		{"push", "-q", "-u", "origin", "main"},
	} {
		if _, err := mustGit(a, args...); err != nil {
			return err
		}
	}
	for _, n := range []string{"b", "c"} {
		if _, err := mustGit(dir, "clone", "-q", "remote.git", n); err != nil {
			return err
		}
		if _, err := mustGit(w.tree(n), "remote", "set-url", "origin", "../remote.git"); err != nil {
			return err
		}
	}
	if _, err := mustGit(a, "worktree", "add", "-q", "-b", "w", "../w"); err != nil {
		return err
	}
	// The user's own work, which no sync may touch.
	for _, n := range []string{"a", "b", "c"} {
		if err := userWork(w.tree(n), true); err != nil {
			return err
		}
	}
	return userWork(w.tree("w"), false)
}

// userWork leaves a branch, a stash, a staged and an unstaged change in
// the work tree dir.
func userWork(dir string, stash bool) error {
	appendTo := func(name, line string) error {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, err = f.WriteString(line + "\n")
		return errors.Join(err, f.Close())
	}
	if stash {
		if _, err := mustGit(dir, "branch", "feature-"+filepath.Base(dir)); err != nil {
			return err
		}
		if err := appendTo("notes.txt", "stashed"); err != nil {
			return err
		}
		if _, err := mustGit(dir, "stash", "-q"); err != nil {
			return err
		}
	}
	if err := appendTo("notes.txt", "staged"); err != nil {
		return err
	}
	if _, err := mustGit(dir, "add", "notes.txt"); err != nil {
		return err
	}
	return appendTo("README.md", "unstaged")
}

// copyTree copies the regular files, directories and symlinks under src
// into dst. Git's object files are hard-linked instead, as git clone
// --local does: git and agentx never change one in place (a new object or
// pack is written aside and renamed over), so the copies cannot reach
// each other through them, and a world is copied by every sequence and
// scenario (issue 37).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case info.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		default:
			if immutableObject(rel) && os.Link(p, target) == nil {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(target, data, info.Mode().Perm())
		}
	})
}

// immutableObject says whether rel, a path under a world, is a loose
// object (objects/XX/HASH) or a pack file (objects/pack/pack-*) of one of
// its repositories: files git writes once and never changes.
func immutableObject(rel string) bool {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	n := len(parts)
	if n < 3 || parts[n-3] != "objects" {
		return false
	}
	if parts[n-2] == "pack" {
		return strings.HasPrefix(parts[n-1], "pack-")
	}
	return len(parts[n-2]) == 2 && strings.Trim(parts[n-2], "0123456789abcdef") == "" &&
		len(parts[n-1]) >= 38 && strings.Trim(parts[n-1], "0123456789abcdef") == ""
}

// setStateBranch makes tree dir's settings those of the template with
// [github] state_branch = branch added ("" puts the template's back).
func (w *world) setStateBranch(dir, branch string) error {
	text := w.toml
	if branch != "" {
		text += "\n[github]\nstate_branch = \"" + branch + "\"\n"
	}
	return os.WriteFile(filepath.Join(dir, ".agentx", "agentx.toml"), []byte(text), 0o644)
}

// commitJunk commits content that does not parse over path p of the
// remote's branch b with plain git, as a person would from a scratch
// worktree: a temporary index on the remote itself makes the same commit
// without the checkout.
func (w *world) commitJunk(b, p string) error {
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(w.dir, "junk-index")}
	defer os.Remove(filepath.Join(w.dir, "junk-index"))
	tip, err := mustGit(w.remote, "rev-parse", "--verify", "refs/heads/"+b)
	if err != nil {
		return err
	}
	if _, err := gitEnvIn(w.remote, env, "read-tree", tip); err != nil {
		return err
	}
	blob, err := gitInput(w.remote, "not json {\n", "hash-object", "-w", "--stdin")
	if err != nil {
		return err
	}
	if _, err := gitEnvIn(w.remote, env, "update-index", "--add", "--cacheinfo", "100644,"+blob+","+p); err != nil {
		return err
	}
	tree, err := gitEnvIn(w.remote, env, "write-tree")
	if err != nil {
		return err
	}
	commit, err := gitInput(w.remote, "junk\n", "commit-tree", tree, "-p", tip)
	if err != nil {
		return err
	}
	_, err = mustGit(w.remote, "update-ref", "refs/heads/"+b, commit, tip)
	return err
}
