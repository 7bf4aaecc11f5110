// Checkpoints in a repository copied from one made once per test binary:
// create, list, show and restore, a restore refused under a live lock, a
// commit in progress and a linked worktree left alone, no repository, ids,
// and many files at once. Retention (pruning) is tested in prune_test.go.

package checkpoint

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_OPTIONAL_LOCKS=0", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func write(t testing.TB, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const ledger1 = `{"issueNumber":1,"clarifications":[{"id":"CLR-1-001","issueNumber":1,"from":"engineer","to":"architect","topic":"t","blocking":true,"status":"pending","round":1,"maxRounds":5,"created":"2026-01-01T00:00:00.000Z","staleAfter":"PT30M","resolvedAt":null,"thread":[{"round":1,"from":"engineer","type":"question","body":"q","timestamp":"2026-01-01T00:00:00.000Z"}]}]}`

const ledger1b = `{"issueNumber":1,"clarifications":[{"id":"CLR-1-001","issueNumber":1,"from":"engineer","to":"architect","topic":"t","blocking":true,"status":"answered","round":1,"maxRounds":5,"created":"2026-01-01T00:00:00.000Z","staleAfter":"PT30M","resolvedAt":null,"thread":[{"round":1,"from":"engineer","type":"question","body":"q","timestamp":"2026-01-01T00:00:00.000Z"},{"round":1,"from":"architect","type":"answer","body":"a","timestamp":"2026-01-01T00:01:00.000Z"}]},{"id":"CLR-1-002","issueNumber":1,"from":"engineer","to":"architect","topic":"u","blocking":false,"status":"pending","round":1,"maxRounds":5,"created":"2026-01-01T00:00:00.000Z","staleAfter":"PT30M","resolvedAt":null,"thread":[]}]}`

// newRepo makes a git repository with one commit and a workspace. The
// repository is a copy of one git made once per test binary (repoTemplate).
func newRepo(t testing.TB) (string, *Store) {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(repoTemplate(t))); err != nil {
		t.Fatalf("copy the repository: %v", err)
	}
	write(t, root, ".agentx/agentx.toml", "mode = \"local\"\n")
	write(t, root, ".agentx/state/clarifications/issue-1.json", ledger1)
	write(t, root, ".agentx/memory/search.idx", "derived")
	write(t, root, ".agentx/state/clarifications/issue-2.json.lock", `{"pid":1}`)
	write(t, root, ".agentx/memory/spool/x.json", "{}")
	// A wait no loaded machine runs out of between two steps of one test
	// (50 ms did, in TestPruneInBatches); the test of a held lock opens
	// its own store with a short one.
	s, err := Open(workspace.Workspace{Root: root}, lock.New(lock.Options{Wait: 10 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	s.NoSync = true
	return root, s
}

var (
	repoOnce sync.Once
	repoDir  string
)

// repoTemplate is the repository newRepo copies: git init, a README,
// one commit (made once, not in each of a dozen tests: four git
// processes each, a third of the package's; issue 37).
func repoTemplate(t testing.TB) string {
	t.Helper()
	repoOnce.Do(func() {
		dir, err := os.MkdirTemp("", "checkpoint-repo-")
		if err != nil {
			t.Fatal(err)
		}
		git(t, dir, "init", "-q", "-b", "main")
		write(t, dir, "README", "hello\n")
		git(t, dir, "add", "README")
		git(t, dir, "commit", "-qm", "first")
		repoDir = dir
	})
	if repoDir == "" {
		t.Fatal("the template repository could not be made (see the first test that asked)")
	}
	return repoDir
}

// gitState is everything of the user's that a checkpoint must not touch.
func gitState(t testing.TB, root string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(git(t, root, "status", "--porcelain", "--untracked-files=all", "--", ".", ":!.agentx"))
	b.WriteString(git(t, root, "rev-parse", "HEAD"))
	b.WriteString(git(t, root, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/tags", "refs/stash"))
	b.WriteString(git(t, root, "stash", "list"))
	gitDir := strings.TrimSpace(git(t, root, "rev-parse", "--git-dir"))
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(root, gitDir)
	}
	idx, _ := os.ReadFile(filepath.Join(gitDir, "index"))
	b.Write(idx)
	return b.String()
}

func TestCreateListShowRestore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, s := newRepo(t)
	// A stash and a staged change the checkpoint must leave alone.
	write(t, root, "README", "stashed\n")
	git(t, root, "stash", "-q")
	write(t, root, "staged.txt", "x")
	git(t, root, "add", "staged.txt")
	before := gitState(t, root)

	r1, err := s.Create(ctx, "first", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !r1.Created || r1.Files != 2 {
		t.Fatalf("first create: %+v", r1)
	}
	files := git(t, root, "ls-tree", "-r", "--name-only", Ref)
	if files != "agentx.toml\nstate/clarifications/issue-1.json\n" {
		t.Fatalf("checkpoint tree:\n%s", files)
	}
	// Nothing changed: no commit.
	r2, err := s.Create(ctx, "again", 0)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Created || r2.ID != r1.ID {
		t.Fatalf("unchanged state made a commit: %+v", r2)
	}
	write(t, root, ".agentx/state/clarifications/issue-1.json", ledger1b)
	write(t, root, ".agentx/memory/issue-1.json", `{"version":1,"issueNumber":1,"updatedAt":"2026-01-01T00:00:00.000Z","observations":[]}`)
	r3, err := s.Create(ctx, "second", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !r3.Created || r3.Blobs != 2 || r3.Read < 2 {
		t.Fatalf("second create: %+v", r3)
	}
	if got := gitState(t, root); got != before {
		t.Fatalf("user's git state changed:\nbefore %s\nafter %s", before, got)
	}
	if out := git(t, root, "fsck", "--no-dangling"); strings.Contains(out, "error") {
		t.Fatal(out)
	}
	list, err := s.List()
	if err != nil || len(list) != 2 || list[0].ID != r3.ID || list[1].Message != "first" {
		t.Fatalf("list: %+v %v", list, err)
	}

	d, err := s.Show(ctx, r1.Short)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 2 || len(d.Records) != 2 || d.Records[0].Change != Changed || d.Records[1].Change != Added ||
		!strings.Contains(d.Records[0].Detail, "status pending -> answered") {
		t.Fatalf("show: %+v", d)
	}

	dry, err := s.Restore(ctx, r1.ID[:8], true, "before restore", 0)
	if err != nil || len(dry.Written) != 1 || len(dry.Removed) != 1 {
		t.Fatalf("dry run: %+v %v", dry, err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, ".agentx/state/clarifications/issue-1.json")); string(data) != ledger1b {
		t.Fatal("dry run wrote")
	}

	res, err := s.Restore(ctx, r1.ID[:8], false, "before restore", 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Before == nil || res.Before.ID != r3.ID {
		t.Fatalf("no checkpoint before the restore (the state equals the last one): %+v", res.Before)
	}
	if data, _ := os.ReadFile(filepath.Join(root, ".agentx/state/clarifications/issue-1.json")); string(data) != ledger1 {
		t.Fatalf("not restored: %s", data)
	}
	if _, err := os.Stat(filepath.Join(root, ".agentx/memory/issue-1.json")); !os.IsNotExist(err) {
		t.Fatal("file added after the checkpoint was not removed")
	}
	if _, err := os.Stat(filepath.Join(root, ".agentx/memory/search.idx")); err != nil {
		t.Fatal("a derived file was removed")
	}
	if got := gitState(t, root); got != before {
		t.Fatalf("user's git state changed by restore:\nbefore %s\nafter %s", before, got)
	}
	// Undo: restore the checkpoint taken before.
	if _, err := s.Restore(ctx, res.Before.ID, false, "undo", 0); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, ".agentx/state/clarifications/issue-1.json")); string(data) != ledger1b {
		t.Fatalf("undo did not restore: %s", data)
	}
}

func TestRestoreRefusesLiveLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, s := newRepo(t)
	r1, err := s.Create(ctx, "first", 0)
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, ".agentx/state/clarifications/issue-1.json", ledger1b)
	other := lock.New(lock.Options{})
	lk, err := other.Acquire(ctx, filepath.Join(root, ".agentx/state/clarifications/issue-1.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lk.Release() }()
	short, err := Open(workspace.Workspace{Root: root}, lock.New(lock.Options{Wait: 50 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	short.NoSync = true
	_, err = short.Restore(ctx, r1.Short, false, "before", 0)
	if !errcode.Is(err, errcode.LockTimeout) || !strings.Contains(err.Error(), "issue-1.json") {
		t.Fatalf("err = %v, want LOCK_TIMEOUT naming the file", err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, ".agentx/state/clarifications/issue-1.json")); string(data) != ledger1b {
		t.Fatal("restore changed a file while refusing")
	}
	if list, _ := s.List(); len(list) != 1 {
		t.Fatalf("refused restore made a checkpoint: %d", len(list))
	}
}

// Checkpoints during a commit in progress (the index locked, a commit
// being prepared from another index) and in a linked worktree leave git
// alone and put objects and refs in the common directory.
func TestCommitInProgressAndLinkedWorktree(t *testing.T) {
	ctx := context.Background()
	root, s := newRepo(t)
	write(t, root, ".git/index.lock", "in progress")
	// `git commit -a` runs its hooks with GIT_INDEX_FILE naming the index
	// it prepares: neither is read or written.
	write(t, root, ".git/next-index", "prepared")
	before := gitState(t, root)
	t.Setenv("GIT_INDEX_FILE", filepath.Join(root, ".git/next-index"))
	if _, err := s.Create(ctx, "during commit", 0); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, ".git/next-index")); string(data) != "prepared" {
		t.Fatal("GIT_INDEX_FILE touched")
	}
	_ = os.Unsetenv("GIT_INDEX_FILE")
	if got := gitState(t, root); got != before {
		t.Fatal("state changed during a commit in progress")
	}
	if data, _ := os.ReadFile(filepath.Join(root, ".git/index.lock")); string(data) != "in progress" {
		t.Fatal("index.lock touched")
	}
	_ = os.Remove(filepath.Join(root, ".git/index.lock"))

	wt := filepath.Join(t.TempDir(), "wt")
	git(t, root, "worktree", "add", "-q", "-b", "side", wt)
	write(t, wt, ".agentx/agentx.toml", "mode = \"local\"\n# wt\n")
	ws, err := Open(workspace.Workspace{Root: wt}, lock.New(lock.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	wtBefore, mainBefore := gitState(t, wt), gitState(t, root)
	r, err := ws.Create(ctx, "in worktree", 0)
	if err != nil {
		t.Fatal(err)
	}
	if ws.RefName() != "refs/agentx/worktrees/wt/checkpoints" {
		t.Fatalf("ref %s", ws.RefName())
	}
	// Visible from the main work tree: objects and refs are shared.
	if got := strings.TrimSpace(git(t, root, "rev-parse", ws.RefName())); got != r.ID {
		t.Fatalf("ref in common dir: %s != %s", got, r.ID)
	}
	if gitState(t, wt) != wtBefore || gitState(t, root) != mainBefore {
		t.Fatal("git state changed by a checkpoint in a linked worktree")
	}
}

func TestNotARepository(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := Open(workspace.Workspace{Root: dir}, lock.New(lock.Options{}))
	if !errcode.Is(err, errcode.InvalidInput) {
		t.Fatalf("no git: %v", err)
	}
	bare := t.TempDir()
	git(t, bare, "init", "-q", "--bare")
	if _, err := Open(workspace.Workspace{Root: bare}, lock.New(lock.Options{})); !errcode.Is(err, errcode.InvalidInput) || !strings.Contains(err.Error(), "bare") {
		t.Fatalf("bare: %v", err)
	}
	src, _ := newRepo(t)
	git(t, src, "commit", "-q", "--allow-empty", "-m", "second")
	shallow := filepath.Join(t.TempDir(), "shallow")
	git(t, src, "clone", "-q", "--depth", "1", "file://"+src, shallow)
	if _, err := Open(workspace.Workspace{Root: shallow}, lock.New(lock.Options{})); !errcode.Is(err, errcode.InvalidInput) || !strings.Contains(err.Error(), "shallow") {
		t.Fatalf("shallow: %v", err)
	}
}

func TestGetIDs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, s := newRepo(t)
	r, err := s.Create(ctx, "x", 0)
	if err != nil {
		t.Fatal(err)
	}
	for id, code := range map[string]errcode.Code{
		r.ID[:4]: "", strings.ToUpper(r.ID[:12]): "", r.ID: "", "abc": errcode.InvalidInput,
		"zzzz": errcode.InvalidInput, "0000000": errcode.NotFound, r.ID + "0": errcode.InvalidInput,
	} {
		if strings.HasPrefix(r.ID, "0000000") && id == "0000000" {
			continue
		}
		c, err := s.Get(id)
		if code == "" && (err != nil || c.ID != r.ID) {
			t.Errorf("Get(%q) = %v, %v", id, c.ID, err)
		}
		if code != "" && !errcode.Is(err, code) {
			t.Errorf("Get(%q) err = %v, want %s", id, err, code)
		}
	}
}

func FuzzParseID(f *testing.F) {
	for _, s := range []string{"abcd", "ABCDEF0123", "", "xyz", strings.Repeat("a", 41), "12 4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseID(s)
		if err != nil {
			return
		}
		if len(p) < MinIDLen || len(p) > 40 || strings.Trim(p, "0123456789abcdef") != "" || !strings.EqualFold(p, s) {
			t.Fatalf("ParseID(%q) = %q", s, p)
		}
	})
}

// Many files: the scan, the locks and the staging run on several
// goroutines (go test -race).
func TestManyFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, s := newRepo(t)
	name := func(i int) string { return fmt.Sprintf(".agentx/memory/archive/issue-%d.json", i+1) }
	for i := range 300 {
		write(t, root, name(i), fmt.Sprintf(`["old %d"]`, i))
	}
	r, err := s.Create(ctx, "old", 0)
	if err != nil || r.Files != 302 {
		t.Fatalf("create: %+v %v", r, err)
	}
	for i := range 300 {
		write(t, root, name(i), fmt.Sprintf(`["new %d"]`, i))
	}
	res, err := s.Restore(ctx, r.ID, false, "before", 0)
	if err != nil || len(res.Written) != 300 {
		t.Fatalf("restore: %v %v", res, err)
	}
	for i := range 300 {
		if data, _ := os.ReadFile(filepath.Join(root, name(i))); string(data) != fmt.Sprintf(`["old %d"]`, i) {
			t.Fatalf("%s = %s", name(i), data)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(root, ".agentx/memory/archive/issue-*.lock")); len(m) != 0 {
		t.Fatalf("locks left: %v", m)
	}
}
