// Package checkpoint owns the checkpoints of a workspace's durable state:
// snapshots of everything under `.agentx/` that is not local-only
// (workspace.IsLocalOnly: locks, temporaries, spools, derived indexes),
// kept as a history of commits on a ref of the user's repository
// (refs/agentx/checkpoints), listed, compared with the present state and
// restored file by file.
//
// Blobs, trees and commits go straight into the object database through
// gitstore: the user's index, work tree, HEAD, branches and stash are never
// touched. A file unchanged since the last checkpoint is not read again
// (a stat cache in the git directory, checked like git's index), an
// unchanged file reuses its blob, and an unchanged state makes no commit.
package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/gitstore"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Ref is the ref holding the checkpoints of the main work tree. A linked
// work tree (git worktree add) has its own `.agentx/` files and so its own
// history, refs/agentx/worktrees/NAME/checkpoints; both live in the
// repository's common directory.
const Ref = "refs/agentx/checkpoints"

// DefaultKeep is how many checkpoints are kept when the configuration does
// not say ([checkpoints] keep).
const DefaultKeep = 50

// Author signs checkpoint commits.
var Author = gitstore.Signature{Name: "agentx", Email: "agentx@localhost"}

// Store is the checkpoint history of one workspace.
type Store struct {
	WS    workspace.Workspace
	Locks *lock.Locker
	// Now is the commit time (time.Now when nil).
	Now func() time.Time
	// NoSync skips fsync of restored files (tests only).
	NoSync bool
	// BetweenFiles, when set, runs after each file a restore wrote: tests
	// kill the process there.
	BetweenFiles func()
	// Derived, when set, names files a restore does not copy back, as they
	// are rebuilt from the others by the caller (the memory manifest from
	// the issue files); they are still kept and compared.
	Derived func(rel string) bool
	// Kept, when set, names files a restore leaves as they are now, though
	// checkpoints hold them: the audit trail, which only ever grows (rolled
	// back, it would lose the record of what happened since, the restore
	// included).
	Kept func(rel string) bool
	// Adjust, when set, turns a file's restored content (the checkpoint's)
	// into what is written, given the current one (nil: absent), under
	// the file's lock: the state files mark what the restore brings back
	// as revived, so that a merge with a copy that removed it keeps it.
	// For a file the checkpoint lacks, restored is nil and a non-nil
	// result is written instead of removing the file (a ledger keeps its
	// id high-water mark).
	Adjust func(rel string, restored, current []byte) ([]byte, error)
	// AuditHead, when set, returns the hash of the audit trail's last line
	// (its chain's head), which each new checkpoint records in an
	// Agentx-Audit-Head trailer: verify checks the trail still holds it.
	AuditHead func() string
	// RestoreID names the checkpoint being restored (set by Restore, for
	// Adjust's record of why).
	RestoreID string

	repo *gitstore.Repo
	ref  string
}

// Open returns the checkpoint store of ws. The workspace must be inside a
// git work tree with a full history: a directory outside git, a bare
// repository or a shallow clone is refused with INVALID_INPUT.
func Open(ws workspace.Workspace, locks *lock.Locker) (*Store, error) {
	r, err := gitstore.Open(ws.Root)
	if err != nil {
		var ee *errcode.Error
		if errors.As(err, &ee) && ee.Hint == "" {
			if errors.Is(err, gitstore.ErrBare) {
				ee.Hint = "a bare repository has no work tree and so no .agentx/; run agentx-hook in a clone"
			} else {
				ee.Hint = "checkpoints are commits in the workspace's git repository; run `git init` first"
			}
		}
		return nil, err
	}
	if r.Shallow() {
		return nil, errcode.Wrap(errcode.InvalidInput, gitstore.ErrShallow, "%s", r.Top).
			WithHint("run `git fetch --unshallow` first: a shallow clone may drop objects a checkpoint needs")
	}
	ref := Ref
	if r.Linked() {
		ref = "refs/agentx/worktrees/" + filepath.Base(r.GitDir) + "/checkpoints"
	}
	return &Store{WS: ws, Locks: locks, repo: r, ref: ref}, nil
}

// RefName is the ref this store's history is on.
func (s *Store) RefName() string { return s.ref }

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Checkpoint is one commit of the history.
type Checkpoint struct {
	// ID is the hash the checkpoint's commit had when it was made. It
	// stays the checkpoint's name when retention writes the commit again
	// (Commit is then another hash).
	ID      string    `json:"id"`
	Short   string    `json:"short"`
	Commit  string    `json:"commit"`
	Time    time.Time `json:"time"`
	Message string    `json:"message"`
	Tree    string    `json:"tree"`
	// AuditHead is the hash of the audit trail's last line when the
	// checkpoint was made (its Agentx-Audit-Head trailer; "" for none).
	AuditHead string `json:"auditHead,omitempty"`
	// Unaudited is set (by the caller, from the audit trail) when no
	// checkpoint.create line names this checkpoint and its tree: a commit
	// agentx did not make (git commit-tree), or whose line was lost.
	Unaudited bool `json:"unaudited,omitempty"`
}

func checkpointOf(h gitstore.Hash, c gitstore.Commit) Checkpoint {
	subject, _, _ := strings.Cut(strings.TrimSpace(c.Message), "\n")
	id := idOf(h, c)
	return Checkpoint{ID: id, Short: id[:ShortLen], Commit: h.String(), Time: c.Author.When.UTC(), Message: subject, Tree: c.Tree.String(),
		AuditHead: trailer(c.Message, headTrailer)}
}

// headTrailer carries the audit chain's head at the checkpoint's making.
const headTrailer = "Agentx-Audit-Head: "

// trailer returns the value of the message's last trailer key ("" for
// none): the last, as trailers follow the message, which may hold any
// text.
func trailer(message, key string) string {
	v := ""
	for line := range strings.Lines(message) {
		if t, ok := strings.CutPrefix(strings.TrimSpace(line), key); ok {
			v = strings.TrimSpace(t)
		}
	}
	return v
}

// idTrailer carries a checkpoint's id through the rewrites of retention.
// Without it every id would change whenever the oldest checkpoint is
// dropped, which past `keep` is at every create: the id create printed,
// the one a restore names as its undo and those in the audit trail would
// all be stale at once.
const idTrailer = "Agentx-Checkpoint-Id: "

// idOf returns the id of the checkpoint commit c (hash h): its trailer's
// when it was written again, else h.
func idOf(h gitstore.Hash, c gitstore.Commit) string {
	for line := range strings.Lines(c.Message) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), idTrailer); ok && len(v) == 40 {
			if _, err := ParseID(v); err == nil {
				return strings.ToLower(v)
			}
		}
	}
	return h.String()
}

// withIDTrailer returns c's message carrying its id (h when it has none
// yet), for writing c again under another hash.
func withIDTrailer(h gitstore.Hash, c gitstore.Commit) string {
	if idOf(h, c) != h.String() {
		return c.Message
	}
	return strings.TrimRight(c.Message, "\n") + "\n\n" + idTrailer + h.String() + "\n"
}

// ShortLen is how many hex digits a listing shows of an id.
const ShortLen = 10

// withLock runs fn holding the history's lock (one writer of the ref at a
// time: two creates racing would each build on the same parent).
func (s *Store) withLock(ctx context.Context, fn func() error) error {
	return s.Locks.With(ctx, filepath.Join(s.repo.GitDir, "agentx", "checkpoints"), func(*lock.Lock) error { return fn() })
}

// Result is what Create did.
type Result struct {
	Checkpoint
	// Created is false when the state equals the last checkpoint's: no
	// commit was made and Checkpoint is that last one.
	Created bool `json:"created"`
	// Files counts the files in the checkpoint; Read the files read (the
	// others were known by their stat data); Blobs the new blobs written.
	Files int `json:"files"`
	Read  int `json:"read"`
	Blobs int `json:"blobs"`
	// Skipped lists what was left out: symlinks and other non-regular
	// files, which are never followed.
	Skipped []string `json:"skipped"`
	// Pruned counts the oldest checkpoints dropped by retention.
	Pruned int `json:"pruned"`
}

// Create snapshots the durable state as a new checkpoint with message (its
// reason), then keeps at most keep checkpoints (0: all).
func (s *Store) Create(ctx context.Context, message string, keep int) (*Result, error) {
	var res *Result
	err := s.withLock(ctx, func() error {
		var err error
		res, err = s.create(ctx, message)
		if err != nil || keep <= 0 {
			return err
		}
		res.Pruned, err = s.prune(keep, retentionSlack(keep), "")
		return err
	})
	return res, err
}

func (s *Store) create(ctx context.Context, message string) (*Result, error) {
	tip, err := s.repo.Ref(s.ref)
	if err != nil {
		return nil, err
	}
	var parent gitstore.Commit
	var parentFiles map[string]gitstore.Entry
	known := map[gitstore.Hash]bool{}
	if !tip.IsZero() {
		if parent, err = s.repo.ReadCommit(tip); err != nil {
			return nil, s.damaged(err)
		}
		if parentFiles, err = s.repo.Files(parent.Tree); err != nil {
			return nil, err
		}
		for _, e := range parentFiles {
			known[e.Hash] = true
		}
	}
	sc, err := s.scan(ctx, known)
	if err != nil {
		return nil, err
	}
	res := &Result{Files: len(sc.files), Read: sc.read, Blobs: sc.blobs, Skipped: sc.skipped}
	files := sc.tree()
	// Only the Kept files changed (the audit trail, which records each
	// checkpoint itself): nothing a restore would put back, so no commit.
	if !tip.IsZero() && s.Kept != nil && sameExcept(parentFiles, files, s.Kept) {
		res.Checkpoint = checkpointOf(tip, parent)
		return res, nil
	}
	tree, err := s.repo.WriteTree(files)
	if err != nil {
		return nil, err
	}
	// Rewriting the cache costs more than reading a few small files again
	// next time: it is saved when what was read is worth remembering.
	// Losing it only costs time.
	if sc.read > 16 || sc.readBytes > 1<<20 {
		_ = sc.cache.Save(sc.files, time.Now())
	}
	if !tip.IsZero() && tree == parent.Tree {
		res.Checkpoint = checkpointOf(tip, parent)
		return res, nil
	}
	message = sanitize.Clean(message) // into a git commit and the audit trail
	if strings.TrimSpace(message) == "" {
		message = "checkpoint"
	}
	sig := Author
	sig.When = s.now()
	c := gitstore.Commit{Tree: tree, Author: sig,
		Message: fmt.Sprintf("%s\n\nagentx checkpoint of %d files\n", strings.TrimSpace(message), len(sc.files))}
	if s.AuditHead != nil {
		if head := s.AuditHead(); head != "" {
			c.Message += "\n" + headTrailer + head + "\n"
		}
	}
	if !tip.IsZero() {
		c.Parents = []gitstore.Hash{tip}
	}
	h, err := s.repo.WriteCommit(c)
	if err != nil {
		return nil, err
	}
	// The pending mark before the ref moves (pending.go): a kill before
	// the audit line leaves a checkpoint --repair can vouch for.
	made := checkpointOf(h, c)
	if err := s.markPending(made); err != nil {
		return nil, err
	}
	// git update-ref refs/agentx/checkpoints H TIP
	if err := s.repo.SwapRef(s.ref, h, tip); err != nil {
		s.clearPending(made.Short)
		return nil, err
	}
	res.Checkpoint, res.Created = checkpointOf(h, c), true
	return res, nil
}

// sameExcept reports whether a and b hold the same files, leaving out the
// paths skip names.
func sameExcept(a, b map[string]gitstore.Entry, skip func(string) bool) bool {
	for p, e := range a {
		if skip(p) {
			continue
		}
		if f, ok := b[p]; !ok || f != e {
			return false
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok && !skip(p) {
			return false
		}
	}
	return true
}

// List returns the checkpoints, newest first (git log --first-parent REF).
func (s *Store) List() ([]Checkpoint, error) {
	out := []Checkpoint{}
	err := s.walk(func(h gitstore.Hash, c gitstore.Commit) bool {
		out = append(out, checkpointOf(h, c))
		return true
	})
	return out, err
}

// Latest returns the newest checkpoint; ok is false when there is none.
func (s *Store) Latest() (c Checkpoint, ok bool, err error) {
	err = s.walk(func(h gitstore.Hash, cm gitstore.Commit) bool {
		c, ok = checkpointOf(h, cm), true
		return false
	})
	return c, ok, err
}

// walk visits the history from the tip, newest first, until fn says stop.
func (s *Store) walk(fn func(gitstore.Hash, gitstore.Commit) bool) error {
	h, err := s.repo.Ref(s.ref)
	if err != nil {
		return err
	}
	seen := map[gitstore.Hash]bool{}
	for !h.IsZero() && !seen[h] {
		seen[h] = true
		c, err := s.repo.ReadCommit(h)
		if err != nil {
			return s.damaged(err)
		}
		if !fn(h, c) {
			return nil
		}
		if len(c.Parents) == 0 {
			break
		}
		h = c.Parents[0]
	}
	return nil
}

// damaged is a commit of the history that cannot be read (the ref set by
// hand to a blob, an object gone): named with the ref, never repaired by
// replacing it (the history before it may be worth finding).
func (s *Store) damaged(err error) error {
	return errcode.Wrap(errcode.CorruptState, err, "%s: %v", s.ref, err).
		WithHint(fmt.Sprintf("the checkpoint history is damaged and was left as it is: point %s at a checkpoint commit with `git update-ref %s COMMIT`, or remove it (`git update-ref -d %s`) to start a new history", s.ref, s.ref, s.ref))
}

// Get returns the checkpoint id names: a hexadecimal prefix (ParseID) of
// its id or of the commit it is now, unique in the history.
func (s *Store) Get(id string) (Checkpoint, error) {
	prefix, err := ParseID(id)
	if err != nil {
		return Checkpoint{}, err
	}
	var found []Checkpoint
	err = s.walk(func(h gitstore.Hash, c gitstore.Commit) bool {
		if cp := checkpointOf(h, c); strings.HasPrefix(cp.ID, prefix) || strings.HasPrefix(cp.Commit, prefix) {
			found = append(found, cp)
		}
		return true
	})
	switch {
	case err != nil:
		return Checkpoint{}, err
	case len(found) == 0:
		return Checkpoint{}, errcode.New(errcode.NotFound, "no checkpoint %s", id).
			WithHint("`agentx-hook checkpoint list` shows the checkpoints")
	case len(found) > 1:
		return Checkpoint{}, errcode.New(errcode.InvalidInput, "checkpoint id %s is ambiguous (%d checkpoints start with it)", id, len(found)).
			WithHint("give more digits of the id")
	}
	return found[0], nil
}

// prune keeps the newest keep checkpoints, and checkpoint protect when
// named, once there are more than keep+slack: the kept commits are written
// again as a new chain whose oldest has no parent (the ref's history is
// rewritten; the dropped commits' objects are left to git gc), each
// carrying its id in a trailer.
func (s *Store) prune(keep, slack int, protect string) (int, error) {
	type item struct {
		h gitstore.Hash
		c gitstore.Commit
	}
	var all []item
	if err := s.walk(func(h gitstore.Hash, c gitstore.Commit) bool {
		if protect != "" && idOf(h, c) == protect {
			keep = max(keep, len(all)+1)
		}
		all = append(all, item{h, c})
		return true
	}); err != nil {
		return 0, err
	}
	if len(all) <= keep+slack {
		return 0, nil
	}
	tip := all[0].h
	kept := all[:keep]
	var parent gitstore.Hash
	for i := len(kept) - 1; i >= 0; i-- {
		c := kept[i].c
		c.Message = withIDTrailer(kept[i].h, c)
		c.Parents = nil
		if !parent.IsZero() {
			c.Parents = []gitstore.Hash{parent}
		}
		h, err := s.repo.WriteCommit(c)
		if err != nil {
			return 0, err
		}
		parent = h
	}
	if err := s.repo.SwapRef(s.ref, parent, tip); err != nil {
		return 0, err
	}
	return len(all) - keep, nil
}

// retentionSlack is how far past keep the history grows before its oldest
// are dropped, all at once: dropping even one rewrites every kept commit
// (a commit's hash names its parent), which at 50 checkpoints doubled the
// cost of a create (35 -> 75 ms here). A tenth of keep rewrites it once
// every keep/10 creates instead of at each.
func retentionSlack(keep int) int { return keep / 10 }

// pruneKeeping is retention (keep newest; 0: all) that never drops the
// checkpoint id: restoring the oldest one must not prune it away with the
// checkpoint the restore takes first (the history holds one more than
// keep until the next create).
func (s *Store) pruneKeeping(ctx context.Context, keep int, id string) error {
	if keep <= 0 {
		return nil
	}
	return s.withLock(ctx, func() error {
		_, err := s.prune(keep, retentionSlack(keep), id)
		return err
	})
}

// Prune keeps the newest keep checkpoints (keep >= 1) and reports how many
// were dropped. The kept ones keep their ids; their commits change (a
// commit's hash names its parent too).
func (s *Store) Prune(ctx context.Context, keep int) (int, error) {
	if keep < 1 {
		return 0, errcode.New(errcode.InvalidInput, "keep must be at least 1, not %d", keep)
	}
	var n int
	err := s.withLock(ctx, func() error {
		var err error
		n, err = s.prune(keep, 0, "")
		return err
	})
	return n, err
}
