package protocol

import (
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
)

// planted is one example of every kind of secret, and a private region.
func planted() []string {
	var out []string
	for _, k := range sanitize.Kinds() {
		for _, ex := range k.Examples {
			out = append(out, ex.In)
		}
	}
	return append(out, "<private>the private part</private>")
}

// leaks returns the planted secrets data still holds. A secret is looked
// for by its value: the example minus what its redaction keeps.
func leaks(data string) []string {
	var out []string
	for _, k := range sanitize.Kinds() {
		for _, ex := range k.Examples {
			if strings.Contains(data, ex.Secret()) {
				out = append(out, k.ID)
			}
		}
	}
	if strings.Contains(data, "the private part") {
		out = append(out, "private")
	}
	return out
}

// TestApplySanitises plants every secret in every text an operation
// stores, through every verb that stores text, and checks the ledger as
// encoded for disk.
func TestApplySanitises(t *testing.T) {
	t.Parallel()
	for _, secret := range planted() {
		text := "see " + secret + " here"
		l := &ledger.Ledger{IssueNumber: 42}
		env := Env{Now: t0, Config: defaultConfig(t)}
		steps := []Op{
			{Verb: Request, Issue: 42, From: "engineer", To: "architect", Topic: "topic " + strings.ReplaceAll(secret, "\n", " "), Text: text, Blocking: true},
			{Verb: Answer, ID: "CLR-42-001", Text: text},
			{Verb: Ask, ID: "CLR-42-001", Text: text},
			{Verb: Escalate, ID: "CLR-42-001", Text: text},
			{Verb: Resolve, ID: "CLR-42-001", Text: text},
			{Verb: Request, Issue: 42, From: "engineer", To: "architect", Topic: "second", Text: "q?", Blocking: true},
			{Verb: Abandon, ID: "CLR-42-002", Text: text},
		}
		for _, op := range steps {
			if _, err := Apply(l, op, env); err != nil {
				// A long example may push the topic past its limit.
				if op.Verb == Request && strings.Contains(err.Error(), "topic is") {
					op.Topic = "topic"
					if _, err = Apply(l, op, env); err == nil {
						continue
					}
				}
				t.Fatalf("%s with %q: %v", op.Verb, secret, err)
			}
		}
		data, err := jsonfile.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		if got := leaks(string(data)); len(got) > 0 {
			t.Errorf("the ledger keeps %v:\n%s", got, data)
		}
	}
}

func TestApplyEscalationSummaryOfAnOldRecord(t *testing.T) {
	t.Parallel()
	// A record written before sanitising: its summary must not quote the
	// token, not even the 300-character head of it.
	rec := record(ledger.Pending, 1)
	rec.Thread[0].Body = strings.Repeat("word ", 55) + "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
	rec.Topic = "auth xoxb-2468013579-1357924680-AbCdEfGhIjKlMnOpQrStUvWx"
	l := &ledger.Ledger{IssueNumber: 42, Clarifications: []ledger.Record{rec}}
	eff, err := Apply(l, Op{Verb: Escalate, ID: "CLR-42-001"}, Env{Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	body := eff.Record.Thread[len(eff.Record.Thread)-1].Body
	if strings.Contains(body, "ghp_16C7e42F") || strings.Contains(body, "xoxb-2468") {
		t.Fatalf("summary quotes a secret:\n%s", body)
	}
}

func TestApplyRefusesAllPrivateText(t *testing.T) {
	t.Parallel()
	l := &ledger.Ledger{IssueNumber: 42, Clarifications: []ledger.Record{record(ledger.Pending, 1)}}
	_, err := Apply(l, Op{Verb: Answer, ID: "CLR-42-001", Text: "<private>all of it</private>"}, Env{Now: t0})
	if !errcode.Is(err, errcode.InvalidInput) || !strings.Contains(err.Error(), "answer holds nothing but private text") {
		t.Fatalf("err = %v", err)
	}
	if len(l.Clarifications[0].Thread) != 1 {
		t.Fatal("the ledger changed")
	}
	// An optional text falls back to its default.
	eff, err := Apply(l, Op{Verb: Resolve, ID: "CLR-42-001", Text: "< PRIVATE >why</private >"}, Env{Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if got := eff.Record.Thread[len(eff.Record.Thread)-1].Body; got != "Resolved." {
		t.Fatalf("resolution = %q", got)
	}
}
