package memory

import (
	"context"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

func TestTimeline(t *testing.T) {
	ctx := context.Background()
	s := New(t.TempDir(), lock.New(lock.Options{}), clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)))
	s.NoSync = true
	var obs []Observation
	for i, text := range []string{"first step", "second step", "third step", "fourth step", "fifth step"} {
		obs = append(obs, Observation{Agent: "engineer", IssueNumber: 7, Category: KeyFact, Content: text,
			Timestamp: clock.Format(time.Date(2026, 3, 1, 9, i, 0, 0, time.UTC))})
	}
	obs = append(obs, Observation{Agent: "engineer", IssueNumber: 8, Category: KeyFact, Content: "another issue"})
	stored, err := s.Store(ctx, obs)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := s.Timeline(ctx, stored[2].ID, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range tl.Observations {
		got = append(got, o.Content)
	}
	if len(got) != 4 || got[0] != "second step" || got[3] != "fifth step" || tl.Observations[tl.At].ID != stored[2].ID {
		t.Fatalf("timeline = %q at %d", got, tl.At)
	}
	if _, err := s.Timeline(ctx, "obs-engineer-7-1-nothere", 1, 1); err == nil {
		t.Fatal("a missing id gave a timeline")
	}
}
