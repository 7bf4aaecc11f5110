package router

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// TestSettledAfterResolve: the Settled hook hears each resolution once,
// after the ledger write, and nothing else; its failure is a warning and
// the resolve still succeeds.
func TestSettledAfterResolve(t *testing.T) {
	ctx := context.Background()
	r, _, _ := newRouter(t)
	var heard []string
	var fail error
	r.Settled = func(_ context.Context, rec *ledger.Record) error {
		// The record is on disk by now: the hook reads what landed.
		got, err := r.Get(rec.ID)
		if err != nil || got.Status != ledger.Resolved {
			t.Errorf("Settled ran before the write: %v %v", got, err)
		}
		heard = append(heard, rec.ID+" "+string(rec.Status))
		return fail
	}
	var warned []string
	r.Warn = func(format string, args ...any) { warned = append(warned, fmt.Sprintf(format, args...)) }

	a := request(t, r, RequestInput{From: "engineer", To: "architect", Question: "Middleware?"})
	if _, err := r.Answer(ctx, a.Record.ID, "", "Yes."); err != nil {
		t.Fatal(err)
	}
	b := request(t, r, RequestInput{From: "engineer", To: "architect", Question: "Retries?", Topic: "retries"})
	if _, err := r.Abandon(ctx, b.Record.ID, "", "moot"); err != nil {
		t.Fatal(err)
	}
	if len(heard) != 0 {
		t.Fatalf("Settled heard %v before any resolution", heard)
	}
	fail = errors.New("disk full")
	if _, err := r.Resolve(ctx, a.Record.ID, "", "Middleware."); err != nil {
		t.Fatalf("a memory failure failed the resolve: %v", err)
	}
	if len(heard) != 1 || heard[0] != a.Record.ID+" resolved" {
		t.Fatalf("Settled heard %v", heard)
	}
	if len(warned) != 1 || warned[0] != "decision of "+a.Record.ID+" not kept in memory: disk full" {
		t.Errorf("warnings %q", warned)
	}
	if _, err := r.Resolve(ctx, a.Record.ID, "", "again"); err == nil {
		t.Error("a resolved record was resolved again")
	}
	if len(heard) != 1 {
		t.Errorf("a refused resolve reached Settled: %v", heard)
	}
}
