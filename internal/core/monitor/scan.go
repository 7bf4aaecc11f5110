package monitor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/fileid"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/workpool"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// IndexName is the scanner's derived index inside the clarifications
// directory: for each ledger read earlier, the file identity it had and the
// open records it held then (none for a closed ledger). Deleting it loses
// nothing: the next scan reads every ledger and writes it again.
const IndexName = ".monitor-index"

// indexHeader starts the index; a file without it is ignored.
const indexHeader = "agentx-monitor-index 2"

// Scanner finds the open records (pending, answered, stale) of a workspace
// without decoding closed history. The monitor runs on every hook and every
// clarify command, so its cost must follow the open records, not the years
// of resolved ones:
//   - a ledger whose identity (inode, size, modification and change times)
//     is the one the index recorded, and which was already older than the
//     racy window when it was read, is not read again: its open records
//     come from the index. No writer can keep all four: an atomic rename
//     changes the inode, an in-place rewrite the change time, which no
//     user-level tool can set back;
//   - any other ledger is read, and decoded only when its bytes could hold
//     an open status (the JSON strings "pending", "answered", "stale" or an
//     escape).
//
// Whatever the scan returns, every action re-reads its record under the
// ledger's lock before writing, so the index can make a check slower or
// later, never wrong on disk.
type Scanner struct {
	// Dir is the clarifications directory.
	Dir string
	// Now is the wall clock for the racy check (file times are wall
	// times, whatever clock the protocol runs on). Default time.Now.
	Now func() time.Time
	// NoIndex reads every ledger and writes no index (tests, benchmarks).
	NoIndex bool
	// Written, when set, is the store this process wrote ledgers through:
	// a ledger whose bytes are the ones it wrote takes its open records
	// from there rather than being decoded again (a clarify command writes
	// one and then runs the monitor).
	Written WrittenLedgers
	// Changed, when not nil, makes this a check right after writes of
	// this process (a clarify command's): it names the ledgers (file
	// names in Dir) written, and only those may have changed since the
	// index was written, as far as this check needs to know. The ledgers
	// the index knows are listed and taken from it without reading the
	// directory or checking their identity (a getdents of every name and
	// an fstatat each: at 10,000 ledgers, most of every clarify command).
	// A ledger another process wrote or made meanwhile is seen by the
	// next full check (every hook and `monitor` runs one), and every
	// action re-reads its record under the ledger's lock, so the index
	// makes this check later, never wrong on disk. Without an index the
	// check is a full one.
	Changed []string
}

// WrittenLedgers gives the open records of a ledger this process wrote,
// when data is exactly what it wrote to path (*ledger.Store).
type WrittenLedgers interface {
	OpenWritten(path string, data []byte) ([]ledger.Record, bool)
}

// NewScanner returns the scanner of a workspace.
func NewScanner(ws workspace.Workspace) *Scanner {
	return &Scanner{Dir: ws.ClarificationsDir()}
}

// Scan is what one scan found.
type Scan struct {
	// Issues are the issues with a ledger file, ascending.
	Issues []int
	// Open are the open records, by issue.
	Open []ledger.Record
	// Warnings are ledgers that could not be read (corrupt, unreadable);
	// they are skipped, never treated as empty.
	Warnings []error
	// Read and Decoded count the ledger files read and decoded this time.
	Read, Decoded int
}

// identity is what a file's metadata says about its content (package
// fileid, which the artifact ledgers' scan shares).
type identity = fileid.ID

// indexEntry is one ledger in the index: its identity and, when it had
// open records, those records as a one-line ledger document.
type indexEntry struct {
	id   identity
	open []byte
}

// Scan reads what it must and returns the open records: the ledgers the
// index vouches for come from the index (checkKnown), the others are read
// (readLedgers), and the index is rewritten when it changed.
func (s *Scanner) Scan() (*Scan, error) {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	start := now()
	dir, err := os.Open(s.Dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &Scan{}, nil
		}
		return nil, fmt.Errorf("list ledgers: %w", err)
	}
	defer func() { _ = dir.Close() }() // a directory opened to list: a close error loses nothing
	var old map[string]indexEntry
	if !s.NoIndex {
		old = readIndex(filepath.Join(s.Dir, IndexName))
	}
	var names []string
	var changed map[string]bool
	if s.Changed != nil && old != nil {
		names, changed = scopedNames(old, s.Changed)
	} else {
		// Names only: no per-entry allocation, no sort (the index is a map).
		if names, err = dir.Readdirnames(-1); err != nil {
			return nil, fmt.Errorf("list ledgers: %w", err)
		}
	}
	checked := s.checkKnown(dir, names, old, changed)

	out := &Scan{}
	next := make(map[string]indexEntry, len(old))
	var jobs []ledgerFile
	for i, k := range checked {
		if k.issue < 0 {
			continue
		}
		out.Issues = append(out.Issues, k.issue)
		if k.hit {
			out.Open = appendOwned(out.Open, k.recs)
			next[names[i]] = old[names[i]]
			continue
		}
		jobs = append(jobs, ledgerFile{names[i], k.issue})
	}
	sort.Ints(out.Issues)

	for _, r := range s.readLedgers(jobs, start) {
		out.Read++
		if r.decoded {
			out.Decoded++
		}
		if r.err != nil {
			out.Warnings = append(out.Warnings, r.err)
			continue
		}
		out.Open = appendOwned(out.Open, r.open)
		if r.trusted && !s.NoIndex {
			if ie, ok := r.indexEntry(); ok {
				next[r.name] = ie
			}
		} else if ie, ok := old[r.name]; ok {
			// Too new to vouch for (a ledger just written): its old
			// entry stays, whose identity no longer matches, so the next
			// scan reads the file again as it would without an entry,
			// and the index is not rewritten for nothing (1 MB at
			// 10,000 ledgers, after every clarify command).
			next[r.name] = ie
		}
	}
	sortRecords(out.Open, true)
	if !s.NoIndex && !sameIndex(old, next) {
		// Derived data: a failed write only costs the next scan some reads.
		_ = writeIndex(filepath.Join(s.Dir, IndexName), next)
	}
	return out, nil
}

// appendOwned appends recs, which the scan owns (decoded for it, or handed
// over by the Store that wrote them), to dst: the first ledger's records
// are taken as they are rather than copied (the usual check after a write
// has one).
func appendOwned(dst, recs []ledger.Record) []ledger.Record {
	if len(dst) == 0 {
		return recs
	}
	return append(dst, recs...)
}

// ledgerFile is a ledger the scan must read.
type ledgerFile struct {
	name  string
	issue int
}

// knownFile is what checkKnown learnt of one directory entry.
type knownFile struct {
	issue int  // -1: not a ledger
	hit   bool // the index vouches for it: recs are its open records
	recs  []ledger.Record
}

// scopedNames are the ledgers a check after writes looks at (Changed):
// those the index knows and those written, which alone are checked.
func scopedNames(old map[string]indexEntry, written []string) ([]string, map[string]bool) {
	names := make([]string, 0, len(old)+len(written))
	changed := make(map[string]bool, len(written))
	for _, n := range written {
		changed[n] = true
		names = append(names, n)
	}
	for n := range old {
		if !changed[n] {
			names = append(names, n)
		}
	}
	return names, changed
}

// checkKnown checks every ledger the index knows by identity (one fstatat
// relative to the directory), in parallel chunks; with changed (a check
// after writes, Changed) only those, the others are the index's.
func (s *Scanner) checkKnown(dir *os.File, names []string, old map[string]indexEntry, changed map[string]bool) []knownFile {
	checked := make([]knownFile, len(names))
	const chunk = 256
	parallel((len(names)+chunk-1)/chunk, func(c int) {
		for i := c * chunk; i < len(names) && i < (c+1)*chunk; i++ {
			issue, ok := ledger.FileIssue(names[i])
			if !ok {
				checked[i].issue = -1
				continue
			}
			checked[i].issue = issue
			ie, ok := old[names[i]]
			if !ok {
				continue
			}
			if changed != nil && !changed[names[i]] {
				if recs, err := ie.records(issue); err == nil {
					checked[i].hit, checked[i].recs = true, recs
				}
				continue
			}
			if id, ok := fileid.StatAt(dir, names[i]); ok && id == ie.id {
				if recs, err := ie.records(issue); err == nil {
					checked[i].hit, checked[i].recs = true, recs
				}
			}
		}
	})
	return checked
}

// readResult is one ledger read by readLedgers.
type readResult struct {
	name    string
	open    []ledger.Record
	err     error
	decoded bool
	// trusted: the file was older than the racy window when read, so its
	// identity may stand for its content next time.
	trusted bool
	id      identity
}

// indexEntry is what the index keeps of a ledger read this time.
func (r *readResult) indexEntry() (indexEntry, bool) {
	ie := indexEntry{id: r.id}
	if len(r.open) > 0 {
		raw, err := json.Marshal(ledger.Ledger{IssueNumber: r.open[0].IssueNumber, Clarifications: r.open})
		if err != nil {
			return ie, false // not indexed: read again next time
		}
		ie.open = raw
	}
	return ie, true
}

// readLedgers reads the ledgers in jobs, a few at a time.
func (s *Scanner) readLedgers(jobs []ledgerFile, start time.Time) []readResult {
	results := make([]readResult, len(jobs))
	parallel(len(jobs), func(i int) { results[i] = s.readLedger(jobs[i], start) })
	return results
}

// readLedger reads one ledger and keeps its open records, decoding it only
// when its bytes could hold one.
func (s *Scanner) readLedger(j ledgerFile, start time.Time) readResult {
	path := filepath.Join(s.Dir, j.name)
	r := readResult{name: j.name}
	// The identity comes from the open file before its content is read: a
	// write after that changes the identity, so the next scan reads the
	// file again.
	data, id, idOK, err := s.read(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			r.err = ledger.ReadError(path, err)
		}
		return r
	}
	if recs, ok := s.lookupWritten(path, data); ok {
		r.open = recs
		r.id = id
		r.trusted = idOK && s.racyFree(id, start)
		return r
	}
	open := mayBeOpen(data)
	if !open && !looksWhole(data) {
		// Closed by its bytes but torn or empty: report it rather than take
		// a broken ledger for a closed one. (A full json.Valid here would
		// cost as much as decoding the history we skip.)
		_, perr := ledger.Parse(path, data, j.issue)
		if perr == nil {
			perr = fmt.Errorf("ledger %s is not valid JSON", path)
		}
		r.err = perr
		return r
	}
	if open {
		r.decoded = true
		l, err := ledger.Parse(path, data, j.issue)
		if err != nil {
			r.err = err
			return r
		}
		for _, rec := range l.Clarifications {
			if rec.Status.Open() {
				r.open = append(r.open, rec)
			}
		}
	}
	r.id = id
	r.trusted = idOK && s.racyFree(id, start)
	return r
}

// racyFree reports whether a file with identity id was already older than
// the racy window (fileid.RacyWindow: file times are coarse, so two writes
// inside one tick can leave one identity; git's "racy clean") when the
// scan started.
func (s *Scanner) racyFree(id identity, start time.Time) bool {
	return id.RacyFree(start)
}

// writtenBytes is a WrittenLedgers that also gives the bytes it wrote
// (ledger.Store).
type writtenBytes interface {
	WrittenBytes(path string) ([]byte, bool)
}

// read reads the ledger at path; one this process wrote is compared with
// the bytes it wrote rather than copied (fileid.ReadExpect): a clarify
// command's check after its write reads nothing new.
func (s *Scanner) read(path string) ([]byte, identity, bool, error) {
	if wb, ok := s.Written.(writtenBytes); ok {
		if want, ok := wb.WrittenBytes(path); ok {
			return fileid.ReadExpect(path, atomicfile.StateLimit, want)
		}
	}
	return fileid.Read(path, atomicfile.StateLimit)
}

// lookupWritten is Written's answer for path, when there is a Written.
func (s *Scanner) lookupWritten(path string, data []byte) ([]ledger.Record, bool) {
	if s.Written == nil {
		return nil, false
	}
	return s.Written.OpenWritten(path, data)
}

// records decodes the open records an index entry keeps.
func (ie indexEntry) records(issue int) ([]ledger.Record, error) {
	if ie.open == nil {
		return nil, nil
	}
	l, err := ledger.Decode(ie.open)
	if err != nil {
		return nil, err
	}
	for i := range l.Clarifications {
		if l.Clarifications[i].IssueNumber == 0 {
			l.Clarifications[i].IssueNumber = issue
		}
	}
	return l.Clarifications, nil
}

// parallel runs work(0..n-1) on a few goroutines when n is large enough to
// pay for them.
func parallel(n int, work func(int)) {
	workers := 4
	if n < 4 {
		workers = 1
	}
	_ = workpool.Run(context.Background(), n, workers, work)
}

var openMarkers = [][]byte{[]byte(`"pending"`), []byte(`"answered"`), []byte(`"stale"`), []byte(`\u`)}

// mayBeOpen reports whether a ledger's bytes could hold an open record. A
// status is a JSON string, so an open one appears literally as "pending",
// "answered" or "stale" unless written with escapes; false positives (a
// question mentioning "pending" in quotes) only cost a decode.
func mayBeOpen(data []byte) bool {
	for _, m := range openMarkers {
		if bytes.Contains(data, m) {
			return true
		}
	}
	return false
}

// looksWhole reports whether data is one JSON object end to end, as far as
// its first and last bytes tell: a torn write (a crash of an old tool that
// truncates and rewrites in place) loses the closing brace.
func looksWhole(data []byte) bool {
	data = bytes.TrimSpace(data)
	return len(data) >= 2 && data[0] == '{' && data[len(data)-1] == '}'
}

// readIndex parses the index; anything unexpected gives an empty index
// (every ledger is read, nothing is lost).
func readIndex(path string) map[string]indexEntry {
	data, err := atomicfile.ReadRegular(path, atomicfile.StateLimit)
	if err != nil {
		return nil
	}
	idx, err := parseIndex(data)
	if err != nil {
		return nil
	}
	return idx
}

// parseIndex reads lines `name ino size mtime ctime open`, where open is
// "-" or a one-line ledger document holding the open records.
func parseIndex(data []byte) (map[string]indexEntry, error) {
	return fileid.ParseIndex(data, indexHeader, func(name string, id fileid.ID, open []byte) (indexEntry, error) {
		if _, ok := ledger.FileIssue(name); !ok {
			return indexEntry{}, fmt.Errorf("bad index name %q", name)
		}
		ie := indexEntry{id: id}
		if string(open) != "-" {
			if len(open) == 0 || open[0] != '{' {
				return indexEntry{}, fmt.Errorf("bad index records for %s", name)
			}
			// The index's own buffer, read for this scan alone: no copy.
			ie.open = open[:len(open):len(open)]
		}
		return ie, nil
	})
}

// indexLine is what an entry's index line holds.
func indexLine(ie indexEntry) (fileid.ID, []byte) {
	if ie.open == nil {
		return ie.id, []byte("-")
	}
	return ie.id, ie.open
}

func formatIndex(idx map[string]indexEntry) []byte {
	return fileid.FormatIndex(indexHeader, idx, indexLine)
}

func writeIndex(path string, idx map[string]indexEntry) error {
	// No fsync: a torn or lost index after a crash is only a slower scan.
	return atomicfile.Write(path, formatIndex(idx), atomicfile.Options{NoSync: true})
}

func sameIndex(a, b map[string]indexEntry) bool {
	return fileid.SameIndex(a, b, indexLine)
}
