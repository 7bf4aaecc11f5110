package memory

import (
	"context"
	"errors"
	"maps"
	"os"
	"slices"
)

// batch is what a Batch's writes left for step 2.
type batch struct {
	issues  map[int]bool
	markers []string
}

// batchRebuildOver is how many issue files a batch changes before its end
// rebuilds the manifest and index at once instead of issue by issue (each
// issue's rows re-rendered costs a copy of the manifest: 0.3 s at 100K
// observations, a rebuild about 1 s).
const batchRebuildOver = 3

// Batch runs fn, whose writes (Archive, Compact, Remove, Store) change
// their issue files as always but leave the manifest and the search index
// to Batch's end, which brings them in line once (`memory compact --auto`
// over thousands of issues). A crash in between leaves the writes' pending
// markers, repaired like any unfinished write. The Store must not be used
// by another goroutine meanwhile.
func (s *Store) Batch(ctx context.Context, fn func() error) error {
	if s.batch != nil {
		return fn()
	}
	hold := s.holdFresh()
	s.batch = &batch{issues: map[int]bool{}}
	err := fn()
	b := s.batch
	s.batch = nil
	if len(b.issues) == 0 {
		s.keepFresh(hold, nil)
		return err
	}
	var serr error
	if len(b.issues) > batchRebuildOver {
		_, serr = s.Rebuild(context.WithoutCancel(ctx))
	} else {
		serr = s.syncIssues(context.WithoutCancel(ctx), slices.Sorted(maps.Keys(b.issues)))
	}
	if serr == nil {
		for _, m := range b.markers {
			_ = os.Remove(m) // its write is in the manifest now
		}
		s.keepFresh(hold, slices.Sorted(maps.Keys(b.issues)))
	}
	return errors.Join(err, serr)
}
