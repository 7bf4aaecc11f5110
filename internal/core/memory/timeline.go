package memory

import (
	"context"
	"sort"
)

// Timeline is what happened around one observation: the observations of
// its issue in time order, at most before of them ahead of it and at most
// after behind it. At is its index in Observations.
type Timeline struct {
	Observations []Observation
	At           int
}

// Timeline returns the observations of id's issue around id (NOT_FOUND
// when no observation has that id). Ties in time keep the file's order.
func (s *Store) Timeline(ctx context.Context, id string, before, after int) (*Timeline, error) {
	hit, err := s.GetByID(ctx, id)
	if err != nil {
		return nil, err
	}
	all, err := s.GetByIssue(ctx, hit.IssueNumber)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Timestamp < all[j].Timestamp })
	at := 0
	for i := range all {
		if all[i].ID == id {
			at = i
			break
		}
	}
	lo, hi := max(0, at-max(0, before)), min(len(all), at+max(0, after)+1)
	return &Timeline{Observations: all[lo:hi], At: at - lo}, nil
}
