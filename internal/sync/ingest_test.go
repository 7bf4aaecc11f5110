package sync

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/githubfake"
	"github.com/agentx-dev/agentx/internal/hookcmd"
)

const ledgerPath42 = "state/clarifications/issue-42.json"

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// ledger42 has a pending blocking question (001), an escalated record (002)
// and a resolved one (003).
func ledger42() *ledger.Ledger {
	ts := clock.Format(t0)
	stale := clock.Format(t0.Add(30 * time.Minute))
	q := func(body string) []ledger.Entry {
		return []ledger.Entry{{Round: 1, From: "engineer", Type: ledger.Question, Body: body, Timestamp: ts}}
	}
	resolvedAt := ts
	return &ledger.Ledger{IssueNumber: 42, Clarifications: []ledger.Record{
		{ID: "CLR-42-001", IssueNumber: 42, From: "engineer", To: "architect", Topic: "auth", Blocking: true, Status: ledger.Pending,
			Round: 1, MaxRounds: 3, Created: ts, StaleAfter: stale, Thread: q("JWT or sessions?")},
		{ID: "CLR-42-002", IssueNumber: 42, From: "engineer", To: "pm", Topic: "scope", Blocking: true, Status: ledger.Escalated,
			Round: 1, MaxRounds: 3, Created: ts, StaleAfter: stale, Thread: append(q("MVP scope?"),
				ledger.Entry{Round: 1, From: "agent-x", Type: ledger.Escalation, Body: "[ESCALATED] no answer", Timestamp: ts})},
		{ID: "CLR-42-003", IssueNumber: 42, From: "engineer", To: "pm", Topic: "done", Status: ledger.Resolved,
			Round: 1, MaxRounds: 3, Created: ts, StaleAfter: stale, ResolvedAt: &resolvedAt, Thread: q("Done?")},
	}}
}

func encode(t *testing.T, l *ledger.Ledger) []byte {
	t.Helper()
	data, err := jsonfile.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func newIngester(c *Client) *Ingester {
	return &Ingester{GH: c, State: NewStateBranch(c, ""), Bot: githubfake.BotLogin, Clock: clock.NewFake(t0.Add(time.Minute)), Clean: ident,
		Syncer: newSyncer(c)}
}

func event(fake *githubfake.Server, user, assoc, body string) Event {
	c := fake.AddComment(42, user, assoc, body)
	var ev Event
	ev.Action = "created"
	ev.Issue.Number = 42
	ev.Comment.ID = c.ID
	ev.Comment.Body = body
	ev.Comment.AuthorAssociation = assoc
	ev.Comment.User.Login = user
	ev.Comment.User.Type = "User"
	return ev
}

func TestIngestTwoConcurrentCommandsBothLand(t *testing.T) {
	t.Parallel()
	fake := newFakeWithIssues(42)
	defer fake.Close()
	fake.PutBranchFile(DefaultStateBranch, ledgerPath42, encode(t, ledger42()))
	// Both runs read the same tip before either moves it, so one of them
	// must hit the conflict and re-apply on the fresh ledger. (The state is
	// written through the Git Data API: the ref updates are held, not
	// contents PUTs, which no run makes.)
	fake.HoldRefUpdates(2, 20*time.Second)
	evA := event(fake, "alice", "OWNER", "/clarify answer CLR-42-001 Sessions, server side.")
	evB := event(fake, "bob", "MEMBER", "/clarify resolve CLR-42-002 Ship the MVP without SSO.")
	var wg gosync.WaitGroup
	outs := make([]Outcome, 2)
	errs := make([]error, 2)
	for i, ev := range []Event{evA, evB} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Two runs: two processes with their own clients and state.
			outs[i], errs[i] = newIngester(newTestClient(t, fake, &sleeps{})).Run(context.Background(), ev)
		}()
	}
	wg.Wait()
	for i := range errs {
		if errs[i] != nil || !outs[i].Applied {
			t.Fatalf("run %d: %+v %v", i, outs[i], errs[i])
		}
	}
	t.Logf("two racing ingests: %d reads, %d writes %v", fake.Reads(), fake.Writes(), fake.Calls())
	if outs[0].Attempts+outs[1].Attempts != 3 {
		t.Fatalf("attempts %d + %d, want one conflict", outs[0].Attempts, outs[1].Attempts)
	}
	data, _ := fake.BranchFile(DefaultStateBranch, ledgerPath42)
	l, err := ledger.Parse("remote", data, 42)
	if err != nil {
		t.Fatal(err)
	}
	if r := l.Find("CLR-42-001"); r.Status != ledger.Answered || r.Thread[1].From != "alice" {
		t.Fatalf("answer lost: %+v", r)
	}
	if r := l.Find("CLR-42-002"); r.Status != ledger.Resolved || r.LastOf(ledger.Resolution).From != "bob" {
		t.Fatalf("resolution lost: %+v", r)
	}
	// Both commands acknowledged; labels follow the fresh ledger.
	for _, ev := range []Event{evA, evB} {
		if got := fake.ReactionsBy(ev.Comment.ID, githubfake.BotLogin); got != "eyes,+1" {
			t.Fatalf("comment %d reactions %v", ev.Comment.ID, got)
		}
	}
	if got := fake.IssueLabels(42); len(got) != 0 {
		t.Fatalf("labels after both commands: %v", got)
	}
	// The people's comments are the entries: nothing mirrored back.
	for _, c := range fake.Comments(42) {
		if m, ok := ParseMarker(c.Body); ok && (m.Type == ledger.Answer || m.Type == ledger.Resolution) {
			t.Fatalf("mirrored a person's comment back: %q", c.Body)
		}
	}
}

func TestIngestRejections(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 2001)
	tests := []struct{ name, user, assoc, body, reason string }{
		{"not allowed (replies on)", "eve", "NONE", "/clarify answer CLR-42-001 yes", "not allowed"},
		{"unknown id", "alice", "OWNER", "/clarify answer CLR-42-009 yes", "not found"},
		{"already resolved", "alice", "OWNER", "/clarify resolve CLR-42-003 again", "status is resolved"},
		{"too long", "alice", "OWNER", "/clarify answer CLR-42-001 " + long, "limit is 2000"},
		{"other issue", "alice", "OWNER", "/clarify answer CLR-7-001 yes", "belongs to issue #7"},
		{"malformed", "alice", "OWNER", "/clarify answer", "missing clarification id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakeWithIssues(42)
			defer fake.Close()
			before := encode(t, ledger42())
			fake.PutBranchFile(DefaultStateBranch, ledgerPath42, before)
			ev := event(fake, tt.user, tt.assoc, tt.body)
			in := newIngester(newTestClient(t, fake, &sleeps{}))
			in.ReplyToOutsiders = true
			out, err := in.Run(context.Background(), ev)
			if err != nil || !strings.Contains(out.Rejected, tt.reason) {
				t.Fatalf("outcome %+v, err %v; want rejection with %q", out, err, tt.reason)
			}
			if after, _ := fake.BranchFile(DefaultStateBranch, ledgerPath42); !bytes.Equal(after, before) {
				t.Fatal("a rejected command wrote the ledger")
			}
			cs := fake.Comments(42)
			reply := cs[len(cs)-1]
			if reply.User != githubfake.BotLogin || !strings.Contains(reply.Body, "Not applied") || strings.Contains(reply.Body, "@") {
				t.Fatalf("reply %q", reply.Body)
			}
			if got := fake.ReactionsBy(ev.Comment.ID, githubfake.BotLogin); got != "eyes,confused" {
				t.Fatalf("reactions %v", got)
			}
			if in.Counts.CommandsRejected != 1 || in.Counts.CommandsApplied != 0 {
				t.Fatalf("counts %+v", in.Counts)
			}
			// The reply itself is never taken for a command.
			var replyEv Event
			replyEv.Action, replyEv.Issue.Number = "created", 42
			replyEv.Comment.ID, replyEv.Comment.Body, replyEv.Comment.User.Login = reply.ID, reply.Body, reply.User
			if o, _ := in.Run(context.Background(), replyEv); o.Skipped == "" {
				t.Fatalf("ingest answered its own reply: %+v", o)
			}
		})
	}
}

func TestIngestRedeliveredEventAppliesOnce(t *testing.T) {
	t.Parallel()
	fake := newFakeWithIssues(42)
	defer fake.Close()
	fake.PutBranchFile(DefaultStateBranch, ledgerPath42, encode(t, ledger42()))
	ev := event(fake, "alice", "COLLABORATOR", "/clarify answer CLR-42-001 Sessions.")
	c := newTestClient(t, fake, &sleeps{})
	for i := 0; i < 2; i++ {
		fake.ResetCounts()
		in := newIngester(c)
		if out, err := in.Run(context.Background(), ev); err != nil || out.Applied != (i == 0) || out.AlreadyApplied != (i == 1) ||
			in.Counts.CommandsApplied != 1-i {
			t.Fatalf("run %d: %+v %v counts %+v", i, out, err, in.Counts)
		}
		calls := fake.Calls()
		t.Logf("ingest run %d: %d reads, %d writes %v", i+1, fake.Reads(), fake.Writes(), calls)
		// The state: 1 ref and 1 tree read, one blob, one commit (none
		// for the redelivery), and the ref read after the mirror.
		commits := 1 - i
		if calls["GET /repos/{owner}/{repo}/git/ref/{ref...}"] != 2 || calls["GET /repos/{owner}/{repo}/git/trees/{sha}"] != 1 ||
			calls["GET /repos/{owner}/{repo}/git/blobs/{sha}"] != 1 || calls["POST /repos/{owner}/{repo}/git/commits"] != commits ||
			calls["PATCH /repos/{owner}/{repo}/git/refs/{ref...}"] != commits {
			t.Fatalf("run %d: state branch calls %v", i+1, calls)
		}
	}
	data, _ := fake.BranchFile(DefaultStateBranch, ledgerPath42)
	l, _ := ledger.Parse("remote", data, 42)
	if n := len(l.Find("CLR-42-001").Thread); n != 2 {
		t.Fatalf("thread has %d entries", n)
	}
}

// TestIngestParityWithCLI: the same operation gives the same ledger typed
// in a terminal or on the issue; only the provenance key differs.
func TestIngestParityWithCLI(t *testing.T) {
	t.Parallel()
	for _, op := range []struct{ cli, slash []string }{
		{[]string{"clarify", "resolve", "CLR-42-002", "--body", "Ship it.", "--as", "human:alice"}, []string{"/clarify resolve CLR-42-002 Ship it."}},
		{[]string{"clarify", "answer", "CLR-42-001", "--body", "Sessions.", "--as", "human:alice"}, []string{"/clarify answer CLR-42-001 Sessions."}},
		{[]string{"clarify", "abandon", "CLR-42-001", "--body", "Moot.", "--as", "human:alice"}, []string{"/clarify abandon CLR-42-001 Moot."}},
		{[]string{"clarify", "escalate", "CLR-42-001", "--summary", "Needs a call.", "--as", "human:alice"}, []string{"/clarify escalate CLR-42-001 Needs a call."}},
	} {
		t.Run(op.cli[1], func(t *testing.T) {
			now := t0.Add(time.Minute)
			// Terminal.
			root := t.TempDir()
			file := filepath.Join(root, LedgerPath("", 42))
			os.MkdirAll(filepath.Dir(file), 0o755)
			os.WriteFile(file, encode(t, ledger42()), 0o644)
			app := &hookcmd.App{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Cwd: root,
				Getenv: func(string) string { return "" }, Clock: clock.NewFake(now)}
			if code := app.Run(context.Background(), append([]string{"--root", root}, op.cli...)); code != 0 {
				t.Fatalf("cli exit %d", code)
			}
			cliData, _ := os.ReadFile(file)
			// Issue comment.
			fake := newFakeWithIssues(42)
			defer fake.Close()
			fake.PutBranchFile(DefaultStateBranch, ledgerPath42, encode(t, ledger42()))
			in := newIngester(newTestClient(t, fake, &sleeps{}))
			in.Clock = clock.NewFake(now)
			if out, err := in.Run(context.Background(), event(fake, "alice", "OWNER", op.slash[0])); err != nil || !out.Applied {
				t.Fatalf("ingest: %+v %v", out, err)
			}
			ghData, _ := fake.BranchFile(DefaultStateBranch, ledgerPath42)
			if a, b := withoutKey(t, cliData), withoutKey(t, ghData); a != b {
				t.Fatalf("ledgers differ:\ncli:\n%s\ngithub:\n%s", a, b)
			}
		})
	}
}

// withoutKey drops the provenance keys (comment id, edit time, command).
func withoutKey(t *testing.T, data []byte) string {
	t.Helper()
	l, err := ledger.Parse("x", data, 42)
	if err != nil {
		t.Fatal(err)
	}
	for i := range l.Clarifications {
		for j := range l.Clarifications[i].Thread {
			e := &l.Clarifications[i].Thread[j]
			var keep []jsonfile.Field
			for _, f := range e.Extra {
				if f.Key != CommentKey && f.Key != CommentUpdatedKey && f.Key != CommandKey {
					keep = append(keep, f)
				}
			}
			e.Extra = keep
		}
	}
	out, _ := json.MarshalIndent(l, "", " ")
	return string(out)
}

func TestIngestAskPastTheRoundLimitEscalates(t *testing.T) {
	t.Parallel()
	fake := newFakeWithIssues(42)
	defer fake.Close()
	l := ledger42()
	r := &l.Clarifications[0]
	r.Status, r.Round, r.MaxRounds = ledger.Answered, 3, 3
	r.Thread = append(r.Thread, ledger.Entry{Round: 3, From: "architect", Type: ledger.Answer, Body: "Sessions.", Timestamp: r.Created})
	fake.PutBranchFile(DefaultStateBranch, ledgerPath42, encode(t, l))
	in := newIngester(newTestClient(t, fake, &sleeps{}))
	out, err := in.Run(context.Background(), event(fake, "alice", "OWNER", "/clarify ask CLR-42-001 And cookies?"))
	if err != nil || !out.Applied {
		t.Fatalf("%+v %v", out, err)
	}
	data, _ := fake.BranchFile(DefaultStateBranch, ledgerPath42)
	got, _ := ledger.Parse("remote", data, 42)
	if rec := got.Find("CLR-42-001"); rec.Status != ledger.Escalated {
		t.Fatalf("status %s", rec.Status)
	}
	var sawEscalation bool
	for _, c := range fake.Comments(42) {
		if m, ok := ParseMarker(c.Body); ok && m.ID == "CLR-42-001" && m.Type == ledger.Escalation {
			sawEscalation = true
		}
	}
	if !sawEscalation || strings.Join(fake.IssueLabels(42), ",") != "clarification-escalated" {
		t.Fatalf("escalation not mirrored; labels %v", fake.IssueLabels(42))
	}
}

func TestIngestSkips(t *testing.T) {
	t.Parallel()
	fake := newFakeWithIssues(42)
	defer fake.Close()
	in := newIngester(newTestClient(t, fake, &sleeps{}))
	for _, tt := range []struct {
		name, action, user, body string
	}{
		{"deleted", "deleted", "alice", "/clarify answer CLR-42-001 x"},
		{"no command", "created", "alice", "LGTM"},
		{"our own mirror", "created", githubfake.BotLogin, "To settle it:\n/clarify resolve CLR-42-001 <decision>"},
	} {
		ev := event(fake, tt.user, "OWNER", tt.body)
		ev.Action = tt.action
		if out, err := in.Run(context.Background(), ev); err != nil || out.Skipped == "" {
			t.Fatalf("%s: %+v %v", tt.name, out, err)
		}
	}
	if fake.Writes() != 0 || fake.Reads() != 0 {
		t.Fatalf("skipped comments cost %d reads, %d writes", fake.Reads(), fake.Writes())
	}
}
