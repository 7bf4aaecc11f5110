package protocol

import (
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

func TestVerbArgsAndPast(t *testing.T) {
	answer, _ := Lookup("answer")
	resolve, _ := Lookup("resolve")
	for _, tc := range []struct{ got, want string }{
		{answer.Args(), "--body TEXT [--as AGENT]"},
		{resolve.Args(), "[--body TEXT] [--as NAME]"},
		{Past("answer"), "answered"},
		{Past("requested"), "requested"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestVerbCheckID(t *testing.T) {
	answer, _ := Lookup("answer")
	for _, tc := range []struct {
		id      string
		inIssue bool
		ok      bool
		hint    bool // the refusal names --issue
	}{
		{id: "CLR-42-001", ok: true},
		{id: "clar-test-001", inIssue: true, ok: true},
		{id: "clar-test-001", hint: true},
		{id: "CLR-x", ok: false},
	} {
		err := answer.CheckID(tc.id, tc.inIssue)
		if (err == nil) != tc.ok {
			t.Errorf("CheckID(%q, %v) = %v, want ok %v", tc.id, tc.inIssue, err, tc.ok)
		}
		if tc.hint && (!errcode.Is(err, errcode.InvalidInput) || !strings.Contains(err.Error(), "--issue N")) {
			t.Errorf("CheckID(%q) = %v, want the way to name the ledger", tc.id, err)
		}
	}
}

func TestVerbOp(t *testing.T) {
	resolve, _ := Lookup("resolve")
	op := resolve.Op("CLR-1-001", "", "done", 0, false)
	if op.Verb != Resolve || op.By != "cli" || op.Text != "done" || op.InIssue {
		t.Errorf("Op = %+v, want resolve by cli", op)
	}
	if op := resolve.Op("x-1", "pm", "", 7, true); op.By != "pm" || op.Issue != 7 || !op.InIssue {
		t.Errorf("Op = %+v, want by pm in issue 7", op)
	}
}
