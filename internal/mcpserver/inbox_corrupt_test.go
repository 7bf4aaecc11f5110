package mcpserver

import (
	"os"
	"strings"
	"testing"
)

// TestInboxNamesALedgerItCouldNotRead: a ledger that does not parse hid
// the requests and questions it holds, and clarify_inbox answered "nothing
// waits" with no word (not even on stderr). The inbox now names the file
// in warnings, the rest of it stands, and the file is left untouched.
func TestInboxNamesALedgerItCouldNotRead(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	eng := connect(t, ws, "engineer", nil)
	ok(t, eng, "clarify_request", map[string]any{"issue": 7, "to": "architect", "topic": "auth", "question": "JWT?", "waitSeconds": 0})
	ok(t, eng, "clarify_request", map[string]any{"issue": 8, "to": "architect", "topic": "db", "question": "Postgres?", "waitSeconds": 0})
	broken := []byte(`{"issueNumber": 7, "clarifications": [`)
	if err := os.WriteFile(ws.LedgerFile(7), broken, 0o644); err != nil {
		t.Fatal(err)
	}
	in := ok(t, eng, "clarify_inbox", nil)
	warnings, _ := in["warnings"].([]any)
	if len(warnings) != 1 || !strings.Contains(warnings[0].(string), "issue-7.json") {
		t.Fatalf("warnings %v, want the broken ledger named", in["warnings"])
	}
	if reqs, _ := in["requests"].([]any); len(reqs) != 1 {
		t.Errorf("requests %v, want issue 8's still listed", in["requests"])
	}
	if got, _ := os.ReadFile(ws.LedgerFile(7)); string(got) != string(broken) {
		t.Errorf("the broken ledger was rewritten: %s", got)
	}
}
