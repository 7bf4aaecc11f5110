package memory

import (
	"context"
	"testing"
)

// Recall counts folded into the issue files (every hook finish after a
// hook start) leave the search index usable as it is: the index holds no
// recall counts. They used to make every later search and hook start
// re-index the changed files in memory (0.85 s of CPU and 510 MB at 100K
// observations, each time) until the next memory write.
func TestRecallCountsKeepTheIndexFast(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	stored, err := s.Store(ctx, []Observation{
		obs("engineer", 7, Decision, "Sessions are kept in redis with a sliding expiry"),
		obs("engineer", 8, KeyFact, "The export runs nightly at two"),
		obs("engineer", 9, KeyFact, "The nightly export writes parquet"),
		obs("engineer", 10, KeyFact, "Exports are kept for a week"),
		obs("engineer", 11, KeyFact, "The week starts on monday for exports"),
	})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, o := range stored {
		counts[o.ID] = 2
	}
	if err := s.AddRecallCounts(ctx, counts); err != nil {
		t.Fatal(err)
	}
	fresh := New(s.Dir, s.Locks, s.Clock)
	v := fresh.openFast()
	if v == nil {
		t.Fatal("after the recall counts were added, the search index is re-indexed in memory")
	}
	v.close()
	if rows, err := fresh.Search(ctx, Query{Text: "redis"}); err != nil || len(rows) != 1 {
		t.Fatalf("search after the counts: %+v, %v", rows, err)
	}
}
