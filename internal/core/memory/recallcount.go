package memory

import (
	"context"
	"sort"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// IncrementRecallCount adds one to the recall count of each observation
// (for relevance scoring). Unknown IDs are ignored. Only issue files
// change: the manifest carries no recall counts.
func (s *Store) IncrementRecallCount(ctx context.Context, ids []string) error {
	counts := make(map[string]int, len(ids))
	for _, id := range ids {
		counts[id] = 1
	}
	return s.AddRecallCounts(ctx, counts)
}

// AddRecallCounts adds counts[id] to each observation's recall count with
// one rewrite per issue file, however many recalls an observation
// collected since the last fold. Unknown ids are skipped.
func (s *Store) AddRecallCounts(ctx context.Context, counts map[string]int) error {
	byIssue := map[int]map[string]int{}
	var order []int
	ids := make([]string, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if counts[id] <= 0 {
			continue
		}
		n, err := s.issueOf(ctx, id)
		if errcode.Is(err, errcode.NotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if byIssue[n] == nil {
			byIssue[n] = map[string]int{}
			order = append(order, n)
		}
		byIssue[n][id] = counts[id]
	}
	hold := s.holdFresh()
	var restamp []restamped
	for _, n := range order {
		r, err := s.addRecallCounts(ctx, n, byIssue[n])
		if err != nil {
			s.restamp(ctx, restamp) // what was rewritten stays usable
			return err
		}
		if r != nil {
			restamp = append(restamp, *r)
		}
	}
	s.restamp(ctx, restamp)
	s.keepFresh(hold, order)
	return nil
}

// addRecallCounts adds add[id] to the recall counts of issue n's
// observations, under the issue file's lock. It returns the file's stamps
// before and after when it rewrote it (nil when nothing changed or a stamp
// could not be read).
func (s *Store) addRecallCounts(ctx context.Context, n int, add map[string]int) (*restamped, error) {
	path := s.IssuePath(n)
	var out *restamped
	err := s.withLock(ctx, path, func(lk *lock.Lock) error {
		before, berr := s.stampOf(n)
		f, err := s.readIssue(n)
		if err != nil {
			return err
		}
		changed := false
		now := s.now()
		for i := range f.Observations {
			if k := add[f.Observations[i].ID]; k > 0 {
				f.Observations[i].RecallCount += k
				f.Observations[i].SetLastRecalled(now)
				changed = true
			}
		}
		if !changed {
			return nil
		}
		f.UpdatedAt = clock.Format(s.now())
		data, err := f.Marshal()
		if err != nil {
			return err
		}
		if err := atomicfile.Write(path, data, s.writeOpts(lk)); err != nil {
			return err
		}
		if after, aerr := s.stampOf(n); berr == nil && aerr == nil {
			out = &restamped{issue: n, before: before, after: after}
		}
		return nil
	})
	return out, err
}
