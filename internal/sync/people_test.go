package sync

import (
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// Issue 34: a question to a person ends with who is asked and the comment
// that answers; only a configured handle is mentioned, never a name from
// the ledger, and a question to an agent is rendered as before.
func TestRenderPersonQuestion(t *testing.T) {
	t.Parallel()
	c, err := config.ParseConfig("agentx.toml", []byte("[people]\nlead = \"@octo-lead\"\nqa = { sla = \"8h\" }\n"))
	if err != nil {
		t.Fatal(err)
	}
	mention := PersonMentions(&config.Set{Config: c})
	clean := func(s string) string { return Unmention(s) }
	rec := func(to string) *ledger.Record {
		return &ledger.Record{ID: "CLR-4-001", IssueNumber: 4, From: "engineer", To: to, Topic: "t", Round: 1, MaxRounds: 5,
			Thread: []ledger.Entry{{Round: 1, From: "engineer", Type: ledger.Question, Body: "ask @bob?"}}}
	}
	for _, tc := range []struct{ to, want string }{
		{"human:lead", "\n@octo-lead: your answer is asked. Comment `/clarify answer CLR-4-001 <answer>`.\n"},
		{"human:qa", "\n**qa**: your answer is asked."},
		{"human", "\nA person: your answer is asked."},
	} {
		body := RenderFor(rec(tc.to), 0, clean, mention).Body
		if !strings.Contains(body, tc.want) || strings.Contains(body, "@bob") {
			t.Errorf("%s:\n%s", tc.to, body)
		}
	}
	if body := RenderFor(rec("architect"), 0, clean, mention).Body; strings.Contains(body, "your answer is asked") ||
		body != Render(rec("architect"), 0, clean).Body {
		t.Errorf("a question to an agent changed:\n%s", body)
	}
	if PersonMentions(&config.Set{}) != nil {
		t.Error("no [people]: a mention function")
	}
}
