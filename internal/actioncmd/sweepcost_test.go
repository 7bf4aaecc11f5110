package actioncmd

import (
	"fmt"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/githubfake"
	"github.com/agentx-dev/agentx/internal/sync"
)

// TestQuietMonitorSweepsOnlyWhatChanged: people talk on the issues (250
// comments, none a command); the monitor after them reads them once, and
// the monitors after that, with nothing new, read no comment of
// the day again (issue 38: each re-listed the last 24 hours).
func TestQuietMonitorSweepsOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	rig := newCountRig(t, 10)
	// The talk starts after the last monitor (base+5min) and the monitors
	// run before the ten SLAs pass (base+30min): nothing else to do.
	rig.fake.Advance(rig.clk.Now().Sub(rig.fake.Now()))
	for i := range 250 {
		rig.fake.AddComment(1+i%10, "alice", "MEMBER", fmt.Sprintf("Looks good, note %d.", i))
	}
	rig.clk.Set(rig.base.Add(15 * time.Minute))
	rig.fake.ResetCounts()
	rig.run(monitorNoReconcile, nil)
	first := rig.fake.Reads() + rig.fake.Writes()
	if listed := rig.fake.Calls()["GET /repos/{owner}/{repo}/issues/comments"]; listed != 3 {
		t.Fatalf("the monitor after the talk listed %d pages of comments, want 3 (250 comments)", listed)
	}
	for run := 1; run <= 2; run++ {
		rig.clk.Set(rig.clk.Now().Add(5 * time.Minute))
		rig.fake.ResetCounts()
		rig.run(monitorNoReconcile, nil)
		if c := rig.fake.Reads() + rig.fake.Writes(); c > 3 {
			t.Errorf("quiet monitor %d after the talk: %d calls (%v), want at most 3 (branch, state, one empty listing); the run that read the talk took %d",
				run, c, rig.fake.Calls(), first)
		}
	}
}

// TestNoOpSyncAfterANonLedgerCommit: an agent's `hook finish` pushes
// memory to the state branch, changing no ledger. The sync after it finds
// nothing to mirror and records that, so the syncs and monitors after it
// cost one call again (issue 38: four each, until some run wrote).
func TestNoOpSyncAfterANonLedgerCommit(t *testing.T) {
	t.Parallel()
	rig := newCountRig(t, 10)
	rig.run("sync", nil)
	rig.fake.ResetCounts()
	rig.run("sync", nil)
	if c := rig.fake.Reads() + rig.fake.Writes(); c != 1 {
		t.Fatalf("sync with nothing changed: %d calls, want 1", c)
	}
	rig.fake.PutBranchFile(sync.DefaultStateBranch, "memory/issue-3.json", []byte(`{"issueNumber":3,"records":[]}`+"\n"))
	rig.run("sync", nil)
	for i := 1; i <= 2; i++ {
		rig.fake.ResetCounts()
		rig.run("sync", nil)
		if c := rig.fake.Reads() + rig.fake.Writes(); c != 1 {
			t.Errorf("sync %d after the memory commit was seen: %d calls (%v), want 1", i, c, rig.fake.Calls())
		}
	}
	if files := rig.fake.BranchFiles(sync.DefaultStateBranch); files["memory/issue-3.json"] == nil {
		t.Fatal("the memory file is gone from the state branch")
	}
}

// TestDigestAndFullResyncWithinAnHourlyQuota: the digest reads every
// ledger, a full resync reads and reconciles every issue. A workflow
// token has 1,000 calls an hour (GitHub Enterprise Cloud: 15,000); at
// 1,000 issues the digest took 1,007 and a full resync 3,003 (issue 38).
// The ledgers now come in one archive, and a full resync reads the
// issues' labels and comments in listings of 100: neither grows with the
// issues but by their hundreds.
//
//	AGENTX_CALLCOUNTS=100,1000 go test ./internal/actioncmd -run TestDigestAndFullResyncWithinAnHourlyQuota -v
func TestDigestAndFullResyncWithinAnHourlyQuota(t *testing.T) {
	t.Parallel()
	for _, n := range callCountSizes(t) {
		digest := measure(t, n, nothingChanged, "digest")
		full := measure(t, n, nothingChanged, "full-resync")
		t.Logf("%d issues: digest %d calls, full-resync %d calls", n, digest, full)
		if digest > 10 {
			t.Errorf("digest at %d issues: %d calls, want at most 10 whatever the size", n, digest)
		}
		limit := n/10 + 10 // listings of 100 and the branch
		if n <= 20 {
			limit = 2*n + 10 // a few issues: read one by one (sync.fullListAbove)
		}
		if full > limit {
			t.Errorf("full-resync at %d issues: %d calls, want at most %d", n, full, limit)
		}
	}
}

// TestActionRerunPostsNoSecondEyes: a re-run of the ingest job (GitHub's
// "Re-run jobs": the same event, GITHUB_RUN_ATTEMPT 2) applies nothing
// twice, and posts no 👀 again: it reads the comment's reactions instead,
// where the first attempt's are (issue 38: the re-run posted 👀 again).
func TestActionRerunPostsNoSecondEyes(t *testing.T) {
	t.Parallel()
	fake, r := issueRunner(t, 5, "ingest", "issue_comment")
	r.writeLedger(sampleLedger(5, time.Now()))
	c := fake.AddComment(5, "alice", "MEMBER", "/clarify answer CLR-5-001 Sessions.")
	r.event(commentEvent("created", c))
	if res := r.run(); res.code != 0 || res.outputs["commands-applied"] != "1" {
		t.Fatalf("first attempt: exit %d outputs %v\n%s", res.code, res.outputs, res.stdout)
	}
	r.env["GITHUB_RUN_ATTEMPT"] = "2"
	fake.ResetCounts()
	if res := r.run(); res.code != 0 || res.outputs["commands-applied"] != "0" {
		t.Fatalf("re-run: exit %d outputs %v\n%s", res.code, res.outputs, res.stdout)
	}
	if n := fake.Calls()["POST /repos/{owner}/{repo}/issues/comments/{id}/reactions"]; n != 0 {
		t.Fatalf("the re-run posted %d reactions (%v); reactions now %q", n, fake.Calls(), fake.ReactionsBy(c.ID, githubfake.BotLogin))
	}
	if got := fake.ReactionsBy(c.ID, githubfake.BotLogin); got != "eyes,+1" {
		t.Fatalf("reactions %q, want eyes,+1", got)
	}
}
