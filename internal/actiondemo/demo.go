// Package actiondemo is the newcomer's tour of GitHub Mode: sample ledgers
// built through the core router, synced to an in-process fake GitHub, a
// person's /clarify comment ingested, everything printed. It is its own
// program (cmd/agentx-action-demo) so the fake, which is test code, is not
// linked into agentx-action.
package actiondemo

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/actioncmd"
	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/router"
	"github.com/agentx-dev/agentx/internal/core/workspace"
	"github.com/agentx-dev/agentx/internal/githubfake"
	"github.com/agentx-dev/agentx/internal/sync"
)

// Main runs the demo as a program and returns its exit code.
func Main(args []string) int {
	if len(args) > 0 {
		fmt.Fprintf(os.Stderr, "error: usage: demo takes no arguments (got %q)\n", args[0])
		return 2
	}
	if err := Run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		return 1
	}
	return 0
}

// Run builds sample ledgers through the core router in a temporary
// workspace, syncs them to an in-process fake GitHub, prints the issues as
// people would see them, then has a person settle an escalation with a
// /clarify comment and prints the result. Nothing leaves the machine.
func Run(ctx context.Context, w io.Writer) error {
	dir, err := os.MkdirTemp("", "agentx-action-demo-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }() // a temporary directory: best effort
	ws := workspace.Workspace{Root: dir}
	for name, data := range config.DefaultFiles() {
		p := filepath.Join(ws.AgentxDir(), filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := atomicfile.Write(p, data, atomicfile.Options{NoSync: true}); err != nil {
			return err
		}
	}
	cfg, err := config.Load(ws.ConfigFile(), ws.WorkflowsDir())
	if err != nil {
		return err
	}
	clk := clock.NewFake(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	rt := router.New(router.Options{WS: ws, NoSync: true, Config: cfg, Clock: clk})

	fmt.Fprintln(w, "== agents talk (Local Mode, through the core router)")
	step := func(format string, args ...any) { fmt.Fprintf(w, "   "+format+"\n", args...) }
	req, err := rt.Request(ctx, router.RequestInput{Issue: 42, From: "engineer", To: "architect", Topic: "session storage",
		Question: "Sessions in Redis or signed cookies? @alice said cookies last week.", Blocking: true})
	if err != nil {
		return err
	}
	step("engineer asks architect %s (blocking)", req.Record.ID)
	clk.Advance(5 * time.Minute)
	if _, err := rt.Answer(ctx, req.Record.ID, "", "Redis: we need server-side revocation."); err != nil {
		return err
	}
	step("architect answers %s", req.Record.ID)
	req2, err := rt.Request(ctx, router.RequestInput{Issue: 42, From: "engineer", To: "architect", Topic: "token lifetime",
		Question: "How long should a session live?", Blocking: true})
	if err != nil {
		return err
	}
	step("engineer asks architect %s (blocking, waiting)", req2.Record.ID)
	req3, err := rt.Request(ctx, router.RequestInput{Issue: 7, From: "engineer", To: "architect", Topic: "API version",
		Question: "v1 or v2 of the payments API?", Blocking: true})
	if err != nil {
		return err
	}
	clk.Advance(time.Hour)
	if _, err := rt.Escalate(ctx, req3.Record.ID, "", "Both are in production; a product decision."); err != nil {
		return err
	}
	step("%s escalated to a person", req3.Record.ID)

	fake := githubfake.New()
	defer fake.Close()
	fake.AddIssue(42)
	fake.AddIssue(7)
	gh, err := sync.NewClient(sync.ClientConfig{APIURL: fake.URL(), Token: "demo", Repository: "acme/shop", WriteInterval: -1})
	if err != nil {
		return err
	}
	labels := sync.Labels{Blocked: "clarification-blocked", Escalated: "clarification-escalated"}
	syncer := &sync.Syncer{GH: gh, Labels: labels, Bot: githubfake.BotLogin, Clean: actioncmd.Clean}
	// The agents' ledgers reach the state branch (agentx-hook sync does it
	// with git; here the checkout seeds it, as a first action run would).
	sb := sync.NewStateBranch(gh, "")
	snap, err := sb.Read(ctx)
	if err != nil {
		return err
	}
	if snap, _, err = sync.Seed(ctx, sb, snap, ws.Root); err != nil {
		return err
	}
	fake.ResetCounts()
	if err := syncer.RunBranch(ctx, sb, snap); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n== agentx-action sync (command: sync) -> %d comments, %d labels added, %d API calls\n",
		syncer.Counts.CommentsCreated, syncer.Counts.LabelsAdded, fake.Reads()+fake.Writes())
	for _, n := range []int{7, 42} {
		printIssue(w, fake, n)
	}

	fake.ResetCounts()
	again := &sync.Syncer{GH: gh, Labels: labels, Bot: githubfake.BotLogin, Clean: actioncmd.Clean}
	if err := again.RunBranch(ctx, sync.NewStateBranch(gh, ""), nil); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n== sync again, nothing changed -> %d API calls (state branch ref, tree, sync state)\n", fake.Reads()+fake.Writes())

	// A person settles the escalation on the issue.
	body := fmt.Sprintf("/clarify resolve %s Use v2; v1 is frozen.", req3.Record.ID)
	c := fake.AddComment(7, "alice", "OWNER", body)
	var ev sync.Event
	ev.Action, ev.Issue.Number = "created", 7
	ev.Comment.ID, ev.Comment.Body, ev.Comment.AuthorAssociation = c.ID, body, "OWNER"
	ev.Comment.User.Login, ev.Comment.User.Type = "alice", "User"
	ing := &sync.Ingester{GH: gh, Config: cfg, State: sync.NewStateBranch(gh, ""), Bot: githubfake.BotLogin, Clock: clk, Clean: actioncmd.Clean,
		Syncer: &sync.Syncer{GH: gh, Labels: labels, Bot: githubfake.BotLogin, Clean: actioncmd.Clean}}
	fake.ResetCounts()
	if _, err := ing.Run(ctx, ev); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n== alice (OWNER) comments %q; agentx-action ingest -> %d applied, %d API calls\n",
		body, ing.Counts.CommandsApplied, fake.Reads()+fake.Writes())
	printIssue(w, fake, 7)
	committed, _ := fake.BranchFile(sync.DefaultStateBranch, sync.BranchLedgerPath(7))
	l, err := ledger.Parse("issue-7.json", committed, 7)
	if err != nil {
		return err
	}
	rec := l.Find(req3.Record.ID)
	fmt.Fprintf(w, "   ledger on the state branch: %s is %s by %s\n", rec.ID, rec.Status, rec.LastOf(ledger.Resolution).From)
	// Without this a newcomer looks for a bot comment repeating the
	// resolution, and wonders where the escalated label went.
	fmt.Fprintf(w, "   alice's comment is the resolution itself (its entry keeps the comment id), so no bot comment repeats it;\n")
	fmt.Fprintf(w, "   nothing waits for a person on #7 any more, so clarification-escalated is gone.\n")
	fmt.Fprintf(w, "\nDemo complete. Wire it into a repository: https://github.com/agentx-dev/agentx/blob/main/docs/github-mode.md (workflow: examples/workflows/agentx.yml in the agentx repository).\n")
	return nil
}

func printIssue(w io.Writer, fake *githubfake.Server, n int) {
	labels := fake.IssueLabels(n)
	shown := "(none)"
	if len(labels) > 0 {
		shown = strings.Join(labels, ", ")
	}
	fmt.Fprintf(w, "\n-- issue #%d   labels: %s\n", n, shown)
	for _, c := range fake.Comments(n) {
		body := c.Body
		hidden := ""
		if i := strings.LastIndex(body, "<!-- agentx:"); i >= 0 {
			hidden = strings.TrimSpace(body[i:])
			body = strings.TrimSpace(body[:i])
		}
		fmt.Fprintf(w, "\n   [comment %d by %s]", c.ID, c.User)
		if len(c.Reactions) > 0 {
			fmt.Fprintf(w, "  reactions: %s", strings.Join(c.Reactions, " "))
		}
		fmt.Fprintln(w)
		for _, line := range strings.Split(body, "\n") {
			fmt.Fprintf(w, "   | %s\n", line)
		}
		if hidden != "" {
			fmt.Fprintf(w, "   | (hidden) %s\n", hidden)
		}
	}
}
