package ledger

import (
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/contenthash"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// A delivery receipt is a key of our own on the entry: outside its
// content hash (the entry stays intact), kept through a decode and
// encode, and found again (issue 34).
func TestReceiptIsAnAdditiveEntryKey(t *testing.T) {
	t.Parallel()
	rec := Record{ID: "CLR-3-001", IssueNumber: 3, From: "engineer", To: "architect", Topic: "t", Status: Answered, Round: 1, MaxRounds: 5,
		Created: "2026-11-29T10:00:00.000Z", StaleAfter: "2026-11-29T10:30:00.000Z",
		Thread: []Entry{
			Entry{Round: 1, From: "engineer", Type: Question, Body: "q", Timestamp: "2026-11-29T10:00:00.000Z"}.Sealed(),
			Entry{Round: 1, From: "architect", Type: Answer, Body: "a", Timestamp: "2026-11-29T10:01:00.000Z"}.Sealed(),
		}}
	if got := rec.Undelivered(); len(got) != 1 || got[0] != 1 {
		t.Fatalf("undelivered %v", got)
	}
	rec.Thread[1].SetReceipt(Receipt{At: "2026-11-29T10:02:00.000Z", Session: "s1", Host: "claude", Agent: "engineer"})
	if rec.Thread[1].Integrity() != contenthash.Intact {
		t.Error("the receipt changed the entry's hash")
	}
	data, err := jsonfile.Marshal(&Ledger{IssueNumber: 3, Clarifications: []Record{rec}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"delivered": {`) {
		t.Fatalf("no receipt in\n%s", data)
	}
	l, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := l.Clarifications[0].Thread[1].Receipt()
	if !ok || got.Session != "s1" || got.Host != "claude" {
		t.Errorf("receipt after a round trip: %+v %v", got, ok)
	}
	if len(l.Clarifications[0].Undelivered()) != 0 {
		t.Error("a delivered answer counted undelivered")
	}
	// The requester's own entries and a hub escalation of its question.
	if rec.ForRequester(&rec.Thread[0]) {
		t.Error("the requester's question is news for itself")
	}
	if !rec.ForRequester(&Entry{From: HubName, Type: Escalation}) {
		t.Error("the hub's escalation is no news")
	}
}
