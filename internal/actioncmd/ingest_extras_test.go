package actioncmd

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/githubfake"
)

// reactionPosts counts the run's requests creating a reaction on comment.
func reactionPosts(fake *githubfake.Server, comment int64) int {
	n := 0
	for _, c := range fake.Log() {
		if c.Method == "POST" && c.Path == fmt.Sprintf("/repos/o/r/issues/comments/%d/reactions", comment) {
			n++
		}
	}
	return n
}

// firstCommand is an ingest of member alice's comment body on issue 5,
// whose ledger holds CLR-5-001 waiting; it fails unless output is want.
func firstCommand(t *testing.T, body, output string) (*githubfake.Server, *runner, githubfake.Comment) {
	t.Helper()
	fake, r := issueRunner(t, 5, "ingest", "issue_comment")
	r.writeLedger(sampleLedger(5, time.Now()))
	c := fake.AddComment(5, "alice", "MEMBER", body)
	r.event(commentEvent("created", c))
	if res := r.run(); res.code != 0 || res.outputs[output] != "1" {
		t.Fatalf("first run: exit %d outputs %v\n%s", res.code, res.outputs, res.stdout)
	}
	return fake, r, c
}

// TestActionRedeliveredEventReactsOnce: GitHub delivers the same event
// twice (or a person re-runs the job); the second run applies nothing and
// sends one reaction request at most, not 👀 and 👍 again.
func TestActionRedeliveredEventReactsOnce(t *testing.T) {
	t.Parallel()
	fake, r, c := firstCommand(t, "/clarify answer CLR-5-001 Sessions.", "commands-applied")
	fake.ResetCounts()
	if res := r.run(); res.code != 0 || res.outputs["commands-applied"] != "0" {
		t.Fatalf("redelivery: exit %d outputs %v\n%s", res.code, res.outputs, res.stdout)
	}
	if n := reactionPosts(fake, c.ID); n > 1 {
		t.Fatalf("the redelivered event sent %d reaction requests: %v", n, fake.Log())
	}
	if got := fake.ReactionsBy(c.ID, githubfake.BotLogin); got != "eyes,+1" {
		t.Fatalf("reactions %q", got)
	}
}

// TestActionNotAppliedReplyHasNoControlCharacters: a rejected command's
// reply echoes the comment, but never a raw NUL or BEL.
func TestActionNotAppliedReplyHasNoControlCharacters(t *testing.T) {
	t.Parallel()
	fake, _, _ := firstCommand(t, "/clarify answr CLR-5-001 bell\a nul\x00 esc\x1b[31m del\x7f", "commands-rejected")
	cs := fake.Comments(5)
	reply := cs[len(cs)-1].Body
	if !strings.Contains(reply, "Not applied") {
		t.Fatalf("no reply: %q", reply)
	}
	for _, r := range reply {
		if (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			t.Fatalf("the reply holds control character %U: %q", r, reply)
		}
	}
}

// TestActionEditedAppliedAnswerSaysTheEarlierVersionStands: a person
// fixes a typo in an answer that was already applied. The record is
// answered, so the edit cannot be applied as a second answer; the reply
// must say the earlier version was applied and stands, and the verdict
// stays 👍, not 😕 "Nothing was written".
func TestActionEditedAppliedAnswerSaysTheEarlierVersionStands(t *testing.T) {
	t.Parallel()
	fake, r, c := firstCommand(t, "/clarify answer CLR-5-001 Sesions, in Redis.", "commands-applied")
	c, _ = fake.EditCommentByHand(c.ID, "/clarify answer CLR-5-001 Sessions, in Redis.")
	r.event(commentEvent("edited", c))
	res := r.run()
	if res.code != 0 || res.outputs["commands-applied"] != "0" {
		t.Fatalf("edit: exit %d outputs %v\n%s", res.code, res.outputs, res.stdout)
	}
	if got := fake.ReactionsBy(c.ID, githubfake.BotLogin); got != "eyes,+1" {
		t.Fatalf("reactions after the edit %q, want eyes,+1 (the answer stands)", got)
	}
	cs := fake.Comments(5)
	last := cs[len(cs)-1].Body
	if strings.Contains(last, "Nothing was written") || !strings.Contains(last, "earlier version") {
		t.Fatalf("reply %q", last)
	}
	if threadLen(r, 5, "CLR-5-001") != 2 {
		t.Fatal("the thread changed")
	}
}
