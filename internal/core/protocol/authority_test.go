package protocol

import (
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// Issue 32: only the right party acts on a record. The record is
// engineer -> architect.
func TestAuthority(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		status ledger.Status
		verb   Verb
		by     string
		person bool
		ok     bool
	}{
		{"target answers", ledger.Pending, Answer, "architect", false, true},
		{"requester answers own question", ledger.Pending, Answer, "engineer", false, false},
		{"bystander answers", ledger.Pending, Answer, "product-manager", false, false},
		{"hub answers", ledger.Pending, Answer, ledger.HubName, false, false},
		{"default answers", ledger.Pending, Answer, "", false, true},
		{"person answers", ledger.Pending, Answer, "human:alice", false, true},
		{"commenter answers", ledger.Pending, Answer, "alice", true, true},
		{"requester asks", ledger.Answered, Ask, "engineer", false, true},
		{"target asks", ledger.Answered, Ask, "architect", false, false},
		{"requester resolves", ledger.Answered, Resolve, "engineer", false, true},
		{"target resolves", ledger.Answered, Resolve, "architect", false, true},
		{"bystander resolves", ledger.Answered, Resolve, "product-manager", false, false},
		{"cli resolves", ledger.Answered, Resolve, CLIActor, false, true},
		{"person resolves", ledger.Escalated, Resolve, "human:bob", false, true},
		{"bystander escalates", ledger.Pending, Escalate, "reviewer", false, false},
		{"hub escalates", ledger.Pending, Escalate, ledger.HubName, false, true},
		{"target escalates", ledger.Pending, Escalate, "architect", false, true},
		{"bystander abandons", ledger.Pending, Abandon, "reviewer", false, false},
		{"requester abandons", ledger.Pending, Abandon, "engineer", false, true},
		{"name posing as person", ledger.Pending, Answer, "alice", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := &ledger.Ledger{IssueNumber: 42, Clarifications: []ledger.Record{record(c.status, 1)}}
			before := len(l.Clarifications[0].Thread)
			op := Op{Verb: c.verb, ID: "CLR-42-001", By: c.by, Person: c.person, Text: "text"}
			_, err := Apply(l, op, Env{Now: t0.Add(10 * time.Minute)})
			if c.ok {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if errcode.CodeOf(err) != errcode.ScopeViolation {
				t.Fatalf("err %v, want SCOPE_VIOLATION", err)
			}
			if !strings.Contains(err.Error(), "only ") || !strings.Contains(err.Error(), "engineer -> architect") {
				t.Fatalf("refusal does not say who may act: %v", err)
			}
			if len(l.Clarifications[0].Thread) != before {
				t.Fatal("a refused operation changed the record")
			}
		})
	}
}

func TestPersonOverrideNeedsAName(t *testing.T) {
	t.Parallel()
	l := &ledger.Ledger{IssueNumber: 42, Clarifications: []ledger.Record{record(ledger.Pending, 1)}}
	if _, err := Apply(l, Op{Verb: Answer, ID: "CLR-42-001", By: "human: ", Text: "x"}, Env{Now: t0.Add(10 * time.Minute)}); errcode.CodeOf(err) != errcode.InvalidInput {
		t.Fatalf("err %v", err)
	}
	eff, err := Apply(l, Op{Verb: Answer, ID: "CLR-42-001", By: "human:alice", Text: "x"}, Env{Now: t0.Add(10 * time.Minute)})
	if err != nil || eff.Record.Thread[len(eff.Record.Thread)-1].From != "alice" {
		t.Fatalf("%v %+v", err, eff)
	}
}
