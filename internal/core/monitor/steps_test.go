package monitor

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/protocol"
)

// A check in memory (GitHub Mode) and a check on disk (Local Mode) leave
// the same ledgers: both act through protocol.Apply.
func TestApplyStepsMatchesCheck(t *testing.T) {
	t.Parallel()
	recs := []ledger.Record{
		rec(1, 1, "engineer", "architect", false, ledger.Pending),                  // first timeout
		withStaleRound(rec(2, 2, "engineer", "architect", false, ledger.Stale), 1), // second timeout
		rec(3, 3, "architect", "reviewer", true, ledger.Pending),                   // deadlock with the next one
		rec(3, 4, "reviewer", "architect", true, ledger.Pending),
		rec(4, 5, "engineer", "architect", false, ledger.Answered), // nothing to do
	}
	for _, at := range []time.Duration{10 * time.Minute, 40 * time.Minute, 90 * time.Minute} {
		e := newEnv(t, nil)
		e.put(recs...)
		e.clk.Set(t0.Add(at))
		e.check()

		var ledgers []*ledger.Ledger
		for _, issue := range []int{1, 2, 3, 4} {
			l := &ledger.Ledger{IssueNumber: issue}
			for _, r := range recs {
				if r.IssueNumber == issue {
					l.Clarifications = append(l.Clarifications, r)
				}
			}
			ledgers = append(ledgers, l)
		}
		plan := PlanFor(ledgers, t0.Add(at), nil)
		changed, failures := ApplySteps(ledgers, plan.Steps(), protocol.Env{Now: t0.Add(at)})
		if len(failures) > 0 {
			t.Fatal(failures)
		}
		for _, l := range ledgers {
			disk, err := e.store.Load(l.IssueNumber)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(disk)
			b, _ := json.Marshal(l)
			if string(a) != string(b) {
				t.Errorf("at +%v issue %d:\n disk   %s\n memory %s", at, l.IssueNumber, a, b)
			}
		}
		// A second pass finds nothing left to do.
		replan := PlanFor(ledgers, t0.Add(at), nil)
		again, _ := ApplySteps(ledgers, replan.Steps(), protocol.Env{Now: t0.Add(at)})
		if len(again) != 0 {
			t.Errorf("at +%v a second pass changed %v (first changed %v)", at, again, changed)
		}
	}
}

func TestPlanSteps(t *testing.T) {
	t.Parallel()
	stale := rec(1, 1, "engineer", "architect", false, ledger.Pending)
	second := withStaleRound(rec(2, 2, "engineer", "architect", false, ledger.Stale), 1)
	p := Detect([]ledger.Record{stale, second}, t0.Add(time.Hour), nil)
	got := p.Steps()
	want := []Step{
		{Why: ReasonStale, Op: protocol.Op{Verb: protocol.MarkStale, Issue: 1, InIssue: true, ID: "CLR-1-001"}},
		{Why: ReasonStale, Op: protocol.Op{Verb: protocol.EscalateStale, Issue: 2, InIssue: true, ID: "CLR-2-002",
			Reason: "no answer from architect after two SLA windows (round 1)"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("steps = %+v", got)
	}
}
