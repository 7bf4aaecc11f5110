package protocol

import (
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// peopleConfig is the default configuration with [people] lead (the
// person's own 2h SLA), qa (the default) and architect, a person who is
// also an agent.
func peopleConfig(t *testing.T) *config.Set {
	t.Helper()
	set := defaultConfig(t)
	c, err := config.ParseConfig("agentx.toml", []byte(`[people]
lead = { github = "@octo-lead", sla = "2h" }
qa = "@octo-qa"
architect = "@octo-arch"
`))
	if err != nil {
		t.Fatal(err)
	}
	set.Config.People = c.People
	return set
}

// Issue 34: --to human, --to human:NAME and a configured person's bare
// name ask a person; the record stores human or human:NAME, with the
// person's SLA; any step may ask a person; an agent keeps its name.
func TestRequestToPerson(t *testing.T) {
	t.Parallel()
	cfg := peopleConfig(t)
	for _, tc := range []struct {
		to, stored string
		sla        time.Duration
	}{
		{"lead", "human:lead", 2 * time.Hour},
		{"human:lead", "human:lead", 2 * time.Hour},
		{"human:qa", "human:qa", config.DefaultPersonSLA},
		{"human", "human", config.DefaultPersonSLA},
		{"human:architect", "human:architect", config.DefaultPersonSLA},
		{"architect", "architect", 30 * time.Minute}, // the agent keeps its name
	} {
		l := &ledger.Ledger{IssueNumber: 42}
		// engineer's step may clarify with architect and product-manager
		// only: a person is asked anyway.
		_, err := Apply(l, Op{Verb: Request, Issue: 42, From: "engineer", To: tc.to, Topic: "t", Text: "q?", Blocking: true}, Env{Now: t0, Config: cfg})
		if err != nil {
			t.Fatalf("--to %s: %v", tc.to, err)
		}
		rec := &l.Clarifications[0]
		if rec.To != tc.stored || SLA(rec) != tc.sla || rec.StaleAfterTime().Sub(rec.CreatedTime()) != tc.sla {
			t.Errorf("--to %s: to %q, SLA %s, staleAfter %s; want %q, %s", tc.to, rec.To, SLA(rec), rec.StaleAfter, tc.stored, tc.sla)
		}
	}
	for _, tc := range []struct{ to, want string }{
		{"human:nobody", `--to: unknown person "nobody" (configured: architect, lead, qa)`},
		{"human:", "--to human:NAME: person name is empty"},
		{"nobody", `unknown agent "nobody"`},
	} {
		_, err := Apply(&ledger.Ledger{IssueNumber: 42}, Op{Verb: Request, Issue: 42, From: "engineer", To: tc.to, Topic: "t", Text: "q"}, Env{Now: t0, Config: cfg})
		if !errcode.Is(err, errcode.InvalidInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--to %s: %v, want %q", tc.to, err, tc.want)
		}
	}
}

// Only the person answers a person's question: --as human:NAME (or the
// terminal's user); an agent, even one named like the person, is refused
// and told how a person answers. The requester still resolves it.
func TestPersonTargetAuthority(t *testing.T) {
	t.Parallel()
	cfg := peopleConfig(t)
	newLedger := func(to string) *ledger.Ledger {
		l := &ledger.Ledger{IssueNumber: 42}
		if _, err := Apply(l, Op{Verb: Request, Issue: 42, From: "engineer", To: to, Topic: "t", Text: "q?", Blocking: true}, Env{Now: t0, Config: cfg}); err != nil {
			t.Fatal(err)
		}
		return l
	}
	answer := func(l *ledger.Ledger, by string) error {
		_, err := Apply(l, Op{Verb: Answer, ID: "CLR-42-001", By: by, Text: "yes"}, Env{Now: t0.Add(time.Minute), Config: cfg})
		return err
	}
	for _, tc := range []struct {
		to, by, hint string
	}{
		{"human:architect", "architect", "--as human:architect"},
		{"human:lead", "engineer", "--as human:lead"},
		{"human", "human", "--as human:NAME"},
		{"human", "engineer", "--as human:NAME"},
	} {
		err := answer(newLedger(tc.to), tc.by)
		if errcode.CodeOf(err) != errcode.ScopeViolation {
			t.Fatalf("%s answering for %s: %v, want SCOPE_VIOLATION", tc.by, tc.to, err)
		}
		if _, hint := errcode.Classify(err); !strings.Contains(hint, tc.hint) {
			t.Errorf("%s answering for %s: hint %q, want %q", tc.by, tc.to, hint, tc.hint)
		}
	}
	l := newLedger("lead")
	if err := answer(l, "human:lead"); err != nil {
		t.Fatal(err)
	}
	if a := l.Clarifications[0].LastOf(ledger.Answer); a == nil || a.From != "lead" {
		t.Fatalf("answer = %+v, want from lead", a)
	}
	if _, err := Apply(l, Op{Verb: Resolve, ID: "CLR-42-001", By: "engineer"}, Env{Now: t0.Add(2 * time.Minute), Config: cfg}); err != nil {
		t.Fatalf("the requester resolves: %v", err)
	}
	// Anyone's question: any person, or the terminal's user.
	for _, by := range []string{"human:bob", "", CLIActor} {
		if err := answer(newLedger("human"), by); err != nil {
			t.Errorf("%q answering anyone's question: %v", by, err)
		}
	}
}
