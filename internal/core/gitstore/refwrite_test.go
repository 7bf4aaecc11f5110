package gitstore

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

func newRepo(t *testing.T) *Repo {
	t.Helper()
	root := t.TempDir()
	git(t, root, "init", "-q")
	r, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func commitOf(t *testing.T, r *Repo, n int) plumbing.Hash {
	t.Helper()
	tree, err := r.WriteTree(nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := r.WriteCommit(Commit{Tree: tree, Author: Signature{Name: "a", Email: "a@b", When: time.Unix(int64(n), 0)},
		Message: fmt.Sprintf("c%d\n", n)})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// A ref update goes through NAME.lock and leaves a reflog line, as git's
// does; a lock held by someone else stops it, a stale one is taken over.
func TestRefUpdateIsGitsProtocol(t *testing.T) {
	r := newRepo(t)
	const name = "refs/agentx/test"
	c1, c2 := commitOf(t, r, 1), commitOf(t, r, 2)
	if err := r.SetRef(name, c1); err != nil {
		t.Fatal(err)
	}
	if err := r.SwapRef(name, c2, c1); err != nil {
		t.Fatal(err)
	}
	if err := r.SwapRef(name, c1, c1); !errors.Is(err, ErrRefMoved) {
		t.Fatalf("swap from a stale old value: %v", err)
	}
	if got := strings.TrimSpace(git(t, r.Top, "rev-parse", name)); got != c2.String() {
		t.Fatalf("git reads %s, want %s", got, c2)
	}
	logs, err := r.Reflogs("refs/agentx/")
	if err != nil || len(logs[name]) != 3 || logs[name][2] != c2 {
		t.Fatalf("reflog %v %v", logs, err)
	}
	lock := filepath.Join(r.CommonDir, name+".lock")
	if err := os.WriteFile(lock, []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Held (flocked) by a live agentx process: waited for, then refused.
	holder, err := os.Open(lock)
	if err != nil || !tryFlock(holder) {
		t.Fatal("flock", err)
	}
	// Any wait shows it: the holder keeps the lock throughout. The test
	// runs alone (it sets the package's wait), so the wait is the whole
	// package's (300 ms before, issue 37).
	refLockWait = 30 * time.Millisecond
	defer func() { refLockWait = 3 * time.Second }()
	aged := time.Now().Add(-2 * time.Second)
	_ = os.Chtimes(lock, aged, aged)
	if err := r.SetRef(name, c1); !errors.Is(err, ErrRefLocked) {
		t.Fatalf("with a live lock: %v", err)
	}
	_ = holder.Close()
	if h, _ := r.Ref(name); h != c2 {
		t.Fatalf("ref changed under a lock: %s", h)
	}
	// Left by a killed writer: nobody flocks it; past a second it is
	// taken over (a SIGKILLed checkpoint create must not block the next).
	old := time.Now().Add(-2 * time.Second)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	if err := r.SetRef(name, c1); err != nil {
		t.Fatalf("a stale lock is taken over: %v", err)
	}
}

// A writer SIGKILLed at any instant leaves the ref naming one of the
// commits it was given, never an empty or torn file (go-git's own write
// truncated the file first: a kill between left it empty). Each kill
// lands while the writer loops: it says when it has moved the ref once,
// and is killed 0-1.9 ms later (a write is tens of microseconds), not at
// a fixed time after its start, which on a loaded machine fell before
// its first write.
func TestRefSurvivesSIGKILL(t *testing.T) {
	t.Parallel()
	if dir := os.Getenv("AGENTX_REFWRITER"); dir != "" {
		refWriterChild(dir)
		return
	}
	r := newRepo(t)
	const name = "refs/agentx/checkpoints"
	var commits []plumbing.Hash
	for i := range 8 {
		commits = append(commits, commitOf(t, r, i))
	}
	if err := r.SetRef(name, commits[0]); err != nil {
		t.Fatal(err)
	}
	valid := map[plumbing.Hash]bool{}
	for _, c := range commits {
		valid[c] = true
	}
	kills := 60
	for i := range kills {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRefSurvivesSIGKILL$")
		cmd.Env = append(os.Environ(), "AGENTX_REFWRITER="+r.Top, "AGENTX_REFWRITER_COMMITS="+hashList(commits))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if line != refWriterReady {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("kill %d: the writer did not start writing: %q %v", i, line, err)
		}
		time.Sleep(time.Duration(i%20) * 100 * time.Microsecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		_ = os.Remove(filepath.Join(r.CommonDir, name+".lock")) // as the stale-lock takeover would, later
		data, err := os.ReadFile(filepath.Join(r.CommonDir, name))
		if err != nil {
			t.Fatalf("kill %d: the ref is gone: %v", i, err)
		}
		h := plumbing.NewHash(strings.TrimSpace(string(data)))
		if !valid[h] {
			t.Fatalf("kill %d: the ref holds %q", i, data)
		}
	}
}

// refWriterReady is what the writer prints once it has moved the ref.
const refWriterReady = "writing\n"

// hashList is commits as the writer reads them from its environment.
func hashList(commits []plumbing.Hash) string {
	ids := make([]string, len(commits))
	for i, c := range commits {
		ids[i] = c.String()
	}
	return strings.Join(ids, " ")
}

// refWriterChild moves the ref through the commits the parent made (named
// in its environment: a git rev-list in each of the 60 writers was a
// third of the package's processes, issue 37), for ever, until it is
// killed.
func refWriterChild(dir string) {
	r, err := Open(dir)
	if err != nil {
		os.Exit(3)
	}
	var commits []plumbing.Hash
	for _, l := range strings.Fields(os.Getenv("AGENTX_REFWRITER_COMMITS")) {
		commits = append(commits, plumbing.NewHash(l))
	}
	if len(commits) == 0 {
		os.Exit(4)
	}
	for i := 0; ; i++ {
		_ = r.SetRef("refs/agentx/checkpoints", commits[i%len(commits)])
		if i == 0 {
			_, _ = os.Stdout.WriteString(refWriterReady)
		}
	}
}
