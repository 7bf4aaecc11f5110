package settled

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/memory/synth"
)

// BenchmarkCatchUpNothingNew is hook start's catch-up in its steady
// state: an issue with 50 resolved clarifications, all remembered, among
// 1,000 observations of the issue. It reads the ledger and the issue's
// memory file and stores nothing.
func BenchmarkCatchUpNothingNew(b *testing.B) {
	ctx := context.Background()
	s := newStore(b)
	obs := synth.Observations(1000, 1, 1, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	for i := range obs {
		obs[i].IssueNumber = 42
	}
	if _, err := s.Store(ctx, obs); err != nil {
		b.Fatal(err)
	}
	l := &ledger.Ledger{IssueNumber: 42}
	for i := range 50 {
		rec := resolved(entry(1, "engineer", ledger.Question, fmt.Sprintf("Question %d?", i)),
			entry(1, "architect", ledger.Answer, fmt.Sprintf("Answer %d.", i)), entry(1, "engineer", ledger.Resolution, "Resolved."))
		rec.ID = fmt.Sprintf("CLR-42-%03d", i+1)
		l.Clarifications = append(l.Clarifications, rec)
	}
	led := fakeLedgers{42: l}
	if got, err := CatchUp(ctx, led, s, 42); err != nil || len(got) != 50 {
		b.Fatalf("first CatchUp = %d, %v", len(got), err)
	}
	b.ResetTimer()
	for b.Loop() {
		if got, err := CatchUp(ctx, led, s, 42); err != nil || len(got) != 0 {
			b.Fatalf("CatchUp = %d, %v", len(got), err)
		}
	}
}

// BenchmarkHeldDecoded is what the catch-up's check costs when it cannot
// answer from the file's bytes (one id missing) and decodes the issue
// file: the cost the fast scan saves on every hook start.
func BenchmarkHeldDecoded(b *testing.B) {
	s := newStore(b)
	obs := synth.Observations(1000, 1, 1, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	for i := range obs {
		obs[i].IssueNumber = 42
	}
	if _, err := s.Store(context.Background(), obs); err != nil {
		b.Fatal(err)
	}
	ids := []string{obs[0].ID, "obs-engineer-42-1-zzzzzz"}
	for b.Loop() {
		if held, err := s.Held(42, ids); err != nil || len(held) != 1 {
			b.Fatalf("Held = %v, %v", held, err)
		}
	}
}
