package actioncmd

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/githubfake"
	"github.com/agentx-dev/agentx/internal/sync"
)

// The operational edges of issue 11 with the built binary: no command
// dropped (re-delivery, edits, the sweep), people allowed by their
// repository role, drift repaired in rotation, a wrong bot-login stopped.

// commentEvent is the issue_comment payload GitHub sends for c (created,
// or edited with the comment's new body and updated_at).
func commentEvent(action string, c githubfake.Comment) map[string]any {
	ev := issueCommentEvent(c.Issue, c)
	ev["action"] = action
	cm := ev["comment"].(map[string]any)
	cm["created_at"] = c.Created.Format(time.RFC3339)
	cm["updated_at"] = c.Updated.Format(time.RFC3339)
	return ev
}

func threadLen(r *runner, issue int, id string) int {
	r.t.Helper()
	return len(r.branchLedger(issue).Find(id).Thread)
}

// TestActionRedeliveredAndEditedCommandsApplyOnce: a re-delivered (or
// re-run) event applies nothing twice and acknowledges nothing it did not
// do; an edited comment applies its new command once, and a second
// delivery of the same edit does nothing.
func TestActionRedeliveredAndEditedCommandsApplyOnce(t *testing.T) {
	t.Parallel()
	fake, r := issueRunner(t, 5, "ingest", "issue_comment")
	r.writeLedger(sampleLedger(5, time.Now()))

	// A typo: rejected with a reply and 😕, nothing written.
	c := fake.AddComment(5, "alice", "MEMBER", "/clarify answr CLR-5-001 Sessions.")
	r.event(commentEvent("created", c))
	res := r.run()
	if res.code != 0 || res.outputs["commands-rejected"] != "1" || res.outputs["commands-applied"] != "0" ||
		fake.ReactionsBy(c.ID, githubfake.BotLogin) != "eyes,confused" || threadLen(r, 5, "CLR-5-001") != 1 {
		t.Fatalf("typo: exit %d outputs %v reactions %q\n%s", res.code, res.outputs, fake.ReactionsBy(c.ID, githubfake.BotLogin), res.stdout)
	}

	// The person fixes the comment: the edit applies once; the 😕 given
	// to the old text is taken back.
	c, _ = fake.EditCommentByHand(c.ID, "/clarify answer CLR-5-001 Sessions.")
	r.event(commentEvent("edited", c))
	fake.ResetCounts()
	res = r.run()
	if res.code != 0 || res.outputs["commands-applied"] != "1" || threadLen(r, 5, "CLR-5-001") != 2 ||
		fake.ReactionsBy(c.ID, githubfake.BotLogin) != "eyes,+1" {
		t.Fatalf("edit: exit %d outputs %v reactions %q\n%s", res.code, res.outputs, fake.ReactionsBy(c.ID, githubfake.BotLogin), res.stdout)
	}
	fake.ExpectCalls(t, fmt.Sprintf("GET /repos/o/r/issues/comments/%d/reactions", c.ID),
		fmt.Sprintf("DELETE /repos/o/r/issues/comments/%d/reactions/", c.ID),
		"POST /repos/{owner}/{repo}/git/commits", "PATCH /repos/{owner}/{repo}/git/refs/{ref...}")
	entry := r.branchLedger(5).Find("CLR-5-001").Thread[1]
	var edited string
	for _, f := range entry.Extra {
		if f.Key == sync.CommentUpdatedKey {
			edited = string(f.Value)
		}
	}
	if entry.From != "alice" || edited != `"`+c.Updated.Format(time.RFC3339)+`"` {
		t.Fatalf("the entry does not record the comment's edit time: %+v", entry)
	}

	// The same edit delivered again, and a re-run of it: nothing applied,
	// nothing committed, no count.
	for i := 0; i < 2; i++ {
		commits := fake.BranchCommits(sync.DefaultStateBranch)
		res = r.run()
		if res.code != 0 || res.outputs["commands-applied"] != "0" || res.outputs["commands-rejected"] != "0" ||
			threadLen(r, 5, "CLR-5-001") != 2 || fake.BranchCommits(sync.DefaultStateBranch) != commits {
			t.Fatalf("redelivered edit %d: exit %d outputs %v\n%s", i, res.code, res.outputs, res.stdout)
		}
	}
	// The original event, late: superseded by the edit it predates.
	orig := c
	orig.Body, orig.Updated = "/clarify answr CLR-5-001 Sessions.", c.Created
	r.event(commentEvent("created", orig))
	if res = r.run(); res.code != 0 || res.outputs["commands-applied"] != "0" || threadLen(r, 5, "CLR-5-001") != 2 {
		t.Fatalf("late original: exit %d outputs %v", res.code, res.outputs)
	}
}

// TestActionMonitorSweepsALostCommand: a command whose ingest run GitHub
// cancelled (or an outage lost) carries no verdict of ours; the next
// monitor run finds it through the comments updated since the last sweep
// and applies it late. Commands already answered are left alone, and the
// sweep's end is kept in the sync state, so the next run reads only newer
// comments.
func TestActionMonitorSweepsALostCommand(t *testing.T) {
	t.Parallel()
	fake, r := issueRunner(t, 5, "ingest", "issue_comment")
	fake.Advance(time.Since(fake.Now()) - time.Hour) // the comments are an hour old
	l := sampleLedger(5, time.Now())
	second := l.Clarifications[0]
	second.ID, second.Topic = "CLR-5-002", "db"
	l.Clarifications = append(l.Clarifications, second)
	r.writeLedger(l)

	// One command answered by its ingest run.
	done := fake.AddComment(5, "alice", "MEMBER", "/clarify answer CLR-5-001 Sessions.")
	r.event(commentEvent("created", done))
	if res := r.run(); res.code != 0 || res.outputs["commands-applied"] != "1" {
		t.Fatalf("ingest: exit %d outputs %v", res.code, res.outputs)
	}
	// One whose run was cancelled: no run at all, no reaction.
	lost := fake.AddComment(5, "bob", "OWNER", "/clarify resolve CLR-5-002 Postgres.")
	fake.AddComment(5, "carol", "NONE", "thanks!")

	r.env["INPUT_COMMAND"] = "monitor"
	r.env["GITHUB_EVENT_NAME"] = "schedule"
	r.event(map[string]any{"schedule": "17 * * * *"})
	fake.ResetCounts()
	res := r.run()
	t.Logf("monitor with a sweep (3 comments, 1 lost command): %d reads, %d writes %v", fake.Reads(), fake.Writes(), fake.Calls())
	if res.code != 0 || res.outputs["commands-swept"] != "1" || res.outputs["commands-applied"] != "1" {
		t.Fatalf("monitor: exit %d outputs %v\n%s\n%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	if rec := r.branchLedger(5).Find("CLR-5-002"); rec.Status != ledger.Resolved || rec.LastOf(ledger.Resolution).From != "bob" {
		t.Fatalf("the lost command was not applied: %+v", rec)
	}
	if got := fake.ReactionsBy(lost.ID, githubfake.BotLogin); got != "eyes,+1" {
		t.Fatalf("lost command reactions %q", got)
	}
	if threadLen(r, 5, "CLR-5-001") != 2 {
		t.Fatal("the answered command was applied again")
	}
	fake.ExpectCalls(t, "GET /repos/o/r/issues/comments?",
		fmt.Sprintf("GET /repos/o/r/issues/comments/%d/reactions", done.ID),
		fmt.Sprintf("GET /repos/o/r/issues/comments/%d/reactions", lost.ID))
	data, _ := fake.BranchFile(sync.DefaultStateBranch, sync.SyncStatePath)
	swept := sync.ParseState(data).SweptUntil
	if swept == "" {
		t.Fatal("the sweep's end is not in the sync state")
	}

	// The next run lists only comments updated since then (if any time
	// passed at all): none of these.
	fake.ResetCounts()
	res = r.run()
	if res.code != 0 || res.outputs["commands-swept"] != "0" || fake.Calls()["GET /repos/{owner}/{repo}/issues/comments/{id}/reactions"] != 0 {
		t.Fatalf("second monitor: exit %d outputs %v calls %v", res.code, res.outputs, fake.Calls())
	}
	for _, c := range fake.Log() {
		if strings.HasPrefix(c.Path, "/repos/o/r/issues/comments?") && !strings.Contains(c.Path, "since="+strings.ReplaceAll(swept, ":", "%3A")) {
			t.Fatalf("the second sweep listed from another time than %s: %s", swept, c.Path)
		}
	}
}

// TestActionPermissionEndpointDecides: a private organisation member shows
// as CONTRIBUTOR; the collaborator-permission endpoint says write, and the
// command is applied. A triager is an outsider: 😕 only, no reply.
// min-permission raises the bar.
func TestActionPermissionEndpointDecides(t *testing.T) {
	t.Parallel()
	fake, r := issueRunner(t, 5, "ingest", "issue_comment")
	r.writeLedger(sampleLedger(5, time.Now()))
	fake.SetPermission("carol", "write")
	fake.SetPermission("dave", "triage")

	d := fake.AddComment(5, "dave", "CONTRIBUTOR", "/clarify answer CLR-5-001 Cookies.")
	r.event(commentEvent("created", d))
	comments := len(fake.Comments(5))
	res := r.run()
	if res.code != 0 || res.outputs["commands-rejected"] != "1" || len(fake.Comments(5)) != comments ||
		fake.ReactionsBy(d.ID, githubfake.BotLogin) != "eyes,confused" || threadLen(r, 5, "CLR-5-001") != 1 {
		t.Fatalf("triager: exit %d outputs %v reactions %q", res.code, res.outputs, fake.ReactionsBy(d.ID, githubfake.BotLogin))
	}

	r.env["INPUT_MIN-PERMISSION"] = "maintain"
	c := fake.AddComment(5, "carol", "CONTRIBUTOR", "/clarify answer CLR-5-001 Sessions.")
	r.event(commentEvent("created", c))
	if res = r.run(); res.code != 0 || res.outputs["commands-rejected"] != "1" || threadLen(r, 5, "CLR-5-001") != 1 {
		t.Fatalf("min-permission maintain: exit %d outputs %v", res.code, res.outputs)
	}

	r.env["INPUT_MIN-PERMISSION"] = "write"
	c, _ = fake.EditCommentByHand(c.ID, c.Body+" ")
	r.event(commentEvent("edited", c))
	fake.ResetCounts()
	if res = r.run(); res.code != 0 || res.outputs["commands-applied"] != "1" || threadLen(r, 5, "CLR-5-001") != 2 {
		t.Fatalf("private member: exit %d outputs %v\n%s", res.code, res.outputs, res.stdout)
	}
	fake.ExpectCalls(t, "GET /repos/o/r/collaborators/carol/permission")
	if got := fake.ReactionsBy(c.ID, githubfake.BotLogin); got != "eyes,+1" {
		t.Fatalf("reactions %q", got)
	}

	r.env["INPUT_MIN-PERMISSION"] = "owner"
	if res = r.run(); res.code != 2 || !strings.Contains(res.stdout, "min-permission") {
		t.Fatalf("bad min-permission: exit %d\n%s", res.code, res.stdout)
	}
}

// TestActionMonitorRepairsDrift: hand edits the cache cannot see (a mirror
// deleted, one edited, a duplicate from a 5xx after a create, a managed
// label removed) are repaired within ceil(issues / reconcile-per-run)
// monitor runs, each checking its slice in rotation.
func TestActionMonitorRepairsDrift(t *testing.T) {
	t.Parallel()
	fake := githubfake.New()
	defer fake.Close()
	r := newRunner(t, fake)
	const n = 12
	for i := 1; i <= n; i++ {
		fake.AddIssue(i)
		r.writeLedger(sampleLedger(i, time.Now()))
	}
	r.env["INPUT_COMMAND"] = "sync"
	if res := r.run(); res.code != 0 || res.outputs["comments-created"] != fmt.Sprint(n) || len(fake.Comments(8)) != 1 {
		t.Fatalf("first sync: exit %d outputs %v, %d comments on #8", res.code, res.outputs, len(fake.Comments(8)))
	}
	// A duplicate of #8's mirror by the bot (an older release retried a
	// create GitHub had done despite its 502; today's checks first, see
	// TestActionRetriedCreateLeavesNoDuplicate): the cache does not see it.
	fake.AddComment(8, githubfake.BotLogin, "NONE", fake.Comments(8)[0].Body)
	mirror := func(issue int) githubfake.Comment { return fake.Comments(issue)[0] }
	fake.DeleteCommentByHand(mirror(2).ID)
	fake.EditCommentByHand(mirror(5).ID, strings.Replace(mirror(5).Body, "JWT or sessions?", "edited by hand", 1))
	fake.RemoveLabelByHand(11, "clarification-blocked")
	// A sync sees none of it: the cache says every issue is done.
	if res := r.run(); res.code != 0 || res.outputs["comments-created"] != "0" || len(fake.Comments(8)) != 2 {
		t.Fatalf("plain sync: exit %d outputs %v", res.code, res.outputs)
	}

	r.env["INPUT_COMMAND"] = "monitor"
	r.env["GITHUB_EVENT_NAME"] = "schedule"
	r.env["INPUT_RECONCILE-PER-RUN"] = "5"
	want := []struct{ reconciled, repaired string }{{"5", "2"}, {"5", "1"}, {"5", "1"}, {"5", "0"}}
	for run, w := range want {
		fake.ResetCounts()
		res := r.run()
		t.Logf("monitor run %d (%d issues, reconcile-per-run 5): %d reads, %d writes", run+1, n, fake.Reads(), fake.Writes())
		if res.code != 0 || res.outputs["issues-reconciled"] != w.reconciled || res.outputs["issues-repaired"] != w.repaired {
			t.Fatalf("monitor run %d: exit %d outputs %v\n%s", run+1, res.code, res.outputs, res.stdout)
		}
		if !strings.Contains(res.summary, "| issues-repaired | "+w.repaired+" |") {
			t.Fatalf("summary %q", res.summary)
		}
	}
	for i := 1; i <= n; i++ {
		cs := fake.Comments(i)
		if len(cs) != 1 || !strings.Contains(cs[0].Body, "JWT or sessions?") || strings.Join(fake.IssueLabels(i), ",") != "clarification-blocked" {
			t.Fatalf("issue %d not repaired: %+v labels %v", i, cs, fake.IssueLabels(i))
		}
	}
	// full-resync still checks everything at once.
	fake.DeleteCommentByHand(mirror(9).ID)
	r.env["INPUT_COMMAND"] = "sync"
	r.env["INPUT_FULL-RESYNC"] = "true"
	if res := r.run(); res.code != 0 || res.outputs["comments-created"] != "1" || len(fake.Comments(9)) != 1 {
		t.Fatalf("full resync: exit %d outputs %v", res.code, res.outputs)
	}
}

// TestActionWrongBotLoginStops: the mirrors were posted by
// github-actions[bot] but bot-login names another account. The run stops
// before posting anything and says which login to set, instead of posting
// every comment again.
func TestActionWrongBotLoginStops(t *testing.T) {
	t.Parallel()
	fake, r := issueRunner(t, 3, "sync", "")
	r.writeLedger(sampleLedger(3, time.Now()))
	if res := r.run(); res.code != 0 || res.outputs["comments-created"] != "1" {
		t.Fatalf("first sync: exit %d outputs %v", res.code, res.outputs)
	}
	r.env["INPUT_BOT-LOGIN"] = "agentx-app[bot]"
	fake.ResetCounts()
	res := r.run()
	if res.code != 1 || strings.Count(res.stdout, "::error") != 1 ||
		!strings.Contains(res.stdout, "set the action's bot-login input to github-actions[bot]") ||
		!strings.Contains(res.summary, "Stopped:") {
		t.Fatalf("exit %d\n%s\nsummary %q", res.code, res.stdout, res.summary)
	}
	if len(fake.Comments(3)) != 1 || fake.Calls()["POST /repos/{owner}/{repo}/issues/{number}/comments"] != 0 {
		t.Fatalf("the run posted: %d comments, %v", len(fake.Comments(3)), fake.Calls())
	}
}
