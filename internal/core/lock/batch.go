package lock

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Batch takes the many locks of one operation (a checkpoint restore locks
// every file it puts back). Its locks in one directory are hard links to
// one staged lock file instead of one staged file each, so a thousand
// locks cost one new inode, not a thousand. That matters more than it
// seems: ext4 without a journal (the CI machines) will not reuse an inode
// freed in the last minutes, and each new inode costs a scan past all of
// those; a restore of 2,000 files spent most of its time there.
//
// The locks are ordinary lock files to everyone else: same content rules,
// taken over and released one path at a time. They share their content,
// which is still unique to this batch (its nonce), and a content is renewed
// every second so that the lock taken last is not older than it looks.
type Batch struct {
	l      *Locker
	mu     sync.Mutex
	gen    *stagedGen
	closed bool
}

// stagedGen is one content and the staged files that hold it, by directory.
type stagedGen struct {
	content []byte
	born    time.Time
	files   map[string]string
}

// batchRenewAfter is how long one content serves a batch: a lock linked
// later than this gets a new one, so no lock claims to be more than a
// second older than it is (against a stale threshold of 30 s).
const batchRenewAfter = time.Second

// Batch starts a batch of locks. Close it once its locks are taken: the
// locks stay held, only the staged files go.
func (l *Locker) Batch() *Batch { return &Batch{l: l} }

// Acquire is Locker.Acquire within the batch.
func (b *Batch) Acquire(ctx context.Context, target string) (*Lock, error) {
	return b.l.acquire(ctx, target, b)
}

// Close removes the batch's staged files. Locks taken stay held.
func (b *Batch) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	b.dropLocked()
}

func (b *Batch) dropLocked() {
	if b.gen == nil {
		return
	}
	for _, f := range b.gen.files {
		_ = os.Remove(f)
	}
	b.gen = nil
}

// link creates the lock file path as a link to the batch's staged file of
// its directory; ok=false when the lock exists. Like createExclusive it
// falls back to O_EXCL and write where hard links are not supported.
func (b *Batch) link(path string) (content []byte, ok bool, err error) {
	dir := filepath.Dir(path)
	for attempt := 0; ; attempt++ {
		staged, content, err := b.staged(dir, attempt > 0)
		if err != nil {
			return nil, false, err
		}
		err = os.Link(staged, path)
		switch {
		case err == nil:
			return content, true, nil
		case errors.Is(err, fs.ErrExist):
			return content, false, nil
		case errors.Is(err, fs.ErrNotExist):
			// The staged file went (swept as a dead writer's after a
			// very long pause): stage it again, once.
			if attempt == 0 {
				continue
			}
			return nil, false, err
		}
		ok, err := createOpenExclusive(path, content)
		return content, ok, err
	}
}

// staged returns the staged lock file of dir and its content, staging it
// (under a renewed content when the current one is old) if need be;
// again drops a staged file that went missing.
func (b *Batch) staged(dir string, again bool) (string, []byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return "", nil, errors.New("lock batch used after Close")
	}
	now := b.l.opt.Clock.Now()
	if b.gen != nil && now.Sub(b.gen.born) > batchRenewAfter {
		b.dropLocked()
	}
	if b.gen == nil {
		content, err := b.l.newContent()
		if err != nil {
			return "", nil, err
		}
		b.gen = &stagedGen{content: content, born: now, files: map[string]string{}}
	}
	if f, ok := b.gen.files[dir]; ok && !again {
		return f, b.gen.content, nil
	}
	f, err := stageLockContent(dir, ".agentx-batch"+lockSuffix, b.gen.content)
	if err != nil {
		return "", nil, err
	}
	b.gen.files[dir] = f
	return f, b.gen.content, nil
}
