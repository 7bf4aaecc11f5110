package ledger

import "sync"

// written remembers, per ledger file, the bytes this Store last wrote and
// the open records they hold. Every clarify command writes a ledger and
// then runs the monitor, which read the file back and decoded it a second
// time: on a ledger of a few hundred records that second decode was a third
// of the command. A reader that finds on disk exactly the bytes we wrote
// takes the records from here instead; any other bytes (another process
// wrote since) are decoded as before, so what it gets is what decoding the
// file would give.
type written struct {
	mu    sync.Mutex
	files map[string]writtenFile
	// paths is every ledger this Store wrote, never forgotten (WrittenPaths):
	// one string per ledger, where files keeps only the last few.
	paths map[string]struct{}
}

type writtenFile struct {
	data []byte
	// l is the ledger as written, kept as it is: the Store's caller does
	// not change a ledger after Update returns it (the open records are
	// picked and copied when asked for, so a command that writes a ledger
	// and then checks it copies them once, not twice).
	l *Ledger
}

// maxWritten bounds the memory: a command writes one or two ledgers, a
// long-lived server more, and a miss only costs a decode.
const maxWritten = 8

func (w *written) remember(path string, data []byte, l *Ledger) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.files == nil {
		w.files = make(map[string]writtenFile)
		w.paths = make(map[string]struct{})
	}
	w.paths[path] = struct{}{}
	if _, ok := w.files[path]; !ok && len(w.files) >= maxWritten {
		for k := range w.files {
			delete(w.files, k)
			break
		}
	}
	w.files[path] = writtenFile{data: data, l: l}
}

// OpenWritten returns the open records of the ledger at path when data is
// exactly what this Store last wrote there, and false otherwise. They are
// handed over: the caller may keep and change them, and the Store forgets
// them (a later call for the same bytes says false, and the caller decodes
// the file), so they are not copied: a command that writes a ledger and
// then checks it copies nothing.
func (s *Store) OpenWritten(path string, data []byte) ([]Record, bool) {
	s.written.mu.Lock()
	f, ok := s.written.files[path]
	if ok && f.l != nil && string(f.data) == string(data) {
		s.written.files[path] = writtenFile{data: f.data}
	}
	s.written.mu.Unlock()
	if !ok || f.l == nil || string(f.data) != string(data) {
		return nil, false
	}
	return openRecords(f.l.Clarifications), true
}

// openRecords is the open records of recs (nil when there is none, as
// decoding gives): recs itself when every record is open.
func openRecords(recs []Record) []Record {
	n := 0
	for i := range recs {
		if recs[i].Status.Open() {
			n++
		}
	}
	switch n {
	case 0:
		return nil
	case len(recs):
		return recs[:n:n]
	}
	out := make([]Record, 0, n)
	for i := range recs {
		if recs[i].Status.Open() {
			out = append(out, recs[i])
		}
	}
	return out
}

// WrittenBytes is what this Store last wrote at path, when it remembers
// it: a reader that expects those bytes compares the file with them
// instead of reading a copy (fileid.ReadExpect). The caller must not
// change them.
func (s *Store) WrittenBytes(path string) ([]byte, bool) {
	s.written.mu.Lock()
	defer s.written.mu.Unlock()
	f, ok := s.written.files[path]
	return f.data, ok
}

// WrittenPaths is every ledger file this Store wrote, in no order.
func (s *Store) WrittenPaths() []string {
	s.written.mu.Lock()
	defer s.written.mu.Unlock()
	out := make([]string, 0, len(s.written.paths))
	for p := range s.written.paths {
		out = append(out, p)
	}
	return out
}
