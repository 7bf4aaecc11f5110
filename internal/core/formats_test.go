package core

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/agentstatus"
	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/compact"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/settled"
	"github.com/agentx-dev/agentx/internal/core/tombstone"
)

// TestFormatsDocListsTheKeysWeWrite keeps the marked table of
// docs/formats.md equal to the keys the code writes: the memory files as
// a real store writes them (stored, compacted, recalled, archived,
// removed), and fully populated ledgers, locks and tombstones marshalled.
func TestFormatsDocListsTheKeysWeWrite(t *testing.T) {
	t.Parallel()
	doc := docKeyTable(t)
	got := map[string][]string{}
	add := func(object string, keys map[string]bool) {
		for k := range keys {
			got[object] = append(got[object], k)
		}
	}
	for object, keys := range memoryKeys(t) {
		add(object, keys)
	}
	for object, keys := range ledgerKeys(t) {
		add(object, keys)
	}
	add("lock file", objectKeys(t, mustJSON(t, lock.Content{PID: 1, Timestamp: "t", Created: "t", Agent: "a", Host: "h", Nonce: "n"})))
	issue, who := 3, "architect"
	add("agent status entry", objectKeys(t, mustJSON(t, agentstatus.Status{Status: "working", Issue: &issue, LastActivity: "t",
		ClarificationID: &who, WaitingOn: &who, RespondingTo: &who})))
	add("tombstone", objectKeys(t, mustJSON(t, tombstone.Tombstone{Kind: "k", ID: "i", Reason: "r", Into: "x", At: "t", By: "b", Hash: "h", Revived: true})))
	art := artifact.Artifact{ID: "PRD-1", Workflow: "w", Step: "s", Agent: "a", Path: "p", Blob: "b", Commit: "c", Created: "t", Updated: "t",
		DependsOn: []artifact.Dep{{ID: "X", Blob: "b"}}, Status: artifact.Draft, Reopened: true, Notified: []artifact.Notice{{ID: "X", Blob: "b", At: "t"}}}
	art.Seal()
	add("artifact", objectKeys(t, mustJSON(t, art)))
	add("artifact ledger", objectKeys(t, mustJSON(t, artifact.File{IssueNumber: 1, Artifacts: []artifact.Artifact{art},
		Tombstones: tombstone.Set{{Kind: artifact.TombstoneKind, ID: "X", At: "t"}}})))
	for object := range got {
		sort.Strings(got[object])
	}
	for object, keys := range got {
		if want, ok := doc[object]; !ok {
			t.Errorf("docs/formats.md: no row %q (keys %v)", object, keys)
		} else if strings.Join(want, " ") != strings.Join(keys, " ") {
			t.Errorf("docs/formats.md row %q lists %v; the code writes %v", object, want, keys)
		}
	}
	for object := range doc {
		if got[object] == nil {
			t.Errorf("docs/formats.md row %q: nothing in this test writes it", object)
		}
	}
}

// docKeyTable parses the table between the keys markers: `| object | `k`, ... |`.
func docKeyTable(t *testing.T) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "formats.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start := strings.Index(text, "<!-- keys -->")
	end := strings.Index(text, "<!-- /keys -->")
	if start < 0 || end < start {
		t.Fatal("docs/formats.md has no <!-- keys --> ... <!-- /keys --> table")
	}
	out := map[string][]string{}
	code := regexp.MustCompile("`([^`]+)`")
	paren := regexp.MustCompile(`\([^()]*\)`)
	for _, line := range strings.Split(text[start:end], "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") || strings.TrimSpace(cells[1]) == "Object" {
			continue
		}
		// The keys are the code spans outside parentheses (what a key
		// means, in parentheses, may name values and files).
		cell := cells[2]
		for paren.MatchString(cell) {
			cell = paren.ReplaceAllString(cell, "")
		}
		var keys []string
		for _, m := range code.FindAllStringSubmatch(cell, -1) {
			keys = append(keys, m[1])
		}
		sort.Strings(keys)
		out[strings.TrimSpace(cells[1])] = keys
	}
	return out
}

// memoryKeys runs a store through every write that adds a key and
// collects the keys of what it wrote.
func memoryKeys(t *testing.T) map[string]map[string]bool {
	t.Helper()
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := clock.NewFake(now)
	st := memory.New(filepath.Join(t.TempDir(), "memory"), lock.New(lock.Options{Clock: clk}), clk)
	var batch []memory.Observation
	for i := range 6 {
		o := memory.Observation{Agent: "engineer", IssueNumber: 3, Category: memory.Decision, SessionID: "s",
			Content: "Token refresh handler retries the call " + strings.Repeat("again ", i+1)}
		o.SetSourceBytes(100)
		o.SetFiles([]string{"a.go"})
		o.SetStep("implement")
		batch = append(batch, o)
	}
	stored, err := st.Store(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	must(t, st.AddRecallCounts(ctx, map[string]int{stored[0].ID: 1}))
	if _, err := st.Remove(ctx, stored[5].ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Compact(ctx, 3, func(obs []memory.Observation) ([]memory.Observation, []memory.Observation, error) {
		p := compact.Make(obs, compact.Options{})
		return p.Keep, p.Archive, nil
	}); err != nil {
		t.Fatal(err)
	}
	// A settled clarification's decision (its provenance key).
	at := "2026-01-01T00:00:00.000Z"
	if _, err := settled.Remember(ctx, st, ledger.Record{ID: "CLR-3-001", IssueNumber: 3, From: "engineer", To: "architect",
		Topic: "t", Status: ledger.Resolved, Round: 1, Created: at, ResolvedAt: &at,
		Thread: []ledger.Entry{{Round: 1, From: "engineer", Type: ledger.Question, Body: "q?", Timestamp: at}}}); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]bool{"memory issue file": {}, "observation": {}, "manifest": {}, "manifest entry": {}}
	for _, path := range []string{st.IssuePath(3), st.ArchivePath(3)} {
		var f map[string]json.RawMessage
		must(t, json.Unmarshal(mustRead(t, path), &f))
		merge(out["memory issue file"], objectKeys(t, mustRead(t, path)))
		var list []json.RawMessage
		must(t, json.Unmarshal(f["observations"], &list))
		for _, o := range list {
			merge(out["observation"], objectKeys(t, o))
		}
	}
	manifest := mustRead(t, st.ManifestPath())
	merge(out["manifest"], objectKeys(t, manifest))
	var m struct{ Entries []json.RawMessage }
	must(t, json.Unmarshal(manifest, &m))
	for _, e := range m.Entries {
		merge(out["manifest entry"], objectKeys(t, e))
	}
	return out
}

// ledgerKeys marshals a fully populated ledger: every reference field, the
// protocol's own record keys and its record hash, a sealed thread entry, tombstones and the id
// high-water mark.
func ledgerKeys(t *testing.T) map[string]map[string]bool {
	t.Helper()
	resolved := "2026-01-01T00:00:00.000Z"
	e := ledger.Entry{Round: 1, From: "engineer", Type: "question", Body: "why?", Timestamp: resolved}.Sealed()
	e.SetReceipt(ledger.Receipt{At: resolved, Session: "s1"}) // a delivered entry's receipt (issue 34)
	r := ledger.Record{ID: "CLR-3-001", IssueNumber: 3, From: "engineer", To: "architect", Topic: "t", Blocking: true,
		Status: "resolved", Round: 1, MaxRounds: 5, Created: resolved, StaleAfter: resolved, ResolvedAt: &resolved, Thread: []ledger.Entry{e}}
	for _, k := range protocol.RecordKeys() {
		r.SetExtra(k, json.RawMessage(`1`))
	}
	r.Seal() // as the protocol's request seals every record it makes
	l := ledger.Ledger{IssueNumber: 3, Clarifications: []ledger.Record{r}}
	l.SetHighWater(9)
	l.Extra = tombstone.ToExtra(l.Extra, tombstone.Set{{Kind: tombstone.Record, ID: "CLR-3-002", Reason: "removed", At: resolved}})
	data := mustJSON(t, l)
	var f struct{ Clarifications []json.RawMessage }
	must(t, json.Unmarshal(data, &f))
	var rec struct{ Thread []json.RawMessage }
	must(t, json.Unmarshal(f.Clarifications[0], &rec))
	return map[string]map[string]bool{
		"ledger file":   objectKeys(t, data),
		"ledger record": objectKeys(t, f.Clarifications[0]),
		"thread entry":  objectKeys(t, rec.Thread[0]),
	}
}

func objectKeys(t *testing.T, data []byte) map[string]bool {
	t.Helper()
	var m map[string]json.RawMessage
	must(t, json.Unmarshal(data, &m))
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

func merge(into, from map[string]bool) {
	for k := range from {
		into[k] = true
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	must(t, err)
	return data
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	return data
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
