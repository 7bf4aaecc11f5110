package actioncmd

import (
	"bytes"
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/githubfake"
)

// TestActionRetriedCreateLeavesNoDuplicate: GitHub creates the comment
// and answers 502 (the client retries POSTs on 500/502/503/504). The
// mirror and a rejected command's reply must each be on the issue once:
// before sending the create again, the run reads the issue's comments and
// finds the first attempt's.
func TestActionRetriedCreateLeavesNoDuplicate(t *testing.T) {
	t.Parallel()
	fake, r := syncRunner(t, 8)
	lostOnce := func(path string) {
		var lost atomic.Bool // read and set by the fake's handlers
		fake.SetFaultAfter(func(c githubfake.Call) *githubfake.Response {
			if c.Method == "POST" && c.Path == path && lost.CompareAndSwap(false, true) {
				return githubfake.BadGateway()
			}
			return nil
		})
	}
	lostOnce("/repos/o/r/issues/8/comments")
	if res := r.run(); res.code != 0 || res.outputs["comments-created"] != "1" || len(fake.Comments(8)) != 1 {
		t.Fatalf("sync: exit %d outputs %v, %d comments on #8\n%s", res.code, res.outputs, len(fake.Comments(8)), res.stdout)
	}
	// A member's command naming a record that does not exist: rejected,
	// with one reply, although its create was answered 502.
	lostOnce("/repos/o/r/issues/8/comments")
	c := fake.AddComment(8, "alice", "MEMBER", "/clarify answer CLR-8-009 Sessions.")
	r.env["INPUT_COMMAND"], r.env["GITHUB_EVENT_NAME"] = "ingest", "issue_comment"
	r.event(issueCommentEvent(8, c))
	if res := r.run(); res.code != 0 || res.outputs["commands-rejected"] != "1" {
		t.Fatalf("ingest: exit %d outputs %v\n%s", res.code, res.outputs, res.stdout)
	}
	replies := 0
	for _, cm := range fake.Comments(8) {
		if strings.Contains(cm.Body, "Not applied") {
			replies++
		}
	}
	if replies != 1 {
		t.Fatalf("%d replies to the rejected command, want 1: %+v", replies, fake.Comments(8))
	}
}

// TestActionMonitorRemovesADuplicateReply: a reply the bot posted twice
// (an older release's retry) is removed by the next monitor, whose sweep
// lists the comments: the oldest stays.
func TestActionMonitorRemovesADuplicateReply(t *testing.T) {
	t.Parallel()
	fake, r := syncRunner(t, 8)
	if res := r.run(); res.code != 0 {
		t.Fatalf("sync: exit %d\n%s", res.code, res.stdout)
	}
	c := fake.AddComment(8, "alice", "MEMBER", "/clarify answer CLR-8-009 Sessions.")
	r.env["INPUT_COMMAND"], r.env["GITHUB_EVENT_NAME"] = "ingest", "issue_comment"
	r.event(issueCommentEvent(8, c))
	if res := r.run(); res.code != 0 || res.outputs["commands-rejected"] != "1" {
		t.Fatalf("ingest: exit %d outputs %v\n%s", res.code, res.outputs, res.stdout)
	}
	var reply githubfake.Comment
	for _, cm := range fake.Comments(8) {
		if strings.Contains(cm.Body, "Not applied") {
			reply = cm
		}
	}
	dup := fake.AddComment(8, githubfake.BotLogin, "NONE", reply.Body)
	r.env["INPUT_COMMAND"], r.env["GITHUB_EVENT_NAME"] = "monitor", "schedule"
	r.env["INPUT_RECONCILE-PER-RUN"] = "0"
	r.event(map[string]any{})
	// In process, ten minutes on: the sweep leaves the last five minutes'
	// comments to their own runs.
	var out bytes.Buffer
	a := &App{Stdout: &out, Stderr: &out, Getenv: func(k string) string { return r.env[k] }, Cwd: r.workspace,
		Clock: clock.NewFake(fake.Now().Add(10 * time.Minute))}
	if code := a.Run(context.Background(), nil); code != 0 {
		t.Fatalf("monitor: exit %d\n%s", code, out.String())
	}
	kept := false
	for _, cm := range fake.Comments(8) {
		if cm.ID == dup.ID {
			t.Fatalf("the duplicate reply %d is still there: %+v", dup.ID, fake.Comments(8))
		}
		kept = kept || cm.ID == reply.ID
	}
	if !kept {
		t.Fatalf("the first reply %d was removed: %+v", reply.ID, fake.Comments(8))
	}
}
