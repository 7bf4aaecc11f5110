package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

func newTestStore(t *testing.T) (*Store, *clock.Fake, *[]string) {
	t.Helper()
	clk := clock.NewFake(time.Date(2026, 3, 1, 17, 0, 0, 0, time.UTC))
	s := New(filepath.Join(t.TempDir(), ".agentx", "memory"), lock.New(lock.Options{Clock: clk}), clk)
	s.NoSync = true
	// The freshness gate records nothing: tests that edit an issue file
	// in place after a search see the edit whatever the load (fresh_test
	// tests the gate).
	s.freshMargin = time.Hour
	var warns []string
	s.Warn = func(f string, a ...any) { warns = append(warns, fmt.Sprintf(f, a...)) }
	return s, clk, &warns
}

func obs(agent string, issue int, cat Category, content string) Observation {
	return Observation{Agent: agent, IssueNumber: issue, Category: cat, Content: content, SessionID: "s-1"}
}

func TestStoreSearchGetRemove(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, clk, _ := newTestStore(t)
	got, err := s.Store(ctx, []Observation{
		obs("engineer", 42, Decision, "Chose per-issue JSON files for observation storage"),
		obs("product-manager", 42, KeyFact, "Login lockout lasts 15 minutes"),
	})
	if err != nil || len(got) != 2 {
		t.Fatalf("store: %v %v", got, err)
	}
	if !strings.HasPrefix(got[1].ID, "obs-productmanager-42-") || got[0].Tokens != EstimateTokens(got[0].Content) {
		t.Fatalf("ids/tokens: %+v", got)
	}
	clk.Advance(time.Minute)
	// Appending path.
	more, err := s.Store(ctx, []Observation{obs("engineer", 42, Error, "ENOENT reading manifest on first run"),
		obs("engineer", 4, CodeChange, "Created src/memory/types.ts")})
	if err != nil || len(more) != 2 {
		t.Fatalf("store 2: %v %v", more, err)
	}
	// Duplicates are not stored twice.
	dup, err := s.Store(ctx, []Observation{got[0], obs("engineer", 42, Decision, "Chose per-issue JSON files for observation storage")})
	if err != nil || len(dup) != 0 {
		t.Fatalf("dup: %v %v", dup, err)
	}
	rows, err := s.Search(ctx, Query{Text: "manifest storage"})
	if err != nil || len(rows) != 2 {
		t.Fatalf("search: %+v %v", rows, err)
	}
	rows, err = s.Search(ctx, Query{Text: "4"})
	if err != nil || len(rows) != 0 {
		t.Fatalf("`4` must not match issue 42: %+v", rows)
	}
	rows, err = s.Search(ctx, Query{Issue: 42})
	if err != nil || len(rows) != 3 || rows[0].ID != more[0].ID {
		t.Fatalf("filter: %+v %v", rows, err)
	}
	o, err := s.GetByID(ctx, got[1].ID)
	if err != nil || o.Content != "Login lockout lasts 15 minutes" {
		t.Fatalf("get: %+v %v", o, err)
	}
	ok, err := s.Remove(ctx, got[1].ID)
	if err != nil || !ok {
		t.Fatalf("remove: %v %v", ok, err)
	}
	if _, err := s.GetByID(ctx, got[1].ID); !errcode.Is(err, errcode.NotFound) {
		t.Fatalf("get removed: %v", err)
	}
	checkAgree(t, s)
	st, err := s.Stats(ctx)
	if err != nil || st.TotalObservations != 3 || st.IssueCount != 2 || st.ByAgent["engineer"] != 3 {
		t.Fatalf("stats: %+v %v", st, err)
	}
	// The index is derived: deleting it loses nothing.
	if err := os.Remove(s.IndexPath()); err != nil {
		t.Fatal(err)
	}
	rows, err = s.Search(ctx, Query{Text: "lockout manifest"})
	if err != nil || len(rows) != 1 {
		t.Fatalf("after index delete: %+v %v", rows, err)
	}
	if err := s.IncrementRecallCount(ctx, []string{more[0].ID, more[0].ID}); err != nil {
		t.Fatal(err)
	}
	o, _ = s.GetByID(ctx, more[0].ID)
	if o.RecallCount != 1 {
		t.Fatalf("recall count: %d", o.RecallCount)
	}
	// A fold of many recalls is one rewrite; unknown ids are skipped.
	if err := s.AddRecallCounts(ctx, map[string]int{more[0].ID: 12, "obs-x-1-1-abcdef": 3}); err != nil {
		t.Fatal(err)
	}
	o, _ = s.GetByID(ctx, more[0].ID)
	if o.RecallCount != 13 {
		t.Fatalf("recall count after a fold of 12: %d", o.RecallCount)
	}
}

func TestListsAndDateFilters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, clk, _ := newTestStore(t)
	if _, err := s.Store(ctx, []Observation{obs("engineer", 1, Decision, "early decision")}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(48 * time.Hour)
	if _, err := s.Store(ctx, []Observation{obs("architect", 1, Decision, "late decision"), obs("engineer", 2, Error, "late error")}); err != nil {
		t.Fatal(err)
	}
	if rows, _ := s.Search(ctx, Query{Agent: "engineer", Limit: -1}); len(rows) != 2 || rows[0].Summary != "late error" {
		t.Fatalf("by agent, newest first: %+v", rows)
	}
	if rows, _ := s.Search(ctx, Query{Category: Decision, Limit: -1}); len(rows) != 2 {
		t.Fatalf("by category: %+v", rows)
	}
	since := clk.Now().Add(-time.Hour)
	if rows, _ := s.Search(ctx, Query{Text: "decision", Since: since}); len(rows) != 1 || rows[0].Agent != "architect" {
		t.Fatalf("since: %+v", rows)
	}
	if rows, _ := s.Search(ctx, Query{Text: "decision", Until: since}); len(rows) != 1 || rows[0].Agent != "engineer" {
		t.Fatalf("until: %+v", rows)
	}
	if _, err := s.Store(ctx, []Observation{{Agent: "x", IssueNumber: 1, Category: "opinion", Content: "c"}}); !errcode.Is(err, errcode.InvalidInput) {
		t.Fatalf("unknown category: %v", err)
	}
}
