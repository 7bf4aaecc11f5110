package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/memindex"
)

// A file base's row (filebase.go) is located in its issue file twice
// over: Ref.Off is the byte offset of the observation's object, Ref.Len
// its position in the observations array. A search reads the object at the
// offset (a few hundred bytes, as it read a manifest row); when that is no
// longer the row (a recall count folded in since, which restamps the file
// without indexing it again and shifts what follows), the file is parsed
// and the observation taken by its position, which no such rewrite moves.

// readIssueOffsets is readIssue with where each observation's object
// starts in the file (nil when they cannot be told: rows are then found
// by position).
func (s *Store) readIssueOffsets(n int) (*IssueFile, []uint32, error) {
	path := s.IssuePath(n)
	data, err := atomicfile.ReadRegular(path, atomicfile.StateLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return &IssueFile{Version: 1, IssueNumber: n}, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	f, err := issueFromData(path, data, n)
	if err != nil {
		return nil, nil, err
	}
	return f, observationOffsets(data, len(f.Observations)), nil
}

// observationOffsets lists where each of the want observations of an
// issue file that parsed starts in data; nil when the count differs.
func observationOffsets(data []byte, want int) []uint32 {
	fields, err := jsonfile.SplitValidObject(data)
	if err != nil {
		return nil
	}
	for _, f := range fields {
		if f.Key != "observations" {
			continue
		}
		out := make([]uint32, 0, want)
		// Raw values alias data: an element's offset is how much shorter
		// its capacity is.
		err := jsonfile.EachValidElement(f.Value, func(raw []byte) error {
			out = append(out, uint32(cap(data)-cap(raw)))
			return nil
		})
		if err != nil || len(out) != want {
			return nil
		}
		return out
	}
	return nil
}

// fileRef is the Ref of observation i of a file base: at off when known.
func fileRef(offsets []uint32, i int) memindex.Ref {
	if i < len(offsets) {
		return memindex.Ref{Off: offsets[i], Len: uint32(i)}
	}
	return memindex.Ref{Len: uint32(i)}
}

// objectEnd is the length of the JSON object at the start of b, or -1 when
// b ends first. Inside a string it jumps to the next quote (most of a row
// is its content, a string) and counts the backslashes before it: an odd
// run escapes it.
func objectEnd(b []byte) int {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			for {
				q := bytes.IndexByte(b[i+1:], '"')
				if q < 0 {
					return -1
				}
				i += 1 + q
				k := i - 1
				for b[k] == '\\' {
					k--
				}
				if (i-1-k)%2 == 0 {
					break // not escaped: the string ends here
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// rowWindow is the first read of a row: most observations fit.
const rowWindow = 2048

// fileRows reads a file base's rows from their issue files: each file is
// opened once per view (a recall lists many rows of one issue) and parsed
// at most once, for its positions. close releases the files.
type fileRows struct {
	s      *Store
	open   map[int]*rowFile
	parsed map[int]*IssueFile
	buf    []byte
	pooled *[rowWindow]byte // buf's first array, from rowBufs
	dir    rowDir
}

// stats are the files' stat data as opened (FileStats), by issue: of the
// files every row was read from through the descriptor stat'ed (a row
// read by position, entryAt, is read from the path again, which may be
// another file by then).
func (r *fileRows) stats() FileStats {
	var out FileStats
	for n, f := range r.open {
		if _, byPath := r.parsed[n]; f != nil && f.stat.OK && !byPath {
			if out == nil {
				out = make(FileStats, len(r.open))
			}
			out[n] = f.stat
		}
	}
	return out
}

func (s *Store) fileRows() *fileRows {
	// Sized for a search's twenty rows: one allocation, not a growth.
	return &fileRows{s: s, open: make(map[int]*rowFile, memindex.DefaultLimit), parsed: map[int]*IssueFile{}}
}

func (r *fileRows) close() {
	for _, f := range r.open {
		if f != nil {
			f.close()
		}
	}
	clear(r.open)
	r.dir.close()
	if r.pooled != nil {
		// The rows decoded from it hold copies (fastRow, decodeRow).
		rowBufs.Put(r.pooled)
		r.pooled, r.buf = nil, nil
	}
}

// rowBufs are first row windows: one a search, kept for the next rather
// than left to the collector.
var rowBufs = sync.Pool{New: func() any { return new([rowWindow]byte) }}

// window is a buffer of size bytes for the row reads: the pooled first
// window, a larger one made when a row is longer.
func (r *fileRows) window(size int) []byte {
	if size <= rowWindow && r.pooled == nil {
		r.pooled = rowBufs.Get().(*[rowWindow]byte)
		return r.pooled[:]
	}
	return make([]byte, size)
}

// row is the view's row reader.
func (r *fileRows) row(doc memindex.Doc) (Entry, error) {
	if e, ok := r.rowAt(doc); ok {
		return e, nil
	}
	return r.s.entryAt(r.parsed, doc, int(doc.Ref.Len))
}

// rowAt reads the observation at doc's offset in its issue file; false
// when it is not there (or not the one doc describes).
func (r *fileRows) rowAt(doc memindex.Doc) (Entry, bool) {
	if doc.Ref.Off == 0 {
		return Entry{}, false // no offset known (an observation never starts a file)
	}
	f, seen := r.open[doc.Issue]
	if !seen {
		f = r.dir.openIssue(r.s.Dir, issueFileName(doc.Issue))
		r.open[doc.Issue] = f // nil when it cannot be opened: not tried again
	}
	if f == nil {
		return Entry{}, false
	}
	for size := rowWindow; size <= int(atomicfile.StateLimit); size *= 8 {
		if cap(r.buf) < size {
			r.buf = r.window(size)
		}
		buf := r.buf[:size]
		k, err := f.readAt(buf, int64(doc.Ref.Off))
		if err != nil {
			return Entry{}, false
		}
		buf = buf[:k]
		e, _, ok := fastRow(buf, doc.Agent, doc.Category)
		if !ok {
			end := objectEnd(buf)
			if end < 0 {
				if k < size {
					return Entry{}, false // the file ends first
				}
				continue
			}
			// Only the row's keys are decoded; the observation's others
			// (content above all) are stepped over.
			var err error
			if e, err = decodeRow(buf[:end]); err != nil {
				return Entry{}, false
			}
		}
		if e.IssueNumber == 0 {
			e.IssueNumber = doc.Issue
		}
		ok = describes(doc, &e)
		return e, ok
	}
	return Entry{}, false
}
