package memory_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	. "github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/memory/synth"
)

// On a generated store (the benchmarks' corpus), a search for the best k
// returns the first k of the whole ranking: the same rows in the same
// order with the same scores. The whole ranking (Limit -1) offers every
// matching document; a limited one turns away, unscored, those whose
// terms' bounds cannot reach its worst (memindex's merge), and this is
// what shows the two rank alike.
func TestSearchTopKIsThePrefixOfTheWholeRanking(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, layout := range []string{"base", "file base, delta"} {
		s := newExtStore(t)
		s.FileBase = layout != "base"
		obs := synth.Observations(4000, 80, 7, time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
		if _, err := s.Import(ctx, obs[:3600]); err != nil {
			t.Fatal(err)
		}
		// The rest through the write path: in the delta where there is one.
		if _, err := s.Store(ctx, obs[3600:]); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"token refresh", "deadlock queue", "cache redis", "the cache layer", "login timeout retry", "migration"} {
			all, err := s.Search(ctx, Query{Text: q, Limit: -1})
			if err != nil {
				t.Fatal(err)
			}
			if len(all) < 30 {
				t.Fatalf("%s %q: %d hits, too few to show anything", layout, q, len(all))
			}
			for _, k := range []int{1, 5, 20} {
				top, err := s.Search(ctx, Query{Text: q, Limit: k})
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(top, all[:k]) {
					t.Fatalf("%s %q limit %d:\n%+v\nthe whole ranking's first %d:\n%+v", layout, q, k, top, k, all[:k])
				}
			}
		}
	}
}
