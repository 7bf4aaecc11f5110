package actioncmd

import (
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/githubfake"
)

// peopleToml is a checkout's agentx.toml naming the person lead.
const peopleToml = "mode = \"github\"\n\n[people]\nlead = \"@octo-lead\"\n"

// personLedger is a blocking question from engineer to the person lead,
// mentioning someone else in its text (which must stay neutralised).
func personLedger(issue int, now time.Time) *ledger.Ledger {
	l := sampleLedger(issue, now)
	l.Clarifications[0].To = ledger.PersonTargetPrefix + "lead"
	return l
}

// TestActionPersonTarget (issue 34): in GitHub Mode a question to a person
// is mirrored to the issue mentioning their configured handle, with the
// comment that answers it; their /clarify answer comes back through
// ingest under the existing permission rules, and an outsider's does not.
func TestActionPersonTarget(t *testing.T) {
	t.Parallel()
	fake, r := issueRunner(t, 6, "sync", "")
	r.checkoutFile("agentx.toml", []byte(peopleToml))
	r.writeLedger(personLedger(6, time.Now()))
	if res := r.run(); res.code != 0 || res.outputs["comments-created"] != "1" {
		t.Fatalf("sync: exit %d outputs %v\n%s", res.code, res.outputs, res.stderr)
	}
	cs := fake.Comments(6)
	if len(cs) != 1 {
		t.Fatalf("comments: %+v", cs)
	}
	body := cs[0].Body
	if !strings.Contains(body, "\n@octo-lead: your answer is asked. Comment `/clarify answer CLR-6-001 <answer>`.") {
		t.Fatalf("the question does not mention the person:\n%s", body)
	}
	if !strings.Contains(body, "@\u200bbob") || strings.Count(body, "@octo-lead") != 1 {
		t.Fatalf("a mention came from the ledger's text:\n%s", body)
	}

	// An outsider's answer is not applied (the existing rules).
	r.env["INPUT_COMMAND"] = "ingest"
	r.env["GITHUB_EVENT_NAME"] = "issue_comment"
	out := fake.AddComment(6, "mallory", "NONE", "/clarify answer CLR-6-001 Whatever.")
	r.event(commentEvent("created", out))
	if res := r.run(); res.code != 0 || res.outputs["commands-applied"] != "0" || threadLen(r, 6, "CLR-6-001") != 1 {
		t.Fatalf("outsider: exit %d outputs %v\n%s", res.code, res.outputs, res.stderr)
	}

	// The person answers by comment: the answer lands in the ledger as theirs.
	c := fake.AddComment(6, "octo-lead", "MEMBER", "/clarify answer CLR-6-001 Sessions, with a 30 minute TTL.")
	r.event(commentEvent("created", c))
	if res := r.run(); res.code != 0 || res.outputs["commands-applied"] != "1" ||
		fake.ReactionsBy(c.ID, githubfake.BotLogin) != "eyes,+1" {
		t.Fatalf("answer: exit %d outputs %v\n%s", res.code, res.outputs, res.stderr)
	}
	rec := r.branchLedger(6).Find("CLR-6-001")
	a := rec.LastOf(ledger.Answer)
	if rec.Status != ledger.Answered || a == nil || a.From != "octo-lead" || a.Body != "Sessions, with a 30 minute TTL." {
		t.Fatalf("record after the answer: %+v", rec)
	}
	if _, err := clock.Parse(a.Timestamp); err != nil {
		t.Fatalf("answer timestamp %q: %v", a.Timestamp, err)
	}
}
