package protocol

import (
	"encoding/json"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// Commands typed in issue comments reach Apply: whatever they hold, a
// refused operation leaves the ledger as it was, and an applied one leaves
// a ledger that encodes and decodes to the same records. (Text bytes that
// are not UTF-8 are the codec's business: it writes U+FFFD for them.)
func FuzzApply(f *testing.F) {
	f.Add(uint8(0), "CLR-42-001", "alice", "Middleware.")
	f.Add(uint8(1), "CLR-42-001", "", "why?")
	f.Add(uint8(4), "CLR-42-002", "bob", "")
	f.Add(uint8(3), "clr-42-001", "x", "\u0000")
	f.Fuzz(func(t *testing.T, verb uint8, id, by, text string) {
		all := []Verb{Answer, Ask, Resolve, Escalate, Abandon, MarkStale, EscalateStale, EscalateStuck, EscalateDeadlock}
		l := &ledger.Ledger{IssueNumber: 42, Clarifications: []ledger.Record{record(ledger.Pending, 1), record(ledger.Answered, 1)}}
		l.Clarifications[1].ID = "CLR-42-002"
		before, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		eff, err := Apply(l, Op{Verb: all[int(verb)%len(all)], ID: id, By: by, Text: text}, Env{Now: t0})
		after, _ := json.Marshal(l)
		if eff == nil {
			if err == nil {
				t.Fatal("no effects and no error")
			}
			if string(after) != string(before) {
				t.Fatalf("refused (%v) but changed:\n%s\n%s", err, before, after)
			}
			return
		}
		back, derr := ledger.Decode(after)
		if derr != nil {
			t.Fatalf("applied ledger does not decode: %v", derr)
		}
		if len(back.Clarifications) != len(l.Clarifications) {
			t.Fatalf("round trip lost records:\n%s", after)
		}
		for i, r := range back.Clarifications {
			want := l.Clarifications[i]
			if r.ID != want.ID || r.Status != want.Status || r.Round != want.Round || len(r.Thread) != len(want.Thread) {
				t.Fatalf("round trip changed record %d:\n%+v\n%+v", i, r, want)
			}
		}
	})
}
