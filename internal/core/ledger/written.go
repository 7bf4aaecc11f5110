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
	open []Record
}

// maxWritten bounds the memory: a command writes one or two ledgers, a
// long-lived server more, and a miss only costs a decode.
const maxWritten = 8

func (w *written) remember(path string, data []byte, l *Ledger) {
	n := 0
	for i := range l.Clarifications {
		if l.Clarifications[i].Status.Open() {
			n++
		}
	}
	// Sized at once: grown by doubling, the slice of a ledger with a few
	// hundred open records cost twice its size in fresh pages.
	open := make([]Record, 0, n)
	for i := range l.Clarifications {
		if l.Clarifications[i].Status.Open() {
			open = append(open, l.Clarifications[i].clone())
		}
	}
	if n == 0 {
		open = nil // as decoding gives: no open record, no slice
	}
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
	w.files[path] = writtenFile{data: data, open: open}
}

// OpenWritten returns the open records of the ledger at path when data is
// exactly what this Store last wrote there (a copy the caller may keep and
// change), and false otherwise.
func (s *Store) OpenWritten(path string, data []byte) ([]Record, bool) {
	s.written.mu.Lock()
	f, ok := s.written.files[path]
	s.written.mu.Unlock()
	if !ok || string(f.data) != string(data) {
		return nil, false
	}
	out := make([]Record, len(f.open))
	for i := range f.open {
		out[i] = f.open[i].clone()
	}
	return out, true
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

// clone copies r with its own thread, so a copy handed out cannot change
// the one remembered, nor the other way round.
func (r Record) clone() Record {
	r.Thread = append(r.Thread[:0:0], r.Thread...)
	r.Extra = append(r.Extra[:0:0], r.Extra...)
	if r.ResolvedAt != nil {
		v := *r.ResolvedAt
		r.ResolvedAt = &v
	}
	return r
}
