package protocol

import (
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// BenchmarkApplyRequest51 is the protocol's share of `clarify request` on
// a ledger of 50 records: validation, scope and the new record, no I/O.
func BenchmarkApplyRequest51(b *testing.B) {
	cfg := defaultConfig(b)
	base := &ledger.Ledger{IssueNumber: 42}
	env := Env{Now: t0, Config: cfg}
	op := Op{Verb: Request, Issue: 42, From: "engineer", To: "architect", Topic: "auth", Text: "Middleware?"}
	for i := 0; i < 50; i++ {
		if _, err := Apply(base, op, env); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l := &ledger.Ledger{IssueNumber: 42, Clarifications: base.Clarifications[:50:50]}
		if _, err := Apply(l, op, Env{Now: t0.Add(time.Duration(i)), Config: cfg}); err != nil {
			b.Fatal(err)
		}
	}
}
