package memory

import (
	"fmt"
	"sync"
)

// skip warns that issue n's file could not be read and is left out,
// untouched for repair; Skipped hears the same words.
func (s *Store) skip(n int, err error) {
	s.leftOut(fmt.Sprintf("skipping %s: %v (left untouched for repair)", s.IssuePath(n), err))
}

// leftOut warns of a file left out because it could not be read; once
// per Skipped's gathering (one search may read a broken file twice).
func (s *Store) leftOut(msg string) {
	if s.Skipped == nil || s.Skipped(msg) {
		s.warn("%s", msg)
	}
}

// LeftOut gathers what a store's Skipped hears, each warning once (one
// search may read a broken file twice); safe for concurrent readers.
type LeftOut struct {
	mu   sync.Mutex
	seen map[string]bool
	list []string
}

// Add is a Store's Skipped: false when it heard warning already.
func (l *LeftOut) Add(warning string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen[warning] {
		return false
	}
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	l.seen[warning] = true
	l.list = append(l.list, warning)
	return true
}

// List is the warnings heard, in order; nil when none.
func (l *LeftOut) List() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.list
}
