package router

import (
	"context"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/protocol"
)

// TestOperationsAreAudited: every operation the hub writes is one line,
// naming who acted and the record's hash before and after, and the
// record's hash after is the record as it is on disk.
func TestOperationsAreAudited(t *testing.T) {
	t.Parallel()
	r, _, _ := newRouter(t)
	r.Audit = &audit.Trail{Dir: r.WS.StateDir(), Locks: r.Locks, Clock: r.Clock}
	ctx := context.Background()
	res := request(t, r, RequestInput{Issue: 7, From: "engineer", To: "architect", Topic: "t", Question: "q?"})
	if _, err := r.Answer(ctx, res.Record.ID, "", "a."); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Resolve(ctx, res.Record.ID, "", "ok"); err != nil {
		t.Fatal(err)
	}
	// A refused operation writes nothing and is not audited.
	if _, err := r.Answer(ctx, res.Record.ID, "", "late"); err == nil {
		t.Fatal("answer of a resolved record succeeded")
	}
	h, err := audit.History(r.Audit.Dir, audit.Filter{ID: res.Record.ID})
	if err != nil || len(h) != 3 {
		t.Fatalf("history = %+v, %v", h, err)
	}
	want := []struct{ op, actor string }{{"clarify.request", "engineer"}, {"clarify.answer", "architect"}, {"clarify.resolve", "engineer"}}
	for i, w := range want {
		if h[i].Op != w.op || h[i].Actor != w.actor || h[i].Issue != 7 {
			t.Fatalf("line %d = %+v, want %s by %s", i, h[i], w.op, w.actor)
		}
		if i > 0 && h[i].Before[res.Record.ID] != h[i-1].After[res.Record.ID] {
			t.Fatalf("line %d's before is not line %d's after", i, i-1)
		}
	}
	l, err := r.Ledgers.Load(7)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Find(res.Record.ID).Hash(); got != h[2].After[res.Record.ID] {
		t.Fatalf("the record on disk hashes to %s, the trail says %s", got, h[2].After[res.Record.ID])
	}
	for _, e := range l.Find(res.Record.ID).Thread {
		if got, ok := e.StoredHash(); !ok || got != e.ComputeHash() {
			t.Fatalf("entry %+v not sealed", e)
		}
	}
}

func TestMonitorVerbsAreNamedAsSuch(t *testing.T) {
	t.Parallel()
	if OpName(protocol.MarkStale) != "monitor.mark-stale" || OpName(protocol.Ask) != "clarify.ask" {
		t.Fatal(OpName(protocol.MarkStale), OpName(protocol.Ask))
	}
	rec := &ledger.Record{ID: "CLR-1-001", IssueNumber: 1}
	if a := Actor(protocol.Op{Verb: protocol.MarkStale}, 0, rec); a != ledger.HubName {
		t.Fatalf("actor of a mark-stale = %q", a)
	}
}

// BenchmarkRequestAudit is clarify request's locked step on a ledger of
// 50 records, with the ledger fsynced as in the CLI, without and with the
// audit line (fsynced or not): the audit's cost per operation.
func BenchmarkRequestAudit(b *testing.B) {
	for _, mode := range []string{"none", "append", "append+fsync"} {
		b.Run(mode, func(b *testing.B) {
			r, _, _ := newRouter(b)
			if mode != "none" {
				r.Audit = &audit.Trail{Dir: r.WS.StateDir(), Locks: r.Locks, Clock: r.Clock, Sync: mode == "append+fsync"}
			}
			benchRequest50(b, r)
		})
	}
}
