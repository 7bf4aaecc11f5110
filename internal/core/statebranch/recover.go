package statebranch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/gitstore"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// RecoverOptions is one search of the history for lost state.
type RecoverOptions struct {
	// Root is the workspace root, inside a git work tree.
	Root string
	// Branch names the state branch (DefaultBranch when empty); its copy
	// under every remote is read (a changed remote leaves the old one's
	// refs behind).
	Branch string
	// Since, when set, reads only commits made at or after it.
	Since time.Time
	// Merge unions a historical version into the current file; it is
	// called as Merge(path, nil, current, historical). Valid checks a
	// version parses; Live lists the records or observations a version
	// holds and no tombstone removed. All three are required.
	Merge FileMerger
	Valid func(path string, data []byte) error
	Live  func(path string, data []byte) ([]string, error)
	Locks *lock.Locker
	// DryRun finds and reports, and writes nothing.
	DryRun bool
	// NoSync skips fsync of written files (tests only).
	NoSync bool
	// Progress, when set, is told how many files of how many were done.
	Progress func(done, total int)
	// Wrote is told of each local file written (see Options.Wrote).
	Wrote func(rel string, before, after []byte)
	// Writing is told of each just before it is written (see
	// Options.Writing).
	Writing func(rel string, before, after []byte)
}

// Recovered is what came back in one file.
type Recovered struct {
	Path string   `json:"path"`
	IDs  []string `json:"ids"`
	// From lists the commits (shortest first) whose versions held them.
	From []string `json:"from"`
}

// RecoverResult says what a recovery read and brought back.
type RecoverResult struct {
	// Sources are the refs and reflogs the history was read from.
	Sources []string `json:"sources"`
	// Commits and Versions count the commits read and the distinct file
	// versions among them; Unparsable the versions that did not parse
	// (skipped).
	Commits    int `json:"commits"`
	Versions   int `json:"versions"`
	Unparsable int `json:"unparsable"`
	// Recovered lists, per file, the records and observations present
	// somewhere in the history, missing now without a tombstone, and
	// brought back (only listed with DryRun).
	Recovered []Recovered `json:"recovered"`
	// Skipped lists local files that do not parse: nothing was merged
	// into them.
	Skipped []string `json:"skipped"`
	DryRun  bool     `json:"dryRun"`
}

// Recover finds every record and observation that the state branch's
// history, the reflogs of its remote-tracking ref, the sync bases and the
// checkpoints hold and that the local state files lack without a tombstone,
// and brings them back into the local files (a union: nothing local is
// removed or changed but for what comes back). A sync then pushes them.
func Recover(ctx context.Context, opt RecoverOptions) (*RecoverResult, error) {
	if opt.Merge == nil || opt.Valid == nil || opt.Live == nil || opt.Locks == nil {
		return nil, errors.New("statebranch: Recover needs Merge, Valid, Live and Locks")
	}
	if opt.Branch == "" {
		opt.Branch = DefaultBranch
	}
	_, r, err := openRepo(opt.Root)
	if err != nil {
		return nil, err
	}
	res := &RecoverResult{Sources: []string{}, Recovered: []Recovered{}, Skipped: []string{}, DryRun: opt.DryRun}
	tips, err := recoverySources(r, opt.Branch, res)
	if err != nil {
		return nil, err
	}
	versions, err := historyVersions(ctx, r, tips, opt.Since, res)
	if err != nil {
		return nil, err
	}
	agentxDir := filepath.Join(opt.Root, workspace.Dir)
	paths := make([]string, 0, len(versions))
	for p := range versions {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for i, p := range paths {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if err := recoverFile(ctx, r, &opt, agentxDir, p, versions[p], res); err != nil {
			return res, err
		}
		if opt.Progress != nil {
			opt.Progress(i+1, len(paths))
		}
	}
	return res, nil
}

// recoverySources lists the commits to start the walk from: the remote
// tracking refs of the branch (under any remote), the local branch of
// that name, refs/agentx/ (sync bases, checkpoints), and what their
// reflogs held.
func recoverySources(r *gitstore.Repo, branch string, res *RecoverResult) ([]gitstore.Hash, error) {
	refs, err := r.Refs("refs/remotes/", "refs/heads/"+branch, "refs/agentx/")
	if err != nil {
		return nil, err
	}
	var tips []gitstore.Hash
	seen := map[gitstore.Hash]bool{}
	add := func(src string, h gitstore.Hash) {
		if h.IsZero() || seen[h] || !r.Has(h) {
			return
		}
		seen[h] = true
		tips = append(tips, h)
		if n := len(res.Sources); n == 0 || res.Sources[n-1] != src {
			res.Sources = append(res.Sources, src)
		}
	}
	relevant := func(name string) bool {
		return strings.HasPrefix(name, "refs/agentx/") || name == "refs/heads/"+branch ||
			strings.HasPrefix(name, "refs/remotes/") && strings.HasSuffix(name, "/"+branch)
	}
	names := make([]string, 0, len(refs))
	for n := range refs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if relevant(n) {
			add(n, refs[n])
		}
	}
	logs, err := r.Reflogs("refs/remotes/", "refs/heads/"+branch, "refs/agentx/")
	if err != nil {
		return nil, err
	}
	names = names[:0]
	for n := range logs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if relevant(n) {
			for _, h := range logs[n] {
				add("reflog "+n, h)
			}
		}
	}
	return tips, nil
}

// version is one distinct content of a state path in the history.
type histVersion struct {
	blob   gitstore.Hash
	commit gitstore.Hash
	when   time.Time
}

// historyVersions walks the commits reachable from tips and collects,
// per state path, each distinct blob (newest first).
func historyVersions(ctx context.Context, r *gitstore.Repo, tips []gitstore.Hash, since time.Time, res *RecoverResult) (map[string][]histVersion, error) {
	out := map[string][]histVersion{}
	seenBlob := map[string]bool{}
	seenTree := map[gitstore.Hash]bool{}
	seen := map[gitstore.Hash]bool{}
	queue := append([]gitstore.Hash(nil), tips...)
	for _, h := range tips {
		seen[h] = true
	}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h := queue[0]
		queue = queue[1:]
		c, err := r.ReadCommit(h)
		if err != nil {
			continue // a reflog may name a commit gc removed, or a non-commit
		}
		when := c.Committer.When
		if when.IsZero() {
			when = c.Author.When
		}
		if !since.IsZero() && when.Before(since) {
			continue
		}
		res.Commits++
		for _, p := range c.Parents {
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
		if seenTree[c.Tree] {
			continue
		}
		seenTree[c.Tree] = true
		files, err := r.Files(c.Tree)
		if err != nil {
			continue
		}
		for p, e := range files {
			if !IsStatePath(p) || seenBlob[p+"\x00"+e.Hash.String()] {
				continue
			}
			seenBlob[p+"\x00"+e.Hash.String()] = true
			out[p] = append(out[p], histVersion{blob: e.Hash, commit: h, when: when})
			res.Versions++
		}
	}
	for _, vs := range out {
		// Newest first; commits of one second keep the walk's order,
		// which from the tips is newest first too.
		sort.SliceStable(vs, func(i, j int) bool { return vs[i].when.After(vs[j].when) })
	}
	return out, nil
}

// recoverFile unions the historical versions of p into the local file,
// under its lock.
func recoverFile(ctx context.Context, r *gitstore.Repo, opt *RecoverOptions, agentxDir, p string, versions []histVersion, res *RecoverResult) error {
	abs := filepath.Join(agentxDir, filepath.FromSlash(p))
	return atomicfile.WithLock(ctx, opt.Locks, abs, func(lk *lock.Lock) error {
		cur, err := atomicfile.ReadState(abs)
		inLocal := err == nil
		if errors.Is(err, atomicfile.ErrNotRegular) || inLocal && opt.Valid(p, cur) != nil {
			res.Skipped = append(res.Skipped, p)
			return nil
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("read %s: %w", abs, err)
		}
		if !inLocal {
			cur = nil
		}
		before, err := liveSet(opt, p, cur)
		if err != nil {
			return err
		}
		merged, from, err := unionHistory(r, opt, p, cur, versions, before, res)
		if err != nil {
			return err
		}
		rec, err := recovered(opt, p, merged, before, from)
		if err != nil || rec == nil {
			return err
		}
		res.Recovered = append(res.Recovered, *rec)
		if opt.DryRun {
			return nil
		}
		if opt.Writing != nil {
			opt.Writing(p, cur, merged)
		}
		if err := atomicfile.Write(abs, merged, atomicfile.Options{Commit: lk.Commit, NoSync: opt.NoSync}); err != nil {
			return err
		}
		if opt.Wrote != nil {
			opt.Wrote(p, cur, merged)
		}
		return nil
	})
}

// unionHistory merges into cur (nil: absent) the historical versions of p
// that hold a record or observation cur lacks, newest first, so what comes
// back is its newest version; from names, for each id not in before, the
// oldest commit whose version held it. A version holding nothing cur lacks
// (nor that a newer version did not already bring back) is not merged:
// the records that still exist are never merged with superseded versions
// of themselves (an edited topic, an older status), and a file edited a
// thousand times costs a thousand parses, not a thousand merges of a
// growing result.
func unionHistory(r *gitstore.Repo, opt *RecoverOptions, p string, cur []byte, versions []histVersion, before map[string]bool, res *RecoverResult) ([]byte, map[string]string, error) {
	merged := cur
	curHash := gitstore.BlobHash(cur)
	from := map[string]string{}
	back := map[string]bool{} // ids a newer version brought back
	for _, v := range versions {
		if cur != nil && v.blob == curHash {
			continue
		}
		data, err := r.Blob(v.blob)
		if err != nil || opt.Valid(p, data) != nil {
			res.Unparsable++
			continue
		}
		ids, err := opt.Live(p, data)
		if err != nil {
			return nil, nil, err
		}
		fresh := false
		for _, id := range ids {
			if before[id] {
				continue
			}
			from[id] = v.commit.String() // newest first: the oldest is written last
			if !back[id] {
				back[id], fresh = true, true
			}
		}
		if !fresh {
			continue
		}
		if merged, err = opt.Merge(p, nil, merged, data); err != nil {
			return nil, nil, fmt.Errorf("recover %s: merge the version of %s: %w", p, v.commit, err)
		}
	}
	return merged, from, nil
}

// recovered is what merged holds that before did not (nil: nothing).
func recovered(opt *RecoverOptions, p string, merged []byte, before map[string]bool, from map[string]string) (*Recovered, error) {
	after, err := liveSet(opt, p, merged)
	if err != nil {
		return nil, err
	}
	rec := &Recovered{Path: p, IDs: []string{}, From: []string{}}
	commits := map[string]bool{}
	for id := range after {
		if before[id] {
			continue
		}
		rec.IDs = append(rec.IDs, id)
		if c := from[id]; c != "" && !commits[c] {
			commits[c] = true
			rec.From = append(rec.From, c)
		}
	}
	if len(rec.IDs) == 0 {
		return nil, nil
	}
	sort.Strings(rec.IDs)
	sort.Strings(rec.From)
	return rec, nil
}

func liveSet(opt *RecoverOptions, p string, data []byte) (map[string]bool, error) {
	set := map[string]bool{}
	if data == nil {
		return set, nil
	}
	ids, err := opt.Live(p, data)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		set[id] = true
	}
	return set, nil
}
