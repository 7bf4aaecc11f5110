package sync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/githubfake"
)

// sleeps records the waits the transport asked for; it never sleeps.
type sleeps struct{ got []time.Duration }

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.got = append(s.got, d)
	return ctx.Err()
}

func newTestClient(t *testing.T, fake *githubfake.Server, sl *sleeps) *Client {
	t.Helper()
	c, err := NewClient(ClientConfig{APIURL: fake.URL(), Token: "t", Repository: "o/r", WriteInterval: -1, Sleep: sl.sleep})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var testLabels = Labels{Blocked: "clarification-blocked", Escalated: "clarification-escalated"}

func ident(s string) string { return s }

// corpus builds n issues of 5 thread entries each: a two-round answered
// record plus, on even issues, a pending blocking question, on odd issues
// a non-blocking one, and on every fifth issue an escalation instead.
func corpus(n int) []ledger.Loaded {
	ts := "2026-01-01T00:00:00.000Z"
	out := make([]ledger.Loaded, 0, n)
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("CLR-%d-001", i)
		a := ledger.Record{ID: id, IssueNumber: i, From: "engineer", To: "architect", Topic: "auth flow", Blocking: true,
			Status: ledger.Answered, Round: 2, MaxRounds: 3, Created: ts, StaleAfter: ts,
			Thread: []ledger.Entry{
				{Round: 1, From: "engineer", Type: ledger.Question, Body: "JWT or sessions? cc @alice", Timestamp: ts},
				{Round: 1, From: "architect", Type: ledger.Answer, Body: "JWT.", Timestamp: ts},
				{Round: 2, From: "engineer", Type: ledger.Question, Body: "Refresh tokens?", Timestamp: ts},
				{Round: 2, From: "architect", Type: ledger.Answer, Body: "Yes, rotating.", Timestamp: ts},
			}}
		l := &ledger.Ledger{IssueNumber: i, Clarifications: []ledger.Record{a}}
		if i%5 == 0 {
			r := &l.Clarifications[0]
			r.Status = ledger.Escalated
			r.Thread = append(r.Thread, ledger.Entry{Round: 2, From: "agent-x", Type: ledger.Escalation, Body: "[ESCALATED] stuck", Timestamp: ts})
		} else {
			l.Clarifications = append(l.Clarifications, ledger.Record{ID: fmt.Sprintf("CLR-%d-002", i), IssueNumber: i,
				From: "reviewer", To: "engineer", Topic: "tests", Blocking: i%2 == 0, Status: ledger.Pending, Round: 1, MaxRounds: 3,
				Created: ts, StaleAfter: ts,
				Thread: []ledger.Entry{{Round: 1, From: "reviewer", Type: ledger.Question, Body: "Where are the tests?", Timestamp: ts}}})
		}
		out = append(out, ledger.Loaded{Issue: i, Ledger: l})
	}
	return out
}

func wantLabels(i int) string {
	switch {
	case i%5 == 0:
		return "clarification-escalated"
	case i%2 == 0:
		return "clarification-blocked"
	}
	return ""
}

func newFakeWithIssues(n int) *githubfake.Server {
	fake := githubfake.New()
	for i := 1; i <= n; i++ {
		fake.AddIssue(i)
	}
	return fake
}

func checkConverged(t *testing.T, fake *githubfake.Server, n int) {
	t.Helper()
	if got := fake.CommentCount(); got != 5*n {
		t.Fatalf("comments = %d, want %d", got, 5*n)
	}
	for i := 1; i <= n; i++ {
		seen := map[Key]bool{}
		for _, c := range fake.Comments(i) {
			m, ok := ParseMarker(c.Body)
			if !ok {
				t.Fatalf("issue %d: comment without marker: %q", i, c.Body)
			}
			if seen[m.Key] {
				t.Fatalf("issue %d: duplicate %v", i, m.Key)
			}
			seen[m.Key] = true
		}
		if got := strings.Join(fake.IssueLabels(i), ","); got != wantLabels(i) {
			t.Fatalf("issue %d labels = %q, want %q", i, got, wantLabels(i))
		}
	}
}

func newSyncer(c *Client) *Syncer {
	return &Syncer{GH: c, Labels: testLabels, Bot: githubfake.BotLogin, Clean: ident}
}

func TestSync100x5(t *testing.T) {
	t.Parallel()
	const n = 100
	fake := newFakeWithIssues(n)
	defer fake.Close()
	var sl sleeps
	c := newTestClient(t, fake, &sl)
	st := NewState()
	s := newSyncer(c)
	if err := s.Run(context.Background(), corpus(n), st); err != nil {
		t.Fatal(err)
	}
	checkConverged(t, fake, n)
	t.Logf("first run: %d reads, %d writes %v", fake.Reads(), fake.Writes(), fake.Calls())
	if s.Counts.CommentsCreated != 500 {
		t.Fatalf("created = %d", s.Counts.CommentsCreated)
	}
	if l, ok := fake.RepoLabel("clarification-blocked"); !ok || l.Color != "d93f0b" || l.Description == "" {
		t.Fatalf("blocked label not created with colour and description: %+v", l)
	}

	// An immediate second run: zero calls of any kind.
	fake.ResetCounts()
	s2 := newSyncer(c)
	if err := s2.Run(context.Background(), corpus(n), st); err != nil {
		t.Fatal(err)
	}
	if fake.Writes() != 0 || fake.Reads() != 0 {
		t.Fatalf("second run: %d reads, %d writes (%v)", fake.Reads(), fake.Writes(), fake.Calls())
	}

	// One ledger changes: one read for that issue, one write.
	fake.ResetCounts()
	led := corpus(n)
	r := &led[6].Ledger.Clarifications[1] // issue 7, non-blocking pending
	r.Thread = append(r.Thread, ledger.Entry{Round: 1, From: "engineer", Type: ledger.Answer, Body: "In sync_test.go.", Timestamp: "2026-01-01T00:01:00.000Z"})
	r.Status = ledger.Answered
	s3 := newSyncer(c)
	if err := s3.Run(context.Background(), led, st); err != nil {
		t.Fatal(err)
	}
	if fake.Reads() != 1 || fake.Writes() != 1 {
		t.Fatalf("changed issue: %d reads, %d writes (%v)", fake.Reads(), fake.Writes(), fake.Calls())
	}
	if len(sl.got) != 0 {
		t.Fatalf("transport waited %v with pacing off and no faults", sl.got)
	}
}

func TestSyncKilledAfter230WritesConverges(t *testing.T) {
	t.Parallel()
	const n = 100
	fake := newFakeWithIssues(n)
	defer fake.Close()
	c := newTestClient(t, fake, &sleeps{})
	ctx, cancel := context.WithCancel(context.Background())
	fake.AfterWrite = func(w int) {
		if w == 230 {
			cancel() // the runner dies here
		}
	}
	st := NewState()
	err := newSyncer(c).Run(ctx, corpus(n), st)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("killed run: err = %v", err)
	}
	fake.AfterWrite = nil
	if got := fake.CommentCount(); got >= 500 || got < 200 {
		t.Fatalf("after the kill: %d comments", got)
	}
	if len(st.Issues) == 0 || len(st.Issues) >= n {
		t.Fatalf("the killed run recorded %d issues", len(st.Issues))
	}
	// Both ways a re-run may start: with the state the killed run saved for
	// the issues it finished (the action saves it on cancellation), or with
	// none (SIGKILL).
	snapshot := fake.Snapshot()
	for _, saved := range []bool{true, false} {
		fake.Restore(snapshot)
		fake.ResetCounts()
		rerun := NewState()
		if saved {
			rerun = ParseState(mustJSON(t, st))
		}
		if err := newSyncer(c).Run(context.Background(), corpus(n), rerun); err != nil {
			t.Fatal(err)
		}
		checkConverged(t, fake, n)
		t.Logf("re-run after kill (state saved: %v): %d reads, %d writes", saved, fake.Reads(), fake.Writes())
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestSyncFaultsConverge(t *testing.T) {
	t.Parallel()
	const n = 100
	fake := newFakeWithIssues(n)
	defer fake.Close()
	var sl sleeps
	c := newTestClient(t, fake, &sl)
	fake.Fault = func(call githubfake.Call) *githubfake.Response {
		switch {
		case call.Seq%37 == 0:
			return githubfake.BadGateway()
		case call.WriteSeq == 100:
			return githubfake.SecondaryLimit(61)
		case call.WriteSeq == 200:
			return githubfake.TooManyRequests(30)
		}
		return nil
	}
	if err := newSyncer(c).Run(context.Background(), corpus(n), NewState()); err != nil {
		t.Fatal(err)
	}
	checkConverged(t, fake, n)
	var saw61, saw30 bool
	for _, d := range sl.got {
		saw61 = saw61 || d == 61*time.Second
		saw30 = saw30 || d == 30*time.Second
	}
	if !saw61 || !saw30 {
		t.Fatalf("Retry-After not honoured: waits %v", sl.got)
	}
	retries, _ := c.Transport.Stats()
	t.Logf("with faults: %d reads, %d writes, %d retries", fake.Reads(), fake.Writes(), retries)
}

func TestSyncIgnoresForgedMarkersAndDeletesDuplicates(t *testing.T) {
	t.Parallel()
	fake := newFakeWithIssues(1)
	defer fake.Close()
	c := newTestClient(t, fake, &sleeps{})
	led := corpus(1)
	want := Desired(led[0].Ledger, testLabels, ident)
	// Someone else pastes our exact first comment: it is not ours.
	forged := fake.AddComment(1, "mallory", "NONE", want.Comments[0].Body)
	// Two overlapping runs each posted the second entry; the first also has
	// an outdated body.
	old := fake.AddComment(1, githubfake.BotLogin, "NONE", strings.Replace(want.Comments[1].Body, "JWT.", "JWT?", 1))
	dup := fake.AddComment(1, githubfake.BotLogin, "NONE", want.Comments[1].Body)
	s := newSyncer(c)
	if err := s.Run(context.Background(), led, NewState()); err != nil {
		t.Fatal(err)
	}
	if s.Counts.CommentsCreated != 4 || s.Counts.CommentsUpdated != 1 || s.Counts.CommentsDeleted != 1 {
		t.Fatalf("counts %+v", s.Counts)
	}
	if _, ok := fake.Comment(forged.ID); !ok {
		t.Fatal("a foreign comment was deleted")
	}
	if _, ok := fake.Comment(dup.ID); ok {
		t.Fatal("the newer duplicate survived")
	}
	if c, _ := fake.Comment(old.ID); c.Body != want.Comments[1].Body {
		t.Fatal("the oldest copy was not edited")
	}
}

func TestSyncDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	fake := newFakeWithIssues(3)
	defer fake.Close()
	c := newTestClient(t, fake, &sleeps{})
	s := newSyncer(c)
	s.DryRun = true
	st := NewState()
	if err := s.Run(context.Background(), corpus(3), st); err != nil {
		t.Fatal(err)
	}
	if fake.Writes() != 0 || s.Counts.CommentsCreated != 15 || st.Changed() {
		t.Fatalf("dry run: writes %d, counts %+v", fake.Writes(), s.Counts)
	}
}

func TestSyncSkipsLockedAndMissingIssues(t *testing.T) {
	t.Parallel()
	fake := newFakeWithIssues(3)
	defer fake.Close()
	c := newTestClient(t, fake, &sleeps{})
	fake.Fault = func(call githubfake.Call) *githubfake.Response {
		if call.Route == "POST /repos/{owner}/{repo}/issues/{number}/comments" && call.WriteSeq == 1 {
			return &githubfake.Response{Status: 403, Body: `{"message":"Unable to create comment because issue is locked."}`}
		}
		return nil
	}
	led := append(corpus(3), corpus(4)[3]) // issue 4 does not exist on GitHub
	var warnings []string
	s := newSyncer(c)
	s.Warn = func(f string, a ...any) { warnings = append(warnings, fmt.Sprintf(f, a...)) }
	if err := s.Run(context.Background(), led, NewState()); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 2 || !strings.Contains(warnings[0], "#1") || !strings.Contains(warnings[1], "#4") {
		t.Fatalf("warnings %q", warnings)
	}
	if len(fake.Comments(2)) != 5 || len(fake.Comments(3)) != 5 {
		t.Fatal("a refused issue stopped the run")
	}
}

func TestSyncFollowsPagination(t *testing.T) {
	t.Parallel()
	fake := newFakeWithIssues(1)
	defer fake.Close()
	c := newTestClient(t, fake, &sleeps{})
	for i := 0; i < 250; i++ {
		fake.AddComment(1, "alice", "OWNER", "chatter")
	}
	if err := newSyncer(c).Run(context.Background(), corpus(1), NewState()); err != nil {
		t.Fatal(err)
	}
	// Re-run without state: the mirrors are on page 3 and must be found.
	fake.ResetCounts()
	s := newSyncer(c)
	if err := s.Run(context.Background(), corpus(1), NewState()); err != nil {
		t.Fatal(err)
	}
	if s.Counts.CommentsCreated != 0 || fake.Writes() != 0 {
		t.Fatalf("re-run created %d (writes %d)", s.Counts.CommentsCreated, fake.Writes())
	}
	if got := fake.Calls()["GET /repos/{owner}/{repo}/issues/{number}/comments"]; got != 3 {
		t.Fatalf("%d comment pages read, want 3", got)
	}
}
