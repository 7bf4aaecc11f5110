package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
	. "github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/memory/synth"
)

func newExtStore(t testing.TB) *Store {
	clk := clock.NewFake(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	s := New(filepath.Join(t.TempDir(), ".agentx", "memory"), lock.New(lock.Options{Clock: clk}), clk)
	s.NoSync = true
	return s
}

// copyCorpus puts the hand-written corpus (issue files in the old
// implementation's exact format, no manifest) into s's directory.
func copyCorpus(t testing.TB, s *Store) {
	t.Helper()
	files, err := filepath.Glob("testdata/corpus/issue-*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("corpus: %v", err)
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(s.Dir, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSearchQuality runs the labelled queries (testdata/queries.json)
// over the hand-written corpus and reports recall@5 (a relevant
// observation among the first five) and MRR; then again with 3,000
// synthetic observations mixed in (their templates talk about the same
// topics, so some of them are fair answers too: that figure is reported,
// not asserted). The figures are recorded in docs/PERFORMANCE.md.
func TestSearchQuality(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newExtStore(t)
	copyCorpus(t, s)
	if _, err := s.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	recall, mrr := evaluate(t, s, s.Search)
	t.Logf("corpus: recall@5 = %.3f, MRR = %.3f", recall, mrr)
	oldR, oldM := evaluate(t, s, oldSearch(s))
	t.Logf("corpus, the old rule (every term a substring of summary/agent/category/issue, newest first): recall@5 = %.3f, MRR = %.3f", oldR, oldM)
	if recall < 0.9 {
		t.Errorf("recall@5 = %.3f, want >= 0.9", recall)
	}
	if _, err := s.Import(ctx, synth.Observations(3000, 300, 11, time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))); err != nil {
		t.Fatal(err)
	}
	recall, mrr = evaluate(t, s, s.Search)
	t.Logf("corpus + 3,000 synthetic: recall@5 = %.3f, MRR = %.3f", recall, mrr)
}

// oldSearch is the reference implementation's search, for comparison.
func oldSearch(s *Store) func(context.Context, Query) ([]Row, error) {
	return func(ctx context.Context, q Query) ([]Row, error) {
		all, err := s.Search(ctx, Query{Since: time.Unix(0, 1), Limit: -1})
		if err != nil {
			return nil, err
		}
		var out []Row
		for _, r := range all {
			hay := strings.ToLower(fmt.Sprintf("%s %s %s %d", r.Summary, r.Agent, r.Category, r.IssueNumber))
			ok := true
			for _, term := range strings.Fields(strings.ToLower(q.Text)) {
				if !strings.Contains(hay, term) {
					ok = false
					break
				}
			}
			if ok {
				out = append(out, r)
			}
		}
		return out, nil
	}
}

func evaluate(t *testing.T, s *Store, search func(context.Context, Query) ([]Row, error)) (recall, mrr float64) {
	ctx := context.Background()
	var qs []struct {
		Query    string   `json:"query"`
		Relevant []string `json:"relevant"`
	}
	data, err := os.ReadFile("testdata/queries.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &qs); err != nil {
		t.Fatal(err)
	}
	if len(qs) < 30 {
		t.Fatalf("labelled set has %d queries, want >= 30", len(qs))
	}
	var hits5, rr float64
	for _, q := range qs {
		rows, err := search(ctx, Query{Text: q.Query, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		rel := map[string]bool{}
		for _, id := range q.Relevant {
			rel[id] = true
		}
		rank := 0
		for i, r := range rows {
			if rel[r.ID] {
				rank = i + 1
				break
			}
		}
		if rank >= 1 && rank <= 5 {
			hits5++
		} else {
			if testing.Verbose() {
				t.Logf("miss: %q (rank %d)", q.Query, rank)
			}
		}
		if rank > 0 {
			rr += 1 / float64(rank)
		}
	}
	return hits5 / float64(len(qs)), rr / float64(len(qs))
}
