package sync

import (
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// An answer delivered into a session of the agent that asked says so on
// its comment ("read by"), which changes the comment's hash so the next
// sync edits it; mentions in the receipt are neutralised (issue 34).
func TestAnswerCommentSaysReadOnceDelivered(t *testing.T) {
	t.Parallel()
	l := ledger42()
	r := l.Clarifications[0]
	r.Thread = append(append([]ledger.Entry(nil), r.Thread...),
		ledger.Entry{Round: 1, From: "architect", Type: ledger.Answer, Body: "Sessions.", Timestamp: r.Created})
	seq := len(r.Thread) - 1
	before := Render(&r, seq, ident)
	if strings.Contains(before.Body, "Read by") {
		t.Fatalf("undelivered answer says read:\n%s", before.Body)
	}
	r.Thread[seq].SetReceipt(ledger.Receipt{At: "2026-11-29T00:16:51.988Z", Session: "s1", Host: "claude", Agent: "@engineer"})
	after := Render(&r, seq, ident)
	if !strings.Contains(after.Body, "_Read by **") || !strings.Contains(after.Body, "in a claude session at 2026-11-29T00:16:51.988Z._") {
		t.Fatalf("no read line:\n%s", after.Body)
	}
	if strings.Contains(after.Body, "@engineer") {
		t.Errorf("a mention reached the comment:\n%s", after.Body)
	}
	if after.Hash == before.Hash {
		t.Error("same hash: the comment would not be edited")
	}
	// The requester's own question never gets one.
	r.Thread[0].SetReceipt(ledger.Receipt{At: "2026-11-29T00:16:51.988Z", Session: "s1"})
	if strings.Contains(Render(&r, 0, ident).Body, "Read by") {
		t.Error("a question says read")
	}
}
