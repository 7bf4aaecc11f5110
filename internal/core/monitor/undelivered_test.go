package monitor

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// An answer no session of the requester received is flagged once the
// record's SLA has passed, never before, and never once delivered or
// settled (issue 34).
func TestUndeliveredPastTheSLA(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	rec := ledger.Record{ID: "CLR-3-001", IssueNumber: 3, From: "engineer", To: "architect", Topic: "db", Status: ledger.Answered, Round: 1,
		Thread: []ledger.Entry{
			{Round: 1, From: "engineer", Type: ledger.Question, Body: "q", Timestamp: clock.Format(t0)},
			{Round: 1, From: "architect", Type: ledger.Answer, Body: "a", Timestamp: clock.Format(t0.Add(time.Minute))},
		}}
	rec.SetExtra("slaMinutes", json.RawMessage("30"))
	if got := Undelivered([]ledger.Record{rec}, t0.Add(20*time.Minute)); len(got) != 0 {
		t.Errorf("within the SLA: %+v", got)
	}
	got := Undelivered([]ledger.Record{rec}, t0.Add(40*time.Minute))
	if len(got) != 1 || got[0].ID != "CLR-3-001" || got[0].By != "architect" {
		t.Fatalf("past the SLA: %+v", got)
	}
	delivered := rec
	delivered.Thread = append([]ledger.Entry(nil), rec.Thread...)
	delivered.Thread[1].SetReceipt(ledger.Receipt{At: clock.Format(t0.Add(2 * time.Minute)), Session: "s1"})
	if got := Undelivered([]ledger.Record{delivered}, t0.Add(40*time.Minute)); len(got) != 0 {
		t.Errorf("delivered: %+v", got)
	}
	settled := rec
	settled.Status = ledger.Resolved
	if got := Undelivered([]ledger.Record{settled}, t0.Add(40*time.Minute)); len(got) != 0 {
		t.Errorf("settled: %+v", got)
	}
}

// A record with no slaMinutes (written by the reference tools) is judged
// by the SLA its own created and staleAfter span, as every other check of
// the record does (protocol.SLA), not by the 30-minute default.
func TestUndeliveredUsesTheRecordsOwnSpan(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	rec := ledger.Record{ID: "CLR-3-002", IssueNumber: 3, From: "engineer", To: "human:lead", Topic: "db", Status: ledger.Answered, Round: 1,
		Created: clock.Format(t0), StaleAfter: clock.Format(t0.Add(4 * time.Hour)),
		Thread: []ledger.Entry{
			{Round: 1, From: "engineer", Type: ledger.Question, Body: "q", Timestamp: clock.Format(t0)},
			{Round: 1, From: "human:lead", Type: ledger.Answer, Body: "a", Timestamp: clock.Format(t0.Add(time.Minute))},
		}}
	if got := Undelivered([]ledger.Record{rec}, t0.Add(time.Hour)); len(got) != 0 {
		t.Errorf("within its 4h span: %+v", got)
	}
	if got := Undelivered([]ledger.Record{rec}, t0.Add(5*time.Hour)); len(got) != 1 {
		t.Errorf("past its 4h span: %+v", got)
	}
}
