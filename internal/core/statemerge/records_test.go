// The records the merge tests build: a request as the router writes it,
// its transitions as the router and the monitor make them (answer, ask,
// resolve, abandon, escalate, stale), a ledger of issue 42 rendered to a
// file and read back, and what a test reads of one (find, types, ids).

package statemerge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
)

const ledgerPath = "state/clarifications/issue-42.json"

// ts is a timestamp minutes after a fixed start.
func ts(min int) string {
	return "2026-03-01T17:" + twoDigits(min) + ":00.000Z"
}

func twoDigits(n int) string { return string([]byte{byte('0' + n/10), byte('0' + n%10)}) }

// req is a fresh request as the router writes it, created at minute min.
func req(id string, min int, question string) ledger.Record {
	r := ledger.Record{ID: id, IssueNumber: 42, From: "engineer", To: "architect", Topic: "auth flow",
		Blocking: true, Status: ledger.Pending, Round: 1, MaxRounds: 5, Created: ts(min), StaleAfter: ts(min + 30),
		Thread: []ledger.Entry{{Round: 1, From: "engineer", Type: ledger.Question, Body: question, Timestamp: ts(min)}}}
	r.SetExtra("slaMinutes", json.RawMessage("30"))
	return r
}

// Transitions as the router and the monitor make them.
func answer(r ledger.Record, min int, body string) ledger.Record {
	r = clone(r)
	r.Thread = append(r.Thread, ledger.Entry{Round: r.Round, From: r.To, Type: ledger.Answer, Body: body, Timestamp: ts(min)})
	r.Status = ledger.Answered
	return r
}

func ask(r ledger.Record, min int, body string) ledger.Record {
	r = clone(r)
	r.Round++
	r.Thread = append(r.Thread, ledger.Entry{Round: r.Round, From: r.From, Type: ledger.Question, Body: body, Timestamp: ts(min)})
	r.Status = ledger.Pending
	r.StaleAfter = ts(min + 30)
	return r
}

func resolve(r ledger.Record, min int) ledger.Record {
	r = clone(r)
	at := ts(min)
	r.Thread = append(r.Thread, ledger.Entry{Round: r.Round, From: r.From, Type: ledger.Resolution, Body: "Going with it.", Timestamp: at})
	r.Status, r.ResolvedAt = ledger.Resolved, &at
	return r
}

func abandon(r ledger.Record, min int) ledger.Record {
	r = clone(r)
	r.Thread = append(r.Thread, ledger.Entry{Round: r.Round, From: r.From, Type: ledger.Resolution, Body: "Abandoned: moot.", Timestamp: ts(min)})
	r.Status = ledger.Abandoned
	return r
}

func escalate(r ledger.Record, min int) ledger.Record {
	r = clone(r)
	body := "[ESCALATED] Clarification \"auth flow\" (" + r.ID + ") could not be resolved.\n  On GitHub: /clarify resolve " + r.ID + " <decision>"
	r.Thread = append(r.Thread, ledger.Entry{Round: r.Round, From: ledger.HubName, Type: ledger.Escalation, Body: body, Timestamp: ts(min)})
	r.Status = ledger.Escalated
	return r
}

// markStale is the monitor's first timeout.
func markStale(r ledger.Record, min int) ledger.Record {
	r = clone(r)
	r.Status = ledger.Stale
	r.StaleAfter = ts(min + 30)
	r.SetExtra("staleRound", json.RawMessage(itoa(r.Round)))
	return r
}

func withExtra(r ledger.Record, key, value string) ledger.Record {
	r = clone(r)
	r.SetExtra(key, json.RawMessage(value))
	return r
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// clone deep-copies r, so a transition never changes the record it starts from.
func clone(r ledger.Record) ledger.Record {
	r.Thread = append([]ledger.Entry(nil), r.Thread...)
	for i := range r.Thread {
		r.Thread[i].Extra = append([]jsonfile.Field(nil), r.Thread[i].Extra...)
	}
	r.Extra = append([]jsonfile.Field(nil), r.Extra...)
	return r
}

// file renders a ledger of issue 42 holding recs (nil recs: no file).
func file(t testing.TB, recs ...ledger.Record) []byte {
	t.Helper()
	data, err := jsonfile.Marshal(&ledger.Ledger{IssueNumber: 42, Clarifications: recs})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func decode(t testing.TB, data []byte) *ledger.Ledger {
	t.Helper()
	l, err := ledger.Parse(ledgerPath, data, 42)
	if err != nil {
		t.Fatalf("merged ledger does not parse: %v\n%s", err, data)
	}
	return l
}

func find(t testing.TB, l *ledger.Ledger, id string) *ledger.Record {
	t.Helper()
	r := l.Find(id)
	if r == nil {
		t.Fatalf("no record %s in merged ledger", id)
	}
	return r
}

func types(r *ledger.Record) string {
	var s []string
	for _, e := range r.Thread {
		s = append(s, string(e.Type))
	}
	return strings.Join(s, ",")
}

func ids(l *ledger.Ledger) string {
	var s []string
	for _, r := range l.Clarifications {
		s = append(s, r.ID)
	}
	return strings.Join(s, ",")
}
