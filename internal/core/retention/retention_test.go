package retention

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/contenthash"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/tombstone"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func obs(issue, i int, words string) memory.Observation {
	content := fmt.Sprintf("Issue %d note %d: %s", issue, i, words)
	return memory.Observation{Agent: "engineer", IssueNumber: issue, Category: memory.Decision,
		Content: content, Summary: memory.Summarize(content), SessionID: "s1"}
}

func ids(list []memory.Observation) map[string]bool {
	m := map[string]bool{}
	for _, o := range list {
		m[o.ID] = true
	}
	return m
}

// An aged store shrinks by itself, one issue per hook run: the stale
// observations of each issue are archived in turn (one recalled lately
// stays), each leaves a tombstone saying where it went, the archive is
// searchable and a restore brings one back for good.
func TestSlicesArchiveAnAgedStoreAcrossRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, clk, dir := newStore(t)
	stored, err := st.Store(ctx, []memory.Observation{
		obs(1, 1, "postgres pooling decided"), obs(1, 2, "retry budget kept"), obs(1, 3, "feature flag zebra"),
		obs(2, 1, "cache eviction lru"), obs(2, 2, "queue ordering fifo"),
	})
	if err != nil || len(stored) != 5 {
		t.Fatalf("store: %v %d", err, len(stored))
	}
	recalled := stored[1].ID
	clk.Set(t0.AddDate(0, 0, 60))
	if err := st.AddRecallCounts(ctx, map[string]int{recalled: 1}); err != nil {
		t.Fatal(err)
	}
	clk.Set(t0.AddDate(0, 0, 100))
	now := clk.Now()
	p := Policy{ArchiveAfter: 90 * 24 * time.Hour}
	state := filepath.Join(dir, "retention.json")

	var runs []Result
	for range 3 {
		res, ok, err := Slice(ctx, st, p, now, state)
		if err != nil || !ok {
			t.Fatalf("slice: %v %v", ok, err)
		}
		runs = append(runs, res)
	}
	if runs[0].Issue != 1 || runs[0].Archived != 2 || runs[1].Issue != 2 || runs[1].Archived != 2 || runs[2].Issue != 1 || runs[2].Archived != 0 {
		t.Fatalf("runs: %+v", runs)
	}
	left, _ := st.GetByIssue(ctx, 1)
	if len(left) != 1 || left[0].ID != recalled {
		t.Fatalf("issue 1 keeps %+v, want only the recalled %s", left, recalled)
	}
	if left, _ := st.GetByIssue(ctx, 2); len(left) != 0 {
		t.Fatalf("issue 2 keeps %d", len(left))
	}
	dead := buried(t, st, 1)
	if len(dead) != 2 || dead[0].Reason != memory.ArchiveReason || dead[0].Into != "archive/issue-1-archived.json" {
		t.Fatalf("tombstones %+v", dead)
	}

	rows, err := st.SearchArchived(ctx, memory.Query{Text: "zebra"})
	if err != nil || len(rows) != 1 || rows[0].IssueNumber != 1 {
		t.Fatalf("search --archived zebra: %v %+v", err, rows)
	}
	if rows, _ := st.Search(ctx, memory.Query{Text: "zebra"}); len(rows) != 0 {
		t.Fatalf("the live search still finds %+v", rows)
	}
	back, err := st.Restore(ctx, rows[0].ID)
	if err != nil || back.ID != rows[0].ID {
		t.Fatalf("restore: %v", err)
	}
	if rows, _ := st.Search(ctx, memory.Query{Text: "zebra"}); len(rows) != 1 {
		t.Fatalf("restored, search finds %+v", rows)
	}
	if rows, _ := st.SearchArchived(ctx, memory.Query{Text: "zebra"}); len(rows) != 0 {
		t.Fatalf("restored, still listed as archived: %+v", rows)
	}
	dead = buried(t, st, 1)
	if dead.Has(tombstone.Observation, back.ID) {
		t.Fatalf("restored but still buried: %+v", dead)
	}
	if _, err := st.Restore(ctx, back.ID); err == nil {
		t.Fatal("a second restore of one observation succeeded")
	}
	if !ids(mustGet(t, st, 1))[back.ID] || back.Integrity() != contenthash.Intact {
		t.Fatal("restored observation missing or tampered")
	}
}

// An issue past CompactOver is compacted by its slice (what is old enough
// merges; the originals go to the archive); All does every issue at once.
func TestAllCompactsOverfullIssues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, clk, _ := newStore(t)
	var batch []memory.Observation
	for i := range 30 {
		batch = append(batch, obs(5, i, "token refresh handler retries"))
	}
	batch = append(batch, obs(6, 1, "small issue stays"))
	if _, err := st.Store(ctx, batch); err != nil {
		t.Fatal(err)
	}
	clk.Set(t0.AddDate(0, 0, 30))
	res, err := All(ctx, st, Policy{ArchiveAfter: 90 * 24 * time.Hour, CompactOver: 20}, clk.Now())
	if err != nil || len(res) != 1 || res[0].Issue != 5 || res[0].After > 15 || res[0].Compacted == 0 {
		t.Fatalf("all: %v %+v", err, res)
	}
	if rows, _ := st.SearchArchived(ctx, memory.Query{Text: "refresh", Limit: -1}); len(rows) != 30 {
		t.Fatalf("archived originals: %d", len(rows))
	}
	// The manifest and index followed once, at the end, and no write is
	// left pending.
	if rows, _ := st.Search(ctx, memory.Query{Text: "refresh", Limit: -1}); len(rows) != res[0].After {
		t.Fatalf("the index holds %d rows of issue 5, the file %d", len(rows), res[0].After)
	}
	if left, _ := os.ReadDir(filepath.Join(st.Dir, "pending")); len(left) != 0 {
		t.Fatalf("pending markers left: %v", left)
	}
}

func mustGet(t *testing.T, st *memory.Store, issue int) []memory.Observation {
	t.Helper()
	list, err := st.GetByIssue(context.Background(), issue)
	must(t, err)
	return list
}

// buried is the tombstones of an issue file.
func buried(t *testing.T, st *memory.Store, issue int) tombstone.Set {
	t.Helper()
	data, err := os.ReadFile(st.IssuePath(issue))
	must(t, err)
	f, err := memory.ParseIssueFile("issue file", data)
	must(t, err)
	dead, err := f.Tombstones("issue file")
	must(t, err)
	return dead
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func newStore(t *testing.T) (*memory.Store, *clock.Fake, string) {
	clk := clock.NewFake(t0)
	dir := t.TempDir()
	return memory.New(filepath.Join(dir, "memory"), lock.New(lock.Options{Clock: clk}), clk), clk, dir
}

// hook start looks at the store's size once a day: the first call of a day
// runs the statistics (their warnings, none here), the next ones do not.
func TestDueAlertsOnceADay(t *testing.T) {
	t.Parallel()
	st, _, dir := newStore(t)
	state := filepath.Join(dir, "retention.json")
	ctx := context.Background()
	first, err := DueAlerts(ctx, st, t0, state)
	must(t, err)
	if first == nil {
		t.Fatal("the first call of the day did not look")
	}
	if again, _ := DueAlerts(ctx, st, t0.Add(3*time.Hour), state); again != nil {
		t.Fatalf("looked twice in a day: %v", again)
	}
	if next, _ := DueAlerts(ctx, st, t0.AddDate(0, 0, 1), state); next == nil {
		t.Fatal("the next day did not look")
	}
	if s := LoadState(state); s.AlertsShown != "2026-01-02" {
		t.Fatalf("state %+v", s)
	}
}

// The hooks' retention fails open: an off policy touches nothing, a state
// file that cannot be written is a warning, never an error.
func TestHooksFailOpen(t *testing.T) {
	t.Parallel()
	st, _, dir := newStore(t)
	var warns []string
	warn := func(format string, args ...any) { warns = append(warns, fmt.Sprintf(format, args...)) }
	ctx := context.Background()
	off := &Hooks{Store: nil, Warn: warn} // a nil store: an off policy must not reach it
	off.Slice(ctx)
	h := &Hooks{Store: st, Now: t0, StateFile: dir, Warn: warn, // a directory: the state cannot be written
		Policy: Policy{ArchiveAfter: 24 * time.Hour}}
	h.Alerts(ctx)
	if len(warns) != 1 {
		t.Fatalf("warnings = %q, want one for the state file", warns)
	}
	h.StateFile = filepath.Join(dir, "retention.json")
	if got := h.Alerts(ctx); got == nil {
		t.Fatal("the first look of the day returned nothing")
	}
}

// The state of the old layout (in the memory directory) is moved to the
// new place (the pending directory, made for it) at the next hook, and
// kept: the alerts already shown today are not shown again.
func TestHooksMoveTheOldState(t *testing.T) {
	t.Parallel()
	st, _, dir := newStore(t)
	old := filepath.Join(dir, "retention.json")
	must(t, SaveState(old, State{Cursor: 4, AlertsShown: t0.UTC().Format(time.DateOnly)}))
	h := &Hooks{Store: st, Now: t0, StateFile: filepath.Join(dir, "pending", "retention.json"), OldStateFile: old,
		Warn: func(format string, args ...any) { t.Errorf(format, args...) }}
	if got := h.Alerts(context.Background()); got != nil {
		t.Fatalf("alerts shown twice in a day: %v", got)
	}
	if s := LoadState(h.StateFile); s.Cursor != 4 {
		t.Fatalf("moved state %+v", s)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Fatalf("the old state is still there: %v", err)
	}
}
