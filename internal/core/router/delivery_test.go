package router

import (
	"context"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/delivery"
)

// News for a requester (an answer, a resolution by someone else, an
// escalation) bumps the inbox generation its sessions check; its own
// request and follow-up question do not (issue 34).
func TestNewsBumpsTheInbox(t *testing.T) {
	t.Parallel()
	r, _, _ := newRouter(t)
	ctx := context.Background()
	res := request(t, r, RequestInput{From: "engineer", To: "architect"})
	if g := delivery.Generation(r.WS); g != "" {
		t.Fatalf("a request bumped the inbox: %q", g)
	}
	id := res.Record.ID
	if _, err := r.Answer(ctx, id, "architect", "Middleware."); err != nil {
		t.Fatal(err)
	}
	g1 := delivery.Generation(r.WS)
	if g1 == "" {
		t.Fatal("an answer did not bump the inbox")
	}
	if _, err := r.Ask(ctx, id, "engineer", "Which one?"); err != nil {
		t.Fatal(err)
	}
	if g := delivery.Generation(r.WS); g != g1 {
		t.Errorf("the requester's own follow-up bumped the inbox")
	}
	if _, err := r.Escalate(ctx, id, "architect", "needs a person"); err != nil {
		t.Fatal(err)
	}
	if g := delivery.Generation(r.WS); g == g1 {
		t.Errorf("an escalation did not bump the inbox")
	}
}
