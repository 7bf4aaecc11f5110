// End-to-end runs of agentx-action on the state branch: sync, ingest of a
// ledger only the branch holds, two ingests racing for the tip, the monitor's
// escalation, a protected branch, the migration from the checkout, the
// branch named by agentx.toml, and a push that changed no ledger.

package actioncmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/githubfake"
	"github.com/agentx-dev/agentx/internal/sync"
)

func TestActionSyncEndToEnd(t *testing.T) {
	t.Parallel()
	fake := githubfake.New()
	defer fake.Close()
	r := newRunner(t, fake)
	r.env["INPUT_COMMAND"] = "sync"
	for i := 1; i <= 3; i++ {
		fake.AddIssue(i)
		r.writeLedger(sampleLedger(i, time.Now()))
	}
	commits := fake.BranchCommits(sync.DefaultStateBranch)
	res := r.run()
	if res.code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", res.code, res.stdout, res.stderr)
	}
	if res.outputs["comments-created"] != "3" || res.outputs["labels-added"] != "3" || res.outputs["issues-synced"] != "3" {
		t.Fatalf("outputs %v", res.outputs)
	}
	if !strings.Contains(res.summary, "| comments-created | 3 |") {
		t.Fatalf("summary %q", res.summary)
	}
	for i := 1; i <= 3; i++ {
		cs := fake.Comments(i)
		if len(cs) != 1 || !strings.Contains(cs[0].Body, "@\u200bbob") || strings.Join(fake.IssueLabels(i), ",") != "clarification-blocked" {
			t.Fatalf("issue %d: %+v labels %v", i, cs, fake.IssueLabels(i))
		}
	}
	if _, ok := fake.BranchFile(sync.DefaultStateBranch, sync.SyncStatePath); !ok {
		t.Fatal("sync state not committed to the state branch")
	}
	if got := fake.BranchCommits(sync.DefaultStateBranch); got != commits+1 {
		t.Fatalf("%d commits for the sync state, want 1", got-commits)
	}
	noContentsAPI(t, fake.Calls())

	// Nothing changed: the tip is the action's own record of a complete
	// mirror, read in one call (the branches endpoint carries its
	// message); no tree, no ledger, no issue, no write.
	fake.ResetCounts()
	res = r.run()
	calls := fake.Calls()
	if res.code != 0 || res.outputs["comments-created"] != "0" || fake.Writes() != 0 || fake.Reads() != 1 ||
		calls[branchRead] != 1 {
		t.Fatalf("unchanged run: exit %d, outputs %v, calls %v", res.code, res.outputs, calls)
	}
	t.Logf("sync, nothing changed: %d reads, %d writes %v", fake.Reads(), fake.Writes(), calls)

	// One ledger changes (an agent answered and synced): only its blob is
	// read, one comment, one label removed, one commit for the state.
	l := sampleLedger(2, time.Now())
	rec := &l.Clarifications[0]
	rec.Status = ledger.Answered
	rec.Thread = append(rec.Thread, ledger.Entry{Round: 1, From: "architect", Type: ledger.Answer, Body: "Sessions.", Timestamp: rec.Created})
	r.writeLedger(l)
	fake.ResetCounts()
	res = r.run()
	calls = fake.Calls()
	if res.code != 0 || res.outputs["comments-created"] != "1" || res.outputs["labels-removed"] != "1" ||
		calls[refRead] != 1 || calls[treeRead] != 1 || calls[blobRead] != 2 || calls[commit] != 1 || calls[refUpdate] != 1 {
		t.Fatalf("changed ledger: exit %d, outputs %v, %v\n%s", res.code, res.outputs, calls, res.stdout)
	}
	t.Logf("sync, one ledger changed: %d reads, %d writes %v", fake.Reads(), fake.Writes(), calls)
}

// TestActionIngestOnABranchLedger: the issue's agent works on a branch
// (42-fix-login) and its ledger exists only on the state branch, never in
// the default branch's checkout the issue_comment run gets. A person's
// answer lands there, with the figures of an ingest run.
func TestActionIngestOnABranchLedger(t *testing.T) {
	t.Parallel()
	fake, r := issueRunner(t, 5, "ingest", "issue_comment")
	r.writeLedger(sampleLedger(5, time.Now()))
	r.writeLedger(sampleLedger(6, time.Now())) // another issue's blob is never read

	c := fake.AddComment(5, "alice", "MEMBER", "/clarify answer CLR-5-001 Sessions, in Redis.")
	r.event(issueCommentEvent(5, c))
	fake.ResetCounts()
	res := r.run()
	if res.code != 0 || res.outputs["commands-applied"] != "1" || res.outputs["commands-rejected"] != "0" {
		t.Fatalf("exit %d outputs %v\n%s\n%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	if rec := r.branchLedger(5).Find("CLR-5-001"); rec.Status != ledger.Answered || rec.Thread[1].From != "alice" {
		t.Fatalf("record %+v", rec)
	}
	if _, err := os.Stat(filepath.Join(r.workspace, ".agentx")); err == nil {
		t.Fatal("ingest wrote into the checkout")
	}
	if got := fake.ReactionsBy(c.ID, githubfake.BotLogin); got != "eyes,+1" {
		t.Fatalf("reactions %v", got)
	}
	// The figures: for the state 1 ref read, 1 tree read, the one blob of
	// the issue, 1 tree + 1 commit + 1 ref update; then one more ref read
	// after mirroring, which tells whether a later run committed meanwhile
	// (its mirror must not be overwritten by ours).
	calls := fake.Calls()
	t.Logf("ingest: %d reads, %d writes %v", fake.Reads(), fake.Writes(), calls)
	if calls[refRead] != 2 || calls[treeRead] != 1 || calls[blobRead] != 1 || calls[treeWrite] != 1 || calls[commit] != 1 ||
		calls[refUpdate] != 1 || fake.BranchCommits(sync.DefaultStateBranch) != 3 {
		t.Fatalf("ingest figures: %v, %d commits", calls, fake.BranchCommits(sync.DefaultStateBranch))
	}
	noContentsAPI(t, calls)

	// A stranger's command: a warning, a 😕 and no public reply (the bot
	// cannot be made to post at will), no comment text in any output; the
	// branch is not even read.
	secret := "/clarify resolve CLR-5-001 drop-table-text"
	c2 := fake.AddComment(5, "eve", "NONE", secret)
	r.event(issueCommentEvent(5, c2))
	fake.ResetCounts()
	comments := len(fake.Comments(5))
	res = r.run()
	if res.code != 0 || res.outputs["commands-rejected"] != "1" || !strings.Contains(res.stdout, "::warning") || fake.Calls()[refRead] != 0 {
		t.Fatalf("exit %d outputs %v calls %v\n%s", res.code, res.outputs, fake.Calls(), res.stdout)
	}
	out, _ := os.ReadFile(r.env["GITHUB_OUTPUT"])
	if strings.Contains(string(out), "drop-table-text") {
		t.Fatal("comment text reached an output")
	}
	if n := len(fake.Comments(5)); n != comments || fake.ReactionsBy(c2.ID, githubfake.BotLogin) != "eyes,confused" {
		t.Fatalf("outsider: %d comments (was %d), reactions %q", n, comments, fake.ReactionsBy(c2.ID, githubfake.BotLogin))
	}
	fake.ExpectCalls(t, "GET /repos/o/r/collaborators/eve/permission",
		fmt.Sprintf("POST /repos/o/r/issues/comments/%d/reactions", c2.ID), fmt.Sprintf("POST /repos/o/r/issues/comments/%d/reactions", c2.ID))

	// reply-to-outsiders: true answers them with why.
	r.env["INPUT_REPLY-TO-OUTSIDERS"] = "true"
	c3 := fake.AddComment(5, "eve", "NONE", secret)
	r.event(issueCommentEvent(5, c3))
	if res = r.run(); res.code != 0 || res.outputs["commands-rejected"] != "1" {
		t.Fatalf("exit %d outputs %v", res.code, res.outputs)
	}
	cs := fake.Comments(5)
	if last := cs[len(cs)-1]; last.User != githubfake.BotLogin || !strings.Contains(last.Body, "not allowed") {
		t.Fatalf("reply %q", last.Body)
	}
}

// TestActionTwoIngestProcessesRace runs two agentx-action processes on two
// commands for one issue, both holding the same state branch tip before
// either moves it: both commands land, one after a refused (not fast
// forward) ref update and a re-apply on the fresh ledger.
func TestActionTwoIngestProcessesRace(t *testing.T) {
	t.Parallel()
	fake := githubfake.New()
	defer fake.Close()
	fake.AddIssue(8)
	l := sampleLedger(8, time.Now())
	second := l.Clarifications[0]
	second.ID, second.Topic = "CLR-8-002", "db"
	l.Clarifications = append(l.Clarifications, second)
	fake.HoldRefUpdates(2, 20*time.Second)
	var runners []*runner
	for i, body := range []string{"/clarify answer CLR-8-001 Sessions.", "/clarify resolve CLR-8-002 Postgres."} {
		r := newRunner(t, fake)
		r.env["INPUT_COMMAND"] = "ingest"
		r.env["GITHUB_EVENT_NAME"] = "issue_comment"
		if i == 0 {
			r.writeLedger(l)
		}
		user := []string{"alice", "bob"}[i]
		r.event(issueCommentEvent(8, fake.AddComment(8, user, "OWNER", body)))
		runners = append(runners, r)
	}
	var wg gosync.WaitGroup
	results := make([]stepResult, 2)
	for i, r := range runners {
		wg.Add(1)
		go func() { defer wg.Done(); results[i] = r.run() }()
	}
	wg.Wait()
	for i, res := range results {
		if res.code != 0 || res.outputs["commands-applied"] != "1" {
			t.Fatalf("process %d: exit %d outputs %v\n%s", i, res.code, res.outputs, res.stdout)
		}
	}
	final := runners[0].branchLedger(8)
	if a, b := final.Find("CLR-8-001").Status, final.Find("CLR-8-002").Status; a != ledger.Answered || b != ledger.Resolved {
		t.Fatalf("statuses %s, %s: a command was lost", a, b)
	}
	if n := fake.Calls()[refUpdate]; n != 3 {
		t.Fatalf("%d ref updates, want 3 (one lost race)", n)
	}
	if n := fake.BranchCommits(sync.DefaultStateBranch); n != 3 {
		t.Fatalf("%d commits on the state branch, want 3 (the seed and one per command)", n)
	}
}

// TestActionMonitorEscalatesFromTheStateBranch: the stale record is only
// on the state branch (no checkout at all); the monitor escalates it there
// in one commit and the sync that follows mirrors it.
func TestActionMonitorEscalatesFromTheStateBranch(t *testing.T) {
	t.Parallel()
	fake, r := issueRunner(t, 9, "monitor", "")
	r.env["GITHUB_EVENT_NAME"] = "schedule"
	// A blocking question whose first timeout was handled long ago: the
	// monitor's second timeout escalates it.
	l := sampleLedger(9, time.Now().Add(-48*time.Hour))
	l.Clarifications[0].Status = ledger.Stale
	l.Clarifications[0].SetExtra("staleRound", json.RawMessage("1"))
	r.writeLedger(l)
	commits := fake.BranchCommits(sync.DefaultStateBranch)
	res := r.run()
	if res.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if st := r.branchLedger(9).Clarifications[0].Status; st != ledger.Escalated {
		t.Fatalf("status %s after monitor", st)
	}
	if labels := strings.Join(fake.IssueLabels(9), ","); labels != "clarification-escalated" {
		t.Fatalf("labels %q", labels)
	}
	if res.outputs["comments-created"] != "2" {
		t.Fatalf("outputs %v", res.outputs)
	}
	// One commit for the monitor's ledgers, one for the sync state.
	if got := fake.BranchCommits(sync.DefaultStateBranch) - commits; got != 2 {
		t.Fatalf("%d commits, want 2", got)
	}
	noContentsAPI(t, fake.Calls())
}

// TestActionProtectedStateBranch: a branch GitHub refuses to move gives
// one clear error naming the branch and the fix, a step-summary line, and
// a reply to the person whose command was not saved; it is never retried.
func TestActionProtectedStateBranch(t *testing.T) {
	t.Parallel()
	fake, r := issueRunner(t, 5, "ingest", "issue_comment")
	r.writeLedger(sampleLedger(5, time.Now()))
	fake.ProtectBranch(sync.DefaultStateBranch)
	c := fake.AddComment(5, "alice", "MEMBER", "/clarify answer CLR-5-001 Sessions.")
	r.event(issueCommentEvent(5, c))
	fake.ResetCounts()
	res := r.run()
	if res.code != 1 || strings.Count(res.stdout, "::error") != 1 || !strings.Contains(res.stdout, "agentx/state is a protected branch") {
		t.Fatalf("exit %d\n%s", res.code, res.stdout)
	}
	if !strings.Contains(res.summary, "Not saved:") || !strings.Contains(res.summary, "contents: write") || !strings.Contains(res.summary, "`agentx/state`") {
		t.Fatalf("summary %q", res.summary)
	}
	if n := fake.Calls()[refUpdate]; n != 1 {
		t.Fatalf("%d ref updates: a protected branch was retried", n)
	}
	cs := fake.Comments(5)
	if last := cs[len(cs)-1]; last.User != githubfake.BotLogin || !strings.Contains(last.Body, "could not be saved") {
		t.Fatalf("reply %q", last.Body)
	}
	if rec := r.branchLedger(5).Find("CLR-5-001"); rec.Status != ledger.Pending {
		t.Fatalf("the ledger moved: %s", rec.Status)
	}

	// sync and monitor say the same in their annotation and summary.
	r.env["INPUT_COMMAND"] = "sync"
	r.env["GITHUB_EVENT_NAME"] = "push"
	res = r.run()
	if res.code != 1 || !strings.Contains(res.stdout, "protected branch") || !strings.Contains(res.summary, "Not saved:") {
		t.Fatalf("sync on a protected branch: exit %d\n%s\n%s", res.code, res.stdout, res.summary)
	}
}

// TestActionMigratesFromTheCheckout: GitHub Mode before the state branch
// kept ledgers, memory and the sync state on the default branch. The
// first run seeds the state branch from the checkout in one commit;
// nothing is lost and the comments already posted keep their markers (no
// duplicate is posted).
func TestActionMigratesFromTheCheckout(t *testing.T) {
	t.Parallel()
	fake, r := issueRunner(t, 4, "sync", "")
	l := sampleLedger(4, time.Now())
	data, _ := jsonfile.Marshal(l)
	r.checkoutFile("state/clarifications/issue-4.json", data)
	r.checkoutFile("memory/issue-4.json", []byte(`{"version":1,"issueNumber":4,"observations":[]}`+"\n"))
	r.checkoutFile("memory/manifest.json", []byte("{}\n")) // derived: stays local
	r.checkoutFile("agentx.toml", []byte("mode = \"github\"\n"))
	// The comment the old sync posted, and its state.
	r.env["INPUT_COMMAND"] = "sync"
	old := sync.Desired(l, sync.Labels{Blocked: "clarification-blocked", Escalated: "clarification-escalated"}, Clean)
	for _, c := range old.Comments {
		fake.AddComment(4, githubfake.BotLogin, "NONE", c.Body)
	}
	st := sync.NewState()
	st.Set(4, sync.IssueState{Hash: old.Hash(githubfake.BotLogin), Labels: []string{"clarification-blocked"}})
	stData, _ := jsonfile.Marshal(st)
	r.checkoutFile("state/github-sync.json", stData)

	res := r.run()
	if res.code != 0 || res.outputs["comments-created"] != "0" || len(fake.Comments(4)) != len(old.Comments) {
		t.Fatalf("exit %d outputs %v, %d comments\n%s", res.code, res.outputs, len(fake.Comments(4)), res.stdout)
	}
	if !strings.Contains(res.stdout, "created the state branch agentx/state from the 3 state files") {
		t.Fatalf("no migration notice:\n%s", res.stdout)
	}
	files := fake.BranchFiles(sync.DefaultStateBranch)
	for _, p := range []string{"state/clarifications/issue-4.json", "memory/issue-4.json", sync.SyncStatePath} {
		if _, ok := files[p]; !ok {
			t.Fatalf("%s not migrated: %v", p, files)
		}
	}
	// The state files and the branch's trail, which starts with what the
	// seed brought.
	if _, ok := files["memory/manifest.json"]; ok || len(files) != 4 {
		t.Fatalf("the branch holds more than the state and its trail: %v", files)
	}
	if n := strings.Count(string(files[sync.BranchAuditPath]), `"op":"sync.seed"`); n != 2 {
		t.Fatalf("%d sync.seed lines in the branch's trail, want 2 (ledger, memory file)", n)
	}
	if string(files["state/clarifications/issue-4.json"]) != string(data) {
		t.Fatal("the ledger changed in the move")
	}
	// Seeded in one commit, then the sync state records the ledger's blob.
	if n := fake.BranchCommits(sync.DefaultStateBranch); n != 2 {
		t.Fatalf("%d commits, want 2 (seed, sync state)", n)
	}
	// A second run seeds nothing again and reads no ledger.
	fake.ResetCounts()
	if res = r.run(); res.code != 0 || fake.Writes() != 0 || fake.Reads() != 1 {
		t.Fatalf("after the migration: exit %d, %v", res.code, fake.Calls())
	}
}

// TestActionStateBranchFromConfig: without the input, [github]
// state_branch of the checkout's agentx.toml names the branch.
func TestActionStateBranchFromConfig(t *testing.T) {
	t.Parallel()
	fake, r := issueRunner(t, 3, "sync", "")
	r.checkoutFile("agentx.toml", []byte("mode = \"github\"\n[github]\nstate_branch = \"team/state\"\n"))
	data, _ := jsonfile.Marshal(sampleLedger(3, time.Now()))
	fake.PutBranchFile("team/state", sync.BranchLedgerPath(3), data)
	res := r.run()
	if res.code != 0 || res.outputs["comments-created"] != "1" {
		t.Fatalf("exit %d outputs %v\n%s", res.code, res.outputs, res.stdout)
	}
	if _, ok := fake.BranchFile("team/state", sync.SyncStatePath); !ok || fake.BranchFiles(sync.DefaultStateBranch) != nil {
		t.Fatal("the configured state branch was not used")
	}
}

// TestActionSyncSkipsAPushWithoutLedgers: an agent's push of the state
// branch that changed only memory costs no API call; one that changed a
// ledger, or that the event cannot vouch for (a new branch), is synced.
func TestActionSyncSkipsAPushWithoutLedgers(t *testing.T) {
	t.Parallel()
	fake, r := issueRunner(t, 3, "sync", "")
	r.writeLedger(sampleLedger(3, time.Now()))
	r.env["GITHUB_REF"] = "refs/heads/agentx/state"
	push := func(created bool, paths ...string) {
		r.event(map[string]any{"ref": "refs/heads/agentx/state", "created": created, "forced": false,
			"commits": []map[string]any{{"id": "abc", "added": []string{}, "modified": paths, "removed": []string{}}}})
	}
	push(false, "memory/issue-3.json")
	fake.ResetCounts()
	if res := r.run(); res.code != 0 || fake.Reads()+fake.Writes() != 0 {
		t.Fatalf("memory-only push: exit %d, calls %v", res.code, fake.Calls())
	}
	push(true, "memory/issue-3.json")
	if res := r.run(); res.code != 0 || res.outputs["comments-created"] != "1" {
		t.Fatalf("new branch: exit %d, outputs %v", res.code, res.outputs)
	}
	// An agent answered and pushed the ledger: the tip is no longer the
	// action's record, so the branch is read and the answer mirrored.
	l := sampleLedger(3, time.Now())
	rec := &l.Clarifications[0]
	rec.Status = ledger.Answered
	rec.Thread = append(rec.Thread, ledger.Entry{Round: 1, From: "architect", Type: ledger.Answer, Body: "Sessions.", Timestamp: rec.Created})
	r.writeLedger(l)
	push(false, "state/clarifications/issue-3.json")
	fake.ResetCounts()
	if res := r.run(); res.code != 0 || fake.Calls()[branchRead] != 1 || fake.Calls()[refRead] != 1 || res.outputs["comments-created"] != "1" {
		t.Fatalf("ledger push: exit %d, calls %v", res.code, fake.Calls())
	}
}
