// Package audit owns the audit trail: `.agentx/state/audit.jsonl`, one JSON
// line per state-changing operation (who, what, which ids, the content
// hashes before and after, the tool and its version), each line carrying
// the hash of the line before it, so that a line edited, removed or moved
// is detected (Check). The file rotates by month: at the first append of a
// new month audit.jsonl is renamed audit-YYYY-MM.jsonl (the month of its
// first line) and the new file's first line chains to the last line of
// the old one. Nothing is ever trimmed.
//
// A line is the JSON object of Entry with "hash" its last member; hash is
// contenthash.Of (SHA-256, "sha256:" and hex) of the line's bytes up to,
// not including, `,"hash":`. "prev" is the hash of the line before it, ""
// only for the very first line of a workspace.
package audit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// FileName is the current file of the trail inside `.agentx/state/`.
const FileName = "audit.jsonl"

// Limits that keep one line short whatever an operation touched (a
// rebuild of 100K observations): the ids and hashes beyond them are
// counted, not listed.
const (
	MaxIDs    = 64
	MaxDetail = 500
)

// Entry is one audited operation.
type Entry struct {
	// Time is when the operation happened (clock.Format); Append fills it.
	Time string `json:"time"`
	// Actor is who acted: an agent, a person (`cli`, a name) or a GitHub
	// login.
	Actor string `json:"actor"`
	// Op names the operation: clarify.request, clarify.answer, ...,
	// monitor.escalate-stale, memory.add, memory.remove, memory.compact,
	// memory.rebuild, verify.repair, hooks.install, checkpoint.create, ...
	Op string `json:"op"`
	// Issue is the issue the operation worked on (0: none or several).
	Issue int `json:"issue,omitempty"`
	// IDs are the records or observations touched (at most MaxIDs;
	// MoreIDs counts the rest).
	IDs     []string `json:"ids,omitempty"`
	MoreIDs int      `json:"moreIds,omitempty"`
	// Before and After map an id (or a file path) to its content hash
	// before and after the operation; an id absent from one side did not
	// exist then.
	Before map[string]string `json:"before,omitempty"`
	After  map[string]string `json:"after,omitempty"`
	// Detail is a short free text (a count, a reason).
	Detail string `json:"detail,omitempty"`
	// Tool and Version say which program wrote the line.
	Tool    string `json:"tool"`
	Version string `json:"version"`
	// Prev is the hash of the line before (set by Append).
	Prev string `json:"prev"`
	// Hash is this line's hash (set by Append, checked by Check).
	Hash string `json:"hash"`
}

// Trail appends to one workspace's audit trail.
type Trail struct {
	// Dir is `.agentx/state/`.
	Dir string
	// Locks is the process's lock manager, used where flock(2) is not
	// (default: a package-wide one).
	Locks *lock.Locker
	// Clock stamps entries without a time (default: the wall clock).
	Clock clock.Clock
	// Tool and Version fill entries that name none (default: the
	// executable's name and the module version of the build).
	Tool, Version string
	// Sync fsyncs the trail after every append. Off by default: an
	// append must cost under a millisecond, and an fsync costs 0.3 ms on
	// an idle disk but several to tens of milliseconds on a busy one
	// (docs/PERFORMANCE.md). Without it a line is in the page cache when
	// Append returns: a crash of the process loses nothing, a power cut
	// may lose the lines of the last seconds (the kernel's writeback
	// interval), and a line cut short by it is reported as torn, the
	// chain intact.
	Sync bool
	// RotateSize is the size past which the current file is rotated
	// within its month too (audit-YYYY-MM.N.jsonl), 0 for
	// DefaultRotateSize: a sync pushes the current file whole, so its
	// size is what every push costs.
	RotateSize int64
}

// DefaultRotateSize bounds the current file: some 550 lines of a typical
// size. A month of 3,000 lines in one file added 90 ms to every sync's
// push (docs/PERFORMANCE.md); 256 KB adds a few.
const DefaultRotateSize = 256 << 10

// Path is the trail's current file.
func (t *Trail) Path() string { return filepath.Join(t.Dir, FileName) }

// Append adds e to the trail of the workspace whose `.agentx/state/` is dir
// (checkpoints and other callers without a Trail of their own).
func Append(ctx context.Context, dir string, e Entry) error {
	return (&Trail{Dir: dir}).Append(ctx, e)
}

// Append writes e as the trail's next line, under the trail's lock.
func (t *Trail) Append(ctx context.Context, e Entry) error {
	now := time.Now()
	if t.Clock != nil {
		now = t.Clock.Now()
	}
	if e.Time == "" {
		e.Time = clock.Format(now)
	}
	if e.Tool == "" {
		e.Tool = t.Tool
	}
	if e.Version == "" {
		e.Version = t.Version
	}
	fillTool(&e)
	clip(&e)
	path := t.Path()
	for attempt := 0; ; attempt++ {
		done, err := t.tryAppend(ctx, path, e)
		if done || err != nil {
			return err
		}
		if attempt == 8 {
			return fmt.Errorf("append to %s: it kept being replaced while we waited for it", path)
		}
	}
}

// lockWait bounds the wait for the trail's lock.
const lockWait = 5 * time.Second

// tryAppend opens the trail, locks it and, when the file locked is still
// the trail (another process may have rotated it while we waited), writes
// the line; done is false when it must be tried again on the new file.
func (t *Trail) tryAppend(ctx context.Context, path string, e Entry) (done bool, err error) {
	f, err := openLog(path)
	if err != nil {
		return false, err
	}
	defer func() { _ = f.Close() }() // the write's error is what matters
	unlock, err := t.lockOpen(ctx, f)
	if err != nil {
		return false, err
	}
	defer unlock()
	info, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("stat %s: %w", path, err)
	}
	if now, err := os.Lstat(path); err != nil || !os.SameFile(info, now) {
		return false, nil // rotated (or removed) while we waited: again
	}
	var prev string
	if info.Size() == 0 {
		if prev, err = lastRotatedHash(t.Dir); err != nil {
			return false, err
		}
	} else {
		first, head, err := ends(f, info.Size())
		if err != nil {
			return false, fmt.Errorf("read %s: %w", path, err)
		}
		month := monthOf(first)
		if month != "" && monthOf(e.Time) > month {
			// Renamed while locked: a writer waiting on this file finds
			// it is no longer the trail and starts over on the new one,
			// as does this one. Only a later month rotates: a clock set
			// back (a test's, a machine's) keeps appending here, so the
			// monthly files' names stay in the chain's order.
			return false, t.rotate(path, month)
		}
		if info.Size() >= t.rotateSize() {
			// Full: rotated within its month (audit-YYYY-MM.N.jsonl
			// after audit-YYYY-MM.jsonl, in the chain's order).
			if month == "" {
				month = monthOf(e.Time)
			}
			return false, t.rotate(path, month)
		}
		prev = head
	}
	e.Prev = prev
	line, err := Encode(e)
	if err != nil {
		return false, err
	}
	if _, err := f.Write(atomicfile.Terminated(f, append(line, '\n'))); err != nil {
		return false, fmt.Errorf("append to %s: %w", path, err)
	}
	if t.Sync {
		if err := f.Sync(); err != nil {
			return false, fmt.Errorf("fsync %s: %w", path, err)
		}
	}
	return true, nil
}

// openLog opens the trail for appending and reading, refusing a symlink
// and anything but a regular file (a FIFO would block).
func openLog(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	before, lerr := os.Lstat(path)
	if lerr == nil && !before.Mode().IsRegular() {
		return nil, fmt.Errorf("open %s: %w (%s)", path, atomicfile.ErrNotRegular, before.Mode().Type())
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	info, err := f.Stat()
	if err == nil && (!info.Mode().IsRegular() || lerr == nil && !os.SameFile(before, info)) {
		// Replaced between the check and the open (a symlink or a FIFO
		// put in its place): refuse rather than follow it.
		err = fmt.Errorf("%w: %s", atomicfile.ErrNotRegular, path)
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

func (t *Trail) rotateSize() int64 {
	if t.RotateSize > 0 {
		return t.RotateSize
	}
	// Never past what a reader accepts, whatever the limit is (a test
	// lowers it): a quarter leaves room for the line that crosses it.
	return min(DefaultRotateSize, atomicfile.StateLimit/4)
}

// rotate renames the current file (whose first line is of month) to
// audit-month.jsonl; the next append creates a fresh one that chains to
// it. The caller holds the lock on the file.
func (t *Trail) rotate(path, month string) error {
	dst := filepath.Join(t.Dir, RotatedName(month))
	for i := 2; ; i++ {
		if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
			break
		}
		dst = filepath.Join(t.Dir, fmt.Sprintf("audit-%s.%d.jsonl", month, i))
	}
	if err := os.Rename(path, dst); err != nil {
		return fmt.Errorf("rotate %s: %w", path, err)
	}
	return nil
}

// tailWindow is how much of the end of the file Append reads first to
// find the last line; it doubles until a whole line is in it.
const tailWindow = 4 << 10

// ends returns the first line's time and the hash of the last complete
// line carrying one ("" when none).
func ends(f *os.File, size int64) (firstTime, head string, err error) {
	buf := make([]byte, min(size, 512))
	if _, err := f.ReadAt(buf, 0); err != nil && !errors.Is(err, io.EOF) {
		return "", "", err
	}
	firstTime = timeOf(buf)
	for window := int64(tailWindow); ; window *= 2 {
		off := max(0, size-window)
		tail := make([]byte, size-off)
		if _, err := f.ReadAt(tail, off); err != nil && !errors.Is(err, io.EOF) {
			return "", "", err
		}
		if h, ok := lastHash(tail, off == 0); ok || off == 0 {
			return firstTime, h, nil
		}
	}
}

// lastHash finds the hash of the last complete line of tail carrying one;
// ok is false when tail may have cut that line (whole says it did not).
func lastHash(tail []byte, whole bool) (string, bool) {
	i := bytes.LastIndexByte(tail, '\n')
	if i < 0 {
		return "", whole
	}
	tail = tail[:i] // drop a torn last line (no newline)
	for {
		j := bytes.LastIndexByte(tail, '\n')
		if j < 0 && !whole {
			return "", false // the line may start before the window
		}
		if h, ok := hashField(tail[j+1:]); ok {
			return h, true
		}
		if j < 0 {
			return "", true
		}
		tail = tail[:j]
	}
}

// timeOf reads the "time" member at the start of a line (Encode writes it
// first).
func timeOf(line []byte) string {
	rest, ok := bytes.CutPrefix(line, []byte(`{"time":"`))
	if !ok {
		return ""
	}
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return ""
	}
	return string(rest[:end])
}

func monthOf(ts string) string {
	if len(ts) < 7 || ts[4] != '-' {
		return ""
	}
	return ts[:7]
}

// AppendTo returns data, the content of a trail kept where no file lock
// reaches (the state branch, written through the Git Data API under
// optimistic concurrency), with e as its next line, chained to data's last
// line. e.Time must be set.
func AppendTo(data []byte, e Entry) ([]byte, error) {
	cur, _, err := appendTo(data, e, false)
	return cur, err
}

// AppendRotating is AppendTo that rotates like Trail.Append: when data's
// first line is of a month before e's, data is returned as rotated, the
// content of the file RotatedName(month) names, and current holds e
// alone, chained to data's last line.
func AppendRotating(data []byte, e Entry) (current []byte, month string, err error) {
	return appendTo(data, e, true)
}

// RotatedName is the name of the file of month's lines (YYYY-MM).
func RotatedName(month string) string { return "audit-" + month + ".jsonl" }

func appendTo(data []byte, e Entry, rotate bool) (current []byte, month string, err error) {
	if e.Time == "" {
		return nil, "", errors.New("audit entry without a time")
	}
	fillTool(&e)
	clip(&e)
	e.Prev, _ = lastHash(data, true)
	line, err := Encode(e)
	if err != nil {
		return nil, "", err
	}
	if first := monthOf(timeOf(data)); rotate && first != "" && monthOf(e.Time) > first {
		return append(line, '\n'), first, nil
	}
	out := make([]byte, 0, len(data)+len(line)+2)
	out = append(out, data...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n') // after a torn line, as Terminated does
	}
	out = append(out, line...)
	return append(out, '\n'), "", nil
}
