package compact

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/memory/synth"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
)

var now = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

func mk(id string, cat memory.Category, days int, content string) memory.Observation {
	return memory.Observation{ID: id, Agent: "engineer", IssueNumber: 7, Category: cat, Content: content,
		Summary: memory.Summarize(content), Timestamp: clock.Format(now.AddDate(0, 0, -days)), SessionID: "s1"}
}

func from(o memory.Observation) []string {
	for _, x := range o.Extra {
		if x.Key == ExtraFrom {
			var ids []string
			_ = json.Unmarshal(x.Value, &ids)
			return ids
		}
	}
	return nil
}

func TestMakeMergesOverlappingSameCategory(t *testing.T) {
	t.Parallel()
	obs := []memory.Observation{
		mk("d1", memory.Decision, 40, "Token validation lives in the auth middleware, not in controllers."),
		mk("d2", memory.Decision, 39, "The auth middleware also refreshes expired tokens before validation."),
		mk("e1", memory.Error, 38, "ECONNREFUSED from Redis when the session store was down."),
		mk("e2", memory.Error, 37, "Redis session store down again: ECONNREFUSED on login."),
		mk("k1", memory.KeyFact, 36, "Lockout lasts 15 minutes after five failed logins."),
		mk("new", memory.Decision, 1, "Recent decision about the auth middleware tokens stays as written."),
	}
	p := Make(obs, Options{Now: now, MinAge: 7 * 24 * time.Hour, Target: 0.99})
	if p.Merged != 2 || len(p.Archive) != 4 {
		t.Fatalf("merged %d, archived %d: %+v", p.Merged, len(p.Archive), p.Keep)
	}
	got := map[string]string{}
	for _, o := range p.Keep {
		if ids := from(o); ids != nil {
			got[string(o.Category)] = strings.Join(ids, ",")
			if o.SessionID != Session || o.ID != "" {
				t.Fatalf("summary %+v", o)
			}
		} else {
			got[o.ID] = "kept"
		}
	}
	want := map[string]string{"decision": "d1,d2", "error": "e1,e2", "k1": "kept", "new": "kept"}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	// A summary keeps its category, the newest member's time and every
	// member's words.
	for _, o := range p.Keep {
		if o.Category == memory.Decision && from(o) != nil {
			if o.Timestamp != obs[1].Timestamp || !strings.Contains(o.Content, "refreshes expired tokens") || !strings.Contains(o.Content, "not in controllers") {
				t.Fatalf("summary: %+v", o)
			}
		}
	}
	// Summaries are never merged again.
	again := Make(p.Keep, Options{Now: now, Target: 0.1})
	if len(again.Archive) != 0 && strings.Contains(fmt.Sprint(again.Archive), "Compacted") {
		t.Fatalf("a summary was merged again: %+v", again.Archive)
	}
}

func TestMakeBoundsContent(t *testing.T) {
	t.Parallel()
	var obs []memory.Observation
	for i := range 12 {
		obs = append(obs, mk(fmt.Sprintf("d%d", i), memory.Decision, 60-i, fmt.Sprintf("Decision %d about the cache layer: ", i)+strings.Repeat("details of the cache eviction policy ", 50)))
	}
	p := Make(obs, Options{Now: now})
	if len(p.Keep) > 6 {
		t.Fatalf("kept %d of 12", len(p.Keep))
	}
	for _, o := range p.Keep {
		if n := utf8.RuneCountInString(o.Content); n > sanitize.MaxChars {
			t.Fatalf("summary of %d characters", n)
		}
	}
}

// TestCompactRealisticIssue runs the plan through the store on a realistic
// old issue: the count at least halves, every original is in the archive,
// and each decision is still found by search.
func TestCompactRealisticIssue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := clock.NewFake(now)
	st := memory.New(t.TempDir(), lock.New(lock.Options{Clock: clk}), clk)
	st.NoSync = true
	all := synth.Observations(1500, 25, 3, now.AddDate(0, -4, 0))
	var issueObs []memory.Observation
	issue := all[0].IssueNumber
	for _, o := range all {
		if o.IssueNumber == issue {
			issueObs = append(issueObs, o)
		}
	}
	if len(issueObs) < 30 {
		t.Fatalf("synthetic issue has only %d observations", len(issueObs))
	}
	if _, err := st.Import(ctx, all); err != nil {
		t.Fatal(err)
	}
	var plan Plan
	kept, archived, err := st.Compact(ctx, issue, func(obs []memory.Observation) ([]memory.Observation, []memory.Observation, error) {
		plan = Make(obs, Options{Now: now, MinAge: 30 * 24 * time.Hour})
		return plan.Keep, plan.Archive, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if 2*len(kept) > len(issueObs) {
		t.Fatalf("%d observations -> %d: not halved", len(issueObs), len(kept))
	}
	if archived != len(plan.Archive) {
		t.Fatalf("archived %d, planned %d", archived, len(plan.Archive))
	}
	// Every original is either kept or archived, none lost.
	arch, err := memory.ParseIssueFile(st.ArchivePath(issue), mustRead(t, st.ArchivePath(issue)))
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, o := range arch.Observations {
		have[o.ID] = true
	}
	summaryOf := map[string]string{}
	for _, o := range kept {
		have[o.ID] = true
		for _, id := range from(o) {
			summaryOf[id] = o.ID
		}
	}
	for _, o := range issueObs {
		if !have[o.ID] {
			t.Fatalf("observation %s lost", o.ID)
		}
	}
	// Each archived decision: searching its summary finds its summary.
	decisions := 0
	for _, o := range plan.Archive {
		if o.Category != memory.Decision {
			continue
		}
		decisions++
		rows, err := st.Search(ctx, memory.Query{Text: o.Summary, Issue: issue, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, r := range rows {
			found = found || r.ID == summaryOf[o.ID]
		}
		if !found {
			t.Fatalf("decision %s (%q) not found by search after compaction", o.ID, o.Summary)
		}
	}
	if decisions == 0 {
		t.Fatal("no decision was merged")
	}
	t.Logf("issue #%d: %d -> %d observations, %d summaries, %d decisions findable", issue, len(issueObs), len(kept), plan.Merged, decisions)
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
