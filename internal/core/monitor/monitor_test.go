package monitor

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/responder"
	"github.com/agentx-dev/agentx/internal/core/router"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// fakeResponder answers for the agents in answers (an empty answer fails).
type fakeResponder struct {
	answers map[string]string
	calls   []responder.Request
}

func (f *fakeResponder) Has(agent string) bool { _, ok := f.answers[agent]; return ok }

func (f *fakeResponder) Respond(_ context.Context, agent string, req responder.Request) (string, error) {
	f.calls = append(f.calls, req)
	if f.answers[agent] == "" {
		return "", errors.New("responder crashed")
	}
	return f.answers[agent], nil
}

type env struct {
	t     *testing.T
	clk   *clock.Fake
	rt    *router.Router
	mon   *Monitor
	resp  *fakeResponder
	store *ledger.Store
}

func newEnv(t *testing.T, answers map[string]string) *env {
	t.Helper()
	ws := workspace.Workspace{Root: t.TempDir()}
	clk := clock.NewFake(t0)
	locks := lock.New(lock.Options{Clock: clk})
	store := &ledger.Store{WS: ws, Locks: locks, NoSync: true}
	resp := &fakeResponder{answers: answers}
	rt := router.New(router.Options{WS: ws, Ledgers: store, Locks: locks, Clock: clk,
		Events: &events.Log{Path: ws.EventsFile(), Locks: locks, Clock: clk}, Responder: resp})
	return &env{t: t, clk: clk, rt: rt, mon: New(rt), resp: resp, store: store}
}

func (e *env) put(recs ...ledger.Record) {
	e.t.Helper()
	for _, r := range recs {
		r := r
		if _, err := e.store.Update(context.Background(), r.IssueNumber, func(l *ledger.Ledger) error {
			l.Clarifications = append(l.Clarifications, r)
			return nil
		}); err != nil {
			e.t.Fatal(err)
		}
	}
}

func (e *env) get(id string) *ledger.Record {
	e.t.Helper()
	r, err := e.rt.Get(id)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *env) check() *Report {
	e.t.Helper()
	rep, err := e.mon.Check(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	for _, w := range append(rep.Warnings, rep.Failures...) {
		e.t.Errorf("warning: %v", w)
	}
	return rep
}

func (e *env) eventCounts() map[string]int {
	e.t.Helper()
	evs, _, err := e.rt.Events.Read(time.Time{})
	if err != nil {
		e.t.Fatal(err)
	}
	n := map[string]int{}
	for _, ev := range evs {
		n[ev.Type]++
	}
	return n
}

func kinds(rep *Report) string {
	var out []string
	for _, a := range rep.Actions {
		out = append(out, a.Kind+":"+a.ID)
	}
	return strings.Join(out, " ")
}

func TestStaleRetriedAndAnswered(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{"architect": "Middleware."})
	e.put(rec(42, 1, "engineer", "architect", true, ledger.Pending))
	e.clk.Set(t0.Add(time.Hour))
	if got := kinds(e.check()); got != "marked-stale:CLR-42-001 answered:CLR-42-001" {
		t.Fatalf("actions = %q", got)
	}
	r := e.get("CLR-42-001")
	if r.Status != ledger.Answered || r.LastOf(ledger.Answer).Body != "Middleware." {
		t.Errorf("record = %+v", r)
	}
	if len(e.resp.calls) != 1 || !e.resp.calls[0].Retry {
		t.Errorf("responder calls = %+v", e.resp.calls)
	}
	for i := 0; i < 3; i++ {
		e.clk.Advance(time.Hour)
		if got := kinds(e.check()); got != "" {
			t.Errorf("check %d acted again: %q", i, got)
		}
	}
	if n := e.eventCounts(); n[events.ClarificationStale] != 1 || n[events.ClarificationAnswered] != 1 || n[events.ClarificationEscalated] != 0 {
		t.Errorf("events = %v", n)
	}
}

func TestStaleWithoutResponderEscalatesAtSecondTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.put(rec(42, 1, "engineer", "architect", true, ledger.Pending)) // due t0+31m, SLA 30m
	e.clk.Set(t0.Add(40 * time.Minute))
	if got := kinds(e.check()); got != "marked-stale:CLR-42-001" {
		t.Fatalf("first check = %q", got)
	}
	r := e.get("CLR-42-001")
	if r.Status != ledger.Stale || r.StaleAfter != clock.Format(t0.Add(70*time.Minute)) {
		t.Errorf("after first timeout: status %s staleAfter %s", r.Status, r.StaleAfter)
	}
	// Repeated checks inside the pushed window do nothing.
	e.clk.Set(t0.Add(69 * time.Minute))
	if got := kinds(e.check()); got != "" {
		t.Errorf("inside the window: %q", got)
	}
	e.clk.Set(t0.Add(71 * time.Minute))
	if got := kinds(e.check()); got != "escalated:CLR-42-001" {
		t.Fatalf("second timeout = %q", got)
	}
	r = e.get("CLR-42-001")
	esc := r.LastOf(ledger.Escalation)
	if r.Status != ledger.Escalated || esc == nil || esc.From != ledger.HubName || !strings.Contains(esc.Body, "[ESCALATED]") ||
		!strings.Contains(esc.Body, "two SLA windows") || protocol.MonitorReason(r) != ReasonStale {
		t.Errorf("escalated record = %+v", r)
	}
	e.clk.Advance(10 * time.Hour)
	if got := kinds(e.check()); got != "" {
		t.Errorf("after escalation: %q", got)
	}
	if n := e.eventCounts(); n[events.ClarificationStale] != 1 || n[events.ClarificationEscalated] != 1 {
		t.Errorf("events = %v", n)
	}
}

func TestResponderFailureOnRetryEscalates(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{"architect": ""})
	e.put(rec(42, 1, "engineer", "architect", true, ledger.Pending))
	e.clk.Set(t0.Add(time.Hour))
	rep, err := e.mon.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := kinds(rep); got != "marked-stale:CLR-42-001 escalated:CLR-42-001" {
		t.Errorf("actions = %q", got)
	}
	if r := e.get("CLR-42-001"); r.Status != ledger.Escalated {
		t.Errorf("status = %s", r.Status)
	}
}

func TestResolvedBetweenScanAndActionIsUntouched(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{"architect": "late answer"})
	e.put(rec(42, 1, "engineer", "architect", true, ledger.Pending),
		rec(42, 2, "architect", "engineer", true, ledger.Pending),
		rec(43, 3, "engineer", "architect", true, ledger.Pending))
	e.clk.Set(t0.Add(3 * time.Hour))
	scan, err := e.mon.Scanner.Scan()
	if err != nil {
		t.Fatal(err)
	}
	rep := &Report{Open: scan.Open, Plan: Detect(scan.Open, e.clk.Now(), config.DefaultPriority)}
	if len(rep.Plan.Deadlocks) != 1 || len(rep.Plan.Stale) != 1 {
		t.Fatalf("plan = %+v", rep.Plan)
	}
	// Someone settles every record after the scan.
	for _, id := range []string{"CLR-42-001", "CLR-42-002", "CLR-43-003"} {
		if _, err := e.rt.Resolve(context.Background(), id, "cli", "settled by hand"); err != nil {
			t.Fatal(err)
		}
	}
	before := map[string]string{}
	for _, id := range []string{"CLR-42-001", "CLR-42-002", "CLR-43-003"} {
		data, _ := json.Marshal(e.get(id))
		before[id] = string(data)
	}
	e.mon.Act(context.Background(), rep)
	for _, a := range rep.Actions {
		if a.Kind != ActSkipped && a.Kind != ActContinued {
			t.Errorf("acted on a settled record: %+v", a)
		}
	}
	for id, was := range before {
		data, _ := json.Marshal(e.get(id))
		if string(data) != was {
			t.Errorf("%s changed:\n%s\n%s", id, was, data)
		}
	}
	if len(e.resp.calls) != 0 {
		t.Errorf("responder called for a settled record")
	}
}

func TestDeadlockBrokenOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.put(rec(1, 1, "engineer", "reviewer", true, ledger.Pending),
		rec(2, 2, "reviewer", "architect", true, ledger.Pending),
		rec(1, 3, "architect", "engineer", true, ledger.Pending))
	e.clk.Set(t0.Add(10 * time.Minute))
	rep := e.check()
	if got := kinds(rep); got != "escalated:CLR-1-001 escalated:CLR-2-002 continued:CLR-1-003" {
		t.Fatalf("actions = %q", got)
	}
	r := e.get("CLR-2-002")
	if esc := r.LastOf(ledger.Escalation); esc == nil || !strings.Contains(esc.Body, "deadlock: architect -> engineer -> reviewer -> architect") {
		t.Errorf("escalation = %+v", esc)
	}
	if got := kinds(e.check()); got != "" {
		t.Errorf("second check = %q", got)
	}
	if r := e.get("CLR-1-003"); r.Status != ledger.Pending {
		t.Errorf("winner status = %s", r.Status)
	}
	if n := e.eventCounts(); n[events.ClarificationEscalated] != 2 {
		t.Errorf("events = %v", n)
	}
}

func TestStuckEscalatedWithQuotes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	r := rec(5, 1, "engineer", "architect", false, ledger.Pending)
	r.Round = 2
	r.Thread = append(r.Thread,
		ledger.Entry{Round: 1, From: "architect", Type: ledger.Answer, Body: "It depends."},
		ledger.Entry{Round: 2, From: "engineer", Type: ledger.Question, Body: "Question 1 of issue 5?"})
	e.put(r)
	rep := e.check()
	if got := kinds(rep); got != "escalated:CLR-5-001" {
		t.Fatalf("actions = %q", got)
	}
	got := e.get("CLR-5-001")
	body := got.LastOf(ledger.Escalation).Body
	if !strings.Contains(body, "[Round 1] \"question 1 of issue 5\"") || !strings.Contains(body, "[Round 2]") || protocol.MonitorReason(got) != ReasonStuck {
		t.Errorf("escalation body:\n%s", body)
	}
}

func TestCheckReportsCorruptLedgerAndGoesOn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.put(rec(1, 1, "engineer", "architect", true, ledger.Pending))
	if err := os.WriteFile(filepath.Join(e.rt.WS.ClarificationsDir(), "issue-2.json"), []byte(`{"clarifications": [{"status": "pending"`), 0o644); err != nil {
		t.Fatal(err)
	}
	e.clk.Set(t0.Add(time.Hour))
	rep, err := e.mon.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0].Error(), "issue-2.json") {
		t.Errorf("warnings = %v", rep.Warnings)
	}
	if got := kinds(rep); got != "marked-stale:CLR-1-001" {
		t.Errorf("actions = %q", got)
	}
}
