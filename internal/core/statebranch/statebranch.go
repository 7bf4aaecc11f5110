// Package statebranch owns the local side of GitHub Mode's state branch:
// the one branch (default agentx/state) that carries the shared state
// (clarification ledgers, memory issue files and archive, and each clone's
// audit trail under a directory of its own) instead of code branches. A sync fetches the branch, merges it three-way with the files
// under .agentx/ against the last synchronised base (refs/agentx/synced),
// writes the merged files under their locks, commits the merged tree onto
// the branch and pushes it, merging again when the push loses a race.
//
// Objects, trees, commits and refs are made through gitstore (go-git's
// storage layer, which no package but gitstore imports) and never touch
// the user's index, work tree (beyond .agentx/ state files), HEAD,
// branches or stash. Only the transfer goes through the user's git
// (Transport), so fetch and push use the credentials git already has. The
// merge of one file's content is not this package's: it is injected
// (FileMerger; internal/core/statemerge provides the semantic one).
package statebranch

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/gitstore"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Defaults of the [github] settings the state branch reads.
const (
	DefaultBranch = "agentx/state"
	DefaultRemote = "origin"
	// DefaultBudget bounds the pull of `hook start` and the push of
	// `hook finish`.
	DefaultBudget = 3 * time.Second
	// DefaultRetries is how many times a push that lost a race is merged
	// and pushed again.
	DefaultRetries = 5
)

// FileMerger merges one state file three ways. path is relative to
// .agentx/ and slash-separated; nil means the file is absent on that side
// (nil merged deletes it). Any error means the file cannot be merged: it is
// reported, left as it is locally, and not pushed.
type FileMerger func(path string, base, ours, theirs []byte) (merged []byte, err error)

// Options is one sync.
type Options struct {
	// Root is the workspace root (the directory holding .agentx/), inside
	// a git work tree.
	Root string
	// Remote and Branch name the state branch (DefaultRemote,
	// DefaultBranch when empty).
	Remote, Branch string
	// Merge merges a file changed on both sides. Required.
	Merge FileMerger
	// Valid reports whether a state file's content parses (nil: it does).
	// Nothing that does not parse is pushed, and nothing that does not
	// parse replaces a local file. Required.
	Valid func(path string, data []byte) error
	// Lost names what sides hold that result lost without a tombstone
	// saying it was removed (records, observations). A file whose merge
	// lost anything is neither written nor pushed, and the sync fails
	// naming it: the guard behind the merge's own rules. Required.
	Lost func(path string, result []byte, sides ...[]byte) ([]string, error)
	// Locks serialises writes with every other writer of the state files.
	Locks *lock.Locker
	// Transport fetches and pushes (GitCLI{Dir: Root} when nil).
	Transport Transport
	// PullOnly fetches and merges into .agentx/ but commits nothing;
	// PushOnly does not fetch first (it still merges what the last fetch
	// brought, and fetches when the push is refused).
	PullOnly, PushOnly bool
	// InitFrom, when set, first merges the state files committed in that
	// revision (under .agentx/) into the local ones: the migration of a
	// repository that kept its ledgers on its default branch.
	InitFrom string
	// Author and Email sign the commits ("agentx", "agentx@localhost").
	Author, Email string
	// Now is the commit time (time.Now when nil).
	Now func() time.Time
	// Retries bounds merges after a lost push race (DefaultRetries when 0).
	Retries int
	// NoSync skips fsync of written files (tests only).
	NoSync bool
	// First, when set, names the files settled before every other (rel
	// to .agentx/): the hook's own issue's ledger and memory file, so a
	// fresh clone's first pull cut short by its budget has brought what
	// this agent works on.
	First func(rel string) bool
	// Wrote, when set, is told of each local file the sync created,
	// replaced or removed (after nil), with its content before (nil: it
	// did not exist); rel is relative to .agentx/. The audit trail records
	// it. It runs under the file's lock: it must be quick.
	Wrote func(rel string, before, after []byte)
	// Writing, when set, is told of each local write just before it is
	// made (the same arguments as Wrote, under the same lock): a write
	// the process does not live to audit is then known to its repair
	// (statesync marks memory issue files with their audit line).
	Writing func(rel string, before, after []byte)

	// racyMargin and fullScanAge, when non-zero, replace the clean
	// record's timing (clean.go) for this sync: tests, which must not
	// wait seconds, shorten them per sync (export_test.go), not for the
	// whole package, so that they still run in parallel.
	racyMargin, fullScanAge time.Duration
}

// Sync runs one sync of the state branch. Only one sync runs at a time
// in a repository (a lock beside its refs).
func Sync(ctx context.Context, opt Options) (*Result, error) {
	if opt.Merge == nil || opt.Locks == nil || opt.Valid == nil || opt.Lost == nil {
		return nil, errors.New("statebranch: Merge, Valid, Lost and Locks are required")
	}
	if opt.Remote == "" {
		opt.Remote = DefaultRemote
	}
	if opt.Branch == "" {
		opt.Branch = DefaultBranch
	}
	if opt.Retries <= 0 {
		opt.Retries = DefaultRetries
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Author == "" {
		opt.Author, opt.Email = "agentx", "agentx@localhost"
	}
	if !validBranch(opt.Branch) || !validBranch(opt.Remote) {
		return nil, errcode.New(errcode.InvalidInput, "invalid state branch %q or remote %q", opt.Branch, opt.Remote)
	}
	top, r, err := openRepo(opt.Root)
	if err != nil {
		return nil, err
	}
	if opt.Transport == nil {
		opt.Transport = GitCLI{Dir: top}
	}
	rel, err := filepath.Rel(top, opt.Root)
	if err != nil {
		return nil, fmt.Errorf("workspace %s outside %s: %w", opt.Root, top, err)
	}
	if rf, ok := opt.Transport.(Refetcher); ok {
		// A partial or treeless clone: the objects its filter left out.
		r.Missing = func() error {
			return rf.Refetch(ctx, opt.Remote, opt.Branch, "refs/remotes/"+opt.Remote+"/"+opt.Branch)
		}
	}
	s := &syncer{opt: opt, r: r, agentxDir: filepath.Join(opt.Root, workspace.Dir),
		prefix: strings.TrimPrefix(filepath.ToSlash(filepath.Join(rel, workspace.Dir))+"/", "./"),
		res: &Result{Remote: opt.Remote, Branch: opt.Branch,
			Seeded: []string{}, Merged: []string{}, Written: []string{}, Conflicts: []Conflict{},
			Restored: []string{}, Corrupt: []Corrupt{}}}
	err = opt.Locks.With(ctx, filepath.Join(r.CommonDir, "agentx-sync"), func(*lock.Lock) error {
		return s.run(ctx)
	})
	return s.res, err
}

// validBranch refuses names git would read as options or revisions.
func validBranch(name string) bool {
	return name != "" && !strings.HasPrefix(name, "-") && !strings.ContainsAny(name, " ~^:?*[\\\x00\t\n") &&
		!strings.Contains(name, "..") && !strings.HasSuffix(name, "/") && !strings.HasSuffix(name, ".lock")
}

// openRepo opens the git repository of the workspace at root and returns
// its work tree's top; gitstore.ErrNotRepository when root is not inside a
// git work tree.
func openRepo(root string) (string, *gitstore.Repo, error) {
	top, err := gitTop(root)
	if err != nil {
		return "", nil, err
	}
	r, err := gitstore.Open(top)
	return top, r, err
}

// gitTop walks up from root to the directory holding .git.
func gitTop(root string) (string, error) {
	top, err := gitstore.Top(root)
	var ee *errcode.Error
	if errors.As(err, &ee) {
		ee.Hint = "the state branch needs the workspace to be a git clone with a remote (git clone URL); or set mode = \"local\" in .agentx/agentx.toml"
	}
	return top, err
}

// syncedRef is SyncedRef for the main work tree; a linked work tree
// (git worktree add) has its own .agentx/ files and so its own base, named
// after the worktree and an id kept in its private git directory. `git
// worktree remove` deletes that directory, so a worktree added again under
// the same name starts without a base instead of inheriting the old one's
// (whose files it does not have).
func (s *syncer) syncedRef() string { return s.baseRef }

func (s *syncer) setSyncedRef() error {
	s.baseRef = SyncedRef
	if !s.r.Linked() {
		return nil
	}
	id, err := worktreeID(s.r.GitDir)
	if err != nil {
		return err
	}
	s.baseRef = "refs/agentx/worktrees/" + filepath.Base(s.r.GitDir) + "-" + id + "/synced"
	return nil
}

type syncer struct {
	opt       Options
	r         *gitstore.Repo
	agentxDir string
	prefix    string // .agentx/ as a path in the commits of the code branches
	// trail is this clone's trail directory on the branch, with its final
	// slash ("" for none).
	trail   string
	baseRef string
	// theirsTip is the remote tip the current round merges.
	theirsTip gitstore.Hash
	res       *Result
	// snap is the snapshot of the state directories the current round's
	// scan started from (see clean.go).
	snap *taken
}

func (s *syncer) tracking() string { return "refs/remotes/" + s.opt.Remote + "/" + s.opt.Branch }

func (s *syncer) run(ctx context.Context) error {
	baseTip, err := s.prepare(ctx)
	if err != nil {
		return err
	}
	fetch := !s.opt.PushOnly
	if s.opt.InitFrom == "" {
		done, fetched, err := s.fastPath(ctx, baseTip)
		if done || err != nil {
			return err
		}
		fetch = fetch && !fetched
	}
	// From here on the local files may change: the record goes until a
	// round ends clean.
	if err := s.dropClean(); err != nil {
		return err
	}
	base, err := s.treeFiles(baseTip)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		theirsTip, theirs, err := s.theirs(ctx, fetch)
		if err != nil {
			return err
		}
		s.theirsTip = theirsTip
		if attempt == 0 {
			s.res.Diverged = s.divergence(baseTip, theirsTip)
		}
		rd, err := s.merge(ctx, base, theirs)
		if err != nil {
			return err
		}
		if d := s.res.Diverged; d != nil {
			d.Kept = keptFiles(theirs, rd.tree, s.owned)
		}
		s.res.Tip = hashString(theirsTip)
		// The local files now hold theirs merged in: theirs is the base
		// of the next merge, whatever happens to the push.
		if err := s.setBase(theirsTip, theirs, rd.keepBase); err != nil {
			return err
		}
		// A fetch that found no branch on the remote creates it, empty
		// when there is no state yet: the first sync of a fresh GitHub
		// Mode workspace leaves a branch others can fetch (issue 37).
		create := s.res.Fetches > 0 && theirsTip.IsZero() && !s.res.RemoteExists
		if !rd.changed && !create {
			s.saveClean(theirsTip, rd)
			return nil
		}
		if s.opt.PullOnly {
			return nil
		}
		retry, err := s.publish(ctx, theirsTip, rd, attempt)
		if !retry {
			return err
		}
		s.res.Retries++
		raceBackoff(ctx, attempt)
		base, fetch = withBase(theirs, rd.keepBase), true
	}
}

// raceBackoff waits before the round after a lost push race, a random
// time up to 100 ms doubled per race lost (at most 1.6 s), and never past
// ctx's end (a hook's budget): clones that lost a race to each other and
// went again at once would meet again, and give up after Retries rounds
// more often (TestRacingClonesLoseNothing, 5 clones: 20-25% of syncs gave
// up without the wait, 8-12% with it; issue 38).
func raceBackoff(ctx context.Context, attempt int) {
	limit := min(100*time.Millisecond<<attempt, 1600*time.Millisecond)
	t := time.NewTimer(rand.N(limit))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// prepare reads the trail and base settings, seeds from --init-from, and
// returns the last synchronised base.
func (s *syncer) prepare(ctx context.Context) (gitstore.Hash, error) {
	if err := s.setTrail(); err != nil {
		return gitstore.ZeroHash, err
	}
	if err := s.setSyncedRef(); err != nil {
		return gitstore.ZeroHash, err
	}
	if s.opt.InitFrom != "" {
		if err := s.dropClean(); err != nil {
			return gitstore.ZeroHash, err
		}
		if err := s.seed(ctx, s.opt.InitFrom); err != nil {
			return gitstore.ZeroHash, err
		}
	}
	base, err := s.r.Ref(s.syncedRef())
	if err != nil || base.IsZero() {
		return base, err
	}
	// The base is derived (this clone's last sync): one that names no
	// readable commit (a hand edit, a pruned object) would fail every sync
	// for good. Merged without it, as after a deleted branch, nothing is
	// lost (what was removed on purpose has its tombstone), and the sync
	// sets it anew.
	_, err = s.r.CommitTree(base)
	if err == nil {
		return base, nil
	}
	if gitstore.IsObjectNotFound(err) {
		// git's own fetch stops at a ref naming no object ("bad object"):
		// the ref goes (this sync writes it anew), or no sync could run.
		if rerr := s.r.RemoveRef(s.syncedRef()); rerr != nil {
			return gitstore.ZeroHash, rerr
		}
	}
	s.res.Notes = append(s.res.Notes, fmt.Sprintf("the last merge base %s (%.10s) cannot be read (%v): merged as a union this time; this sync sets it anew",
		s.syncedRef(), base.String(), err))
	return gitstore.ZeroHash, nil
}

// publish commits rd on theirsTip and pushes it; retry is true when the
// push lost a race and another round may run.
func (s *syncer) publish(ctx context.Context, theirsTip gitstore.Hash, rd *round, attempt int) (retry bool, err error) {
	commit, err := s.commit(theirsTip, rd)
	if err != nil {
		return false, err
	}
	err = s.push(ctx, commit)
	if errors.Is(err, ErrNonFastForward) {
		if attempt < s.opt.Retries {
			return true, nil
		}
		e := errcode.Wrap(errcode.AgentError, err, "push %s to %s: lost %d races in a row", s.opt.Branch, s.opt.Remote, attempt+1).
			WithHint("other agents are pushing the state branch right now; the local files hold everything merged so far, run `agentx-hook sync` again")
		if le := (*lockedError)(nil); errors.As(err, &le) {
			// Every retry found the lock: more likely one a push killed
			// on the remote's side left (a crash of a machine serving a
			// bare repository) than a push landing each time. Syncing
			// again cannot help while it stays.
			e.Hint = fmt.Sprintf("the remote's ref lock %s stayed through every retry: a push killed on the remote's side leaves it. If no push to %s is running there, remove that file on the remote, then run `agentx-hook sync` again; the local files hold everything merged so far", le.lock, s.opt.Branch)
		}
		return false, e
	}
	if err != nil {
		return false, err
	}
	s.res.Commit, s.res.Pushed, s.res.Tip = commit.String(), true, commit.String()
	s.res.Created = theirsTip.IsZero()
	if err := s.r.SetRef(s.tracking(), commit); err != nil {
		return false, err
	}
	if err := s.setBase(commit, rd.tree, rd.keepBase); err != nil {
		return false, err
	}
	s.saveClean(commit, rd)
	return false, nil
}

// refLockPatience bounds the wait for another git's lock on the tracking
// ref: past a second an unheld lock is stale, so this covers a live git
// finishing and a dead one's lock aging.
const refLockPatience = 2 * time.Second

func hashString(h gitstore.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}

// treeFiles flattens the tree of commit h (empty for ZeroHash).
func (s *syncer) treeFiles(h gitstore.Hash) (map[string]gitstore.Entry, error) {
	if h.IsZero() {
		return map[string]gitstore.Entry{}, nil
	}
	t, err := s.r.CommitTree(h)
	if err != nil {
		return nil, err
	}
	return s.r.Files(t)
}

// ErrWouldLose is a merge whose result lacks what a side holds, with no
// tombstone saying it was removed: nothing is written or pushed.
var ErrWouldLose = errors.New("the merge would lose records without a tombstone")

// localBaseMessage starts the message of a local merge base commit.
const localBaseMessage = "agentx: local merge base"

func (s *syncer) signature() gitstore.Signature {
	return gitstore.Signature{Name: s.opt.Author, Email: s.opt.Email, When: s.opt.Now()}
}

// commit writes rd's tree and a commit of it on top of parent (none: the
// first commit of an orphan history).
func (s *syncer) commit(parent gitstore.Hash, rd *round) (gitstore.Hash, error) {
	tree, err := s.r.WriteTree(rd.tree)
	if err != nil {
		return gitstore.ZeroHash, err
	}
	var parents []gitstore.Hash
	if !parent.IsZero() {
		parents = []gitstore.Hash{parent}
	}
	host, _ := os.Hostname()
	msg := fmt.Sprintf("agentx sync from %s\n\nmerged %d, written locally %d, unmerged %d\n",
		host, len(s.res.Merged), len(s.res.Written), len(s.res.Conflicts))
	return s.r.WriteCommit(gitstore.Commit{Tree: tree, Parents: parents, Author: s.signature(), Message: msg})
}
