package monitor

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/protocol"
)

var t0 = time.Date(2026, 3, 1, 17, 0, 0, 0, time.UTC)

// rec builds an open record: id "CLR-<issue>-<seq>", created at t0+seq min,
// due 30 min later, one question.
func rec(issue, seq int, from, to string, blocking bool, status ledger.Status) ledger.Record {
	created := t0.Add(time.Duration(seq) * time.Minute)
	return ledger.Record{
		ID: fmt.Sprintf("CLR-%d-%03d", issue, seq), IssueNumber: issue, From: from, To: to, Topic: fmt.Sprintf("topic %d-%d", issue, seq),
		Blocking: blocking, Status: status, Round: 1, MaxRounds: 5,
		Created: clock.Format(created), StaleAfter: clock.Format(created.Add(30 * time.Minute)),
		Thread: []ledger.Entry{{Round: 1, From: from, Type: ledger.Question, Body: fmt.Sprintf("question %d of issue %d", seq, issue), Timestamp: clock.Format(created)}},
	}
}

func withStaleRound(r ledger.Record, n int) ledger.Record {
	r.SetExtra("staleRound", json.RawMessage(fmt.Sprint(n)))
	return r
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	base := rec(42, 1, "engineer", "architect", true, ledger.Pending) // due t0+31m
	stale := base
	stale.Status = ledger.Stale
	answered := base
	answered.Status = ledger.Answered
	round2 := withStaleRound(base, 1)
	round2.Round = 2
	badDue := base
	badDue.StaleAfter = "soon"
	tests := []struct {
		name string
		r    ledger.Record
		now  time.Time
		want int
	}{
		{"within SLA", base, t0.Add(30 * time.Minute), 0},
		{"exactly due is not late", base, t0.Add(31 * time.Minute), 0},
		{"first timeout", base, t0.Add(32 * time.Minute), 1},
		{"old tool marked stale, never retried", stale, t0.Add(32 * time.Minute), 1},
		{"second timeout", withStaleRound(stale, 1), t0.Add(32 * time.Minute), 2},
		{"handled, within the pushed SLA", func() ledger.Record {
			r := withStaleRound(stale, 1)
			r.StaleAfter = clock.Format(t0.Add(2 * time.Hour))
			return r
		}(), t0.Add(time.Hour), 0},
		{"answered never times out", answered, t0.Add(10 * time.Hour), 0},
		{"a new round starts over", round2, t0.Add(32 * time.Minute), 1},
		{"unreadable staleAfter", badDue, t0.Add(10 * time.Hour), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := protocol.Timeout(&tt.r, tt.now); got != tt.want {
				t.Errorf("Timeout = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestSimilar(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want bool
	}{
		{"Middleware or controller?", "middleware or controller", true},
		{"Should validation live in middleware or controller?", "So should the validation live in the middleware or the controller?", true},
		{"Middleware or controller?", "Which token lifetime do we use?", false},
		{"Does the middleware refresh tokens?", "Middleware or controller?", false},
		{"", "", false},
		{"?!", "?!", false},
		{"Größe der Tabelle?", "größe der tabelle", true},
	}
	for _, tt := range tests {
		if got := Similar(tt.a, tt.b); got != tt.want {
			t.Errorf("Similar(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func ids(recs []ledger.Record) []string {
	out := []string{}
	for _, r := range recs {
		out = append(out, r.ID)
	}
	sort.Strings(out)
	return out
}

func TestDetectStale(t *testing.T) {
	t.Parallel()
	now := t0.Add(2 * time.Hour)
	a := rec(1, 1, "engineer", "architect", true, ledger.Pending)
	b := withStaleRound(rec(1, 2, "engineer", "architect", false, ledger.Stale), 1)
	c := rec(1, 3, "engineer", "architect", true, ledger.Answered)
	d := rec(2, 4, "engineer", "architect", true, ledger.Resolved)
	e := rec(2, 5, "engineer", "architect", true, ledger.Escalated)
	p := Detect([]ledger.Record{e, d, c, b, a}, now, config.DefaultPriority)
	var got []string
	for _, f := range p.Stale {
		got = append(got, fmt.Sprintf("%s:%d", f.Record.ID, f.Timeout))
	}
	want := []string{"CLR-1-001:1", "CLR-1-002:2"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("stale = %v, want %v", got, want)
	}
	if len(p.Stuck) != 0 || len(p.Deadlocks) != 0 {
		t.Errorf("unexpected findings: %+v", p)
	}
}

func TestDetectStuck(t *testing.T) {
	t.Parallel()
	repeat := rec(7, 1, "engineer", "architect", true, ledger.Pending)
	repeat.Round = 3
	repeat.Thread = []ledger.Entry{
		{Round: 1, From: "engineer", Type: ledger.Question, Body: "Should the cache key include the tenant id?"},
		{Round: 1, From: "architect", Type: ledger.Answer, Body: "Depends."},
		{Round: 2, From: "engineer", Type: ledger.Question, Body: "What does it depend on?"},
		{Round: 2, From: "architect", Type: ledger.Answer, Body: "On the tenant."},
		{Round: 3, From: "engineer", Type: ledger.Question, Body: "So: should the cache key include the tenant ID?"},
	}
	progress := rec(7, 2, "engineer", "architect", true, ledger.Answered)
	progress.Thread = append(progress.Thread, ledger.Entry{Round: 2, From: "engineer", Type: ledger.Question, Body: "And the retention period?"})
	resolvedRepeat := repeat
	resolvedRepeat.ID, resolvedRepeat.Status = "CLR-7-009", ledger.Resolved

	there := rec(8, 1, "engineer", "architect", false, ledger.Pending)
	there.Topic = "Rate limits"
	back := rec(8, 2, "architect", "engineer", false, ledger.Pending)
	back.Topic = "rate limits"
	otherIssue := rec(9, 3, "architect", "engineer", false, ledger.Pending)
	otherIssue.Topic = "rate limits"
	otherTopic := rec(8, 4, "architect", "engineer", false, ledger.Pending)
	otherTopic.Topic = "deployment window"

	p := Detect([]ledger.Record{repeat, progress, resolvedRepeat, there, back, otherIssue, otherTopic}, t0.Add(time.Minute*5), nil)
	if len(p.Stuck) != 2 {
		t.Fatalf("stuck = %+v, want 2 findings", p.Stuck)
	}
	if f := p.Stuck[0]; f.Record.ID != "CLR-7-001" || !reflect.DeepEqual(f.Rounds, []int{1, 3}) || !strings.Contains(f.Detail, "[Round 3]") {
		t.Errorf("repeat finding = %+v", f)
	}
	if f := p.Stuck[1]; f.Record.ID != "CLR-8-002" || f.Flipped != "CLR-8-001" || !strings.Contains(f.Detail, "Direction flipped") {
		t.Errorf("flip finding = %+v", f)
	}
}

// deadlockCase is one wait-for graph: edges "from>to@issue" (blocking, pending).
func TestDetectDeadlock(t *testing.T) {
	t.Parallel()
	type edge struct {
		from, to string
		issue    int
		blocking bool
		status   ledger.Status
	}
	bl := func(from, to string, issue int) edge { return edge{from, to, issue, true, ledger.Pending} }
	tests := []struct {
		name      string
		edges     []edge
		priority  []string
		wantCyc   []string // "a>b>c" winner first, one per deadlock
		wantEsc   []string
		wantKeep  []string
		stuckFree bool
	}{
		{
			name:    "mutual blocking: upstream wins",
			edges:   []edge{bl("engineer", "architect", 1), bl("architect", "engineer", 2)},
			wantCyc: []string{"architect>engineer"}, wantEsc: []string{"CLR-1-001"}, wantKeep: []string{"CLR-2-002"},
		},
		{
			name:    "non-blocking mutual requests never deadlock",
			edges:   []edge{{"engineer", "architect", 1, false, ledger.Pending}, {"architect", "engineer", 2, false, ledger.Pending}},
			wantCyc: nil,
		},
		{
			name:    "an answered request waits on nobody",
			edges:   []edge{bl("engineer", "architect", 1), {"architect", "engineer", 2, true, ledger.Answered}},
			wantCyc: nil,
		},
		{
			name:    "stale still waits",
			edges:   []edge{bl("engineer", "architect", 1), {"architect", "engineer", 2, true, ledger.Stale}},
			wantCyc: []string{"architect>engineer"}, wantEsc: []string{"CLR-1-001"}, wantKeep: []string{"CLR-2-002"},
		},
		{
			name:    "three agents across two issues",
			edges:   []edge{bl("engineer", "reviewer", 1), bl("reviewer", "architect", 2), bl("architect", "engineer", 1)},
			wantCyc: []string{"architect>engineer>reviewer"}, wantEsc: []string{"CLR-1-001", "CLR-2-002"}, wantKeep: []string{"CLR-1-003"},
		},
		{
			name: "four agents across two issues",
			edges: []edge{bl("tester", "engineer", 1), bl("engineer", "ux-designer", 2), bl("ux-designer", "reviewer", 2),
				bl("reviewer", "tester", 1)},
			wantCyc: []string{"ux-designer>reviewer>tester>engineer"}, wantEsc: []string{"CLR-1-001", "CLR-1-004", "CLR-2-002"}, wantKeep: []string{"CLR-2-003"},
		},
		{
			name:    "tie between unknown agents: the older request continues",
			edges:   []edge{bl("zeta", "alpha", 1), bl("alpha", "zeta", 1)},
			wantCyc: []string{"zeta>alpha"}, wantEsc: []string{"CLR-1-002"}, wantKeep: []string{"CLR-1-001"},
			priority: []string{"product-manager"},
		},
		{
			name:     "configured priority overrides the default",
			edges:    []edge{bl("engineer", "architect", 1), bl("architect", "engineer", 2)},
			priority: []string{"engineer", "architect"},
			wantCyc:  []string{"engineer>architect"}, wantEsc: []string{"CLR-2-002"}, wantKeep: []string{"CLR-1-001"},
		},
		{
			// pm<->eng and pm->arch->eng->pm share the edge eng->pm: breaking
			// the longer cycle escalates it, which breaks the pair too.
			name: "two cycles sharing an edge: broken once",
			edges: []edge{bl("engineer", "product-manager", 1), bl("product-manager", "engineer", 1),
				bl("product-manager", "architect", 2), bl("architect", "engineer", 2)},
			wantCyc: []string{"product-manager>architect>engineer"},
			wantEsc: []string{"CLR-1-001", "CLR-2-004"}, wantKeep: []string{"CLR-2-003"},
		},
		{
			name:    "a chain is no cycle",
			edges:   []edge{bl("engineer", "architect", 1), bl("architect", "product-manager", 1)},
			wantCyc: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var recs []ledger.Record
			for i, e := range tt.edges {
				recs = append(recs, rec(e.issue, i+1, e.from, e.to, e.blocking, e.status))
			}
			prio := tt.priority
			if prio == nil {
				prio = config.DefaultPriority
			}
			p := Detect(recs, t0.Add(5*time.Minute), prio)
			var cyc, esc, keep []string
			for _, d := range p.Deadlocks {
				cyc = append(cyc, strings.Join(d.Agents, ">"))
				esc = append(esc, ids(d.Escalate)...)
				keep = append(keep, ids(d.Continue)...)
				if !strings.Contains(d.Reason(), "deadlock: "+strings.Join(d.Agents, " -> ")) {
					t.Errorf("reason = %q", d.Reason())
				}
			}
			sort.Strings(cyc)
			sort.Strings(esc)
			sort.Strings(keep)
			if !reflect.DeepEqual(cyc, tt.wantCyc) || !reflect.DeepEqual(esc, tt.wantEsc) || !reflect.DeepEqual(keep, tt.wantKeep) {
				t.Errorf("cycles %v esc %v keep %v; want %v %v %v", cyc, esc, keep, tt.wantCyc, tt.wantEsc, tt.wantKeep)
			}
			if len(p.Stale) != 0 {
				t.Errorf("stale within SLA: %+v", p.Stale)
			}
		})
	}
}

func TestElementaryCycles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		n    int
		adj  [][]int
		want [][]int
	}{
		{"empty", 3, [][]int{nil, nil, nil}, nil},
		{"self loop ignored", 1, [][]int{{0}}, nil},
		{"pair", 2, [][]int{{1}, {0}}, [][]int{{0, 1}}},
		{"triangle plus pair", 3, [][]int{{1, 2}, {2}, {0}}, [][]int{{0, 1, 2}, {0, 2}}},
		{"complete graph of 3", 3, [][]int{{1, 2}, {0, 2}, {0, 1}}, [][]int{{0, 1}, {0, 1, 2}, {0, 2}, {0, 2, 1}, {1, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := elementaryCycles(tt.n, tt.adj)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("cycles = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestElementaryCyclesBounded(t *testing.T) {
	t.Parallel()
	// A complete graph of 9 agents has far more than maxCycles cycles.
	n := 9
	adj := make([][]int, n)
	for i := range adj {
		for j := 0; j < n; j++ {
			if i != j {
				adj[i] = append(adj[i], j)
			}
		}
	}
	if got := len(elementaryCycles(n, adj)); got != maxCycles {
		t.Errorf("cycles = %d, want the bound %d", got, maxCycles)
	}
}
