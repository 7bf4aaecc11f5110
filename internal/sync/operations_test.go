package sync

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/githubfake"
)

func TestAppliedBefore(t *testing.T) {
	t.Parallel()
	t1, t2 := "2026-03-01T09:00:00Z", "2026-03-01T09:05:00Z"
	answer := Command{Verb: "answer", ID: "CLR-42-001", Text: "Sessions."}
	other := Command{Verb: "answer", ID: "CLR-42-001", Text: "Cookies."}
	entry := func(fields ...jsonfile.Field) *ledger.Ledger {
		l := ledger42()
		r := &l.Clarifications[0]
		r.Thread = append(r.Thread, ledger.Entry{Round: 1, From: "alice", Type: ledger.Answer, Body: "Sessions.", Extra: fields})
		return l
	}
	id := jsonfile.Field{Key: CommentKey, Value: commentIDValue(7)}
	at := func(s string) jsonfile.Field { return jsonfile.Field{Key: CommentUpdatedKey, Value: jsonString(s)} }
	cmd := func(c Command) jsonfile.Field {
		return jsonfile.Field{Key: CommandKey, Value: jsonString(c.fingerprint())}
	}
	ev := func(action, updated string) Event {
		var e Event
		e.Action, e.Comment.ID, e.Comment.UpdatedAt = action, 7, updated
		return e
	}
	for _, tt := range []struct {
		name string
		l    *ledger.Ledger
		ev   Event
		cmd  Command
		want bool
	}{
		{"never applied", ledger42(), ev("created", t1), answer, false},
		{"re-delivered", entry(id, at(t1), cmd(answer)), ev("created", t1), answer, true},
		{"edited to a new command", entry(id, at(t1), cmd(answer)), ev("edited", t2), other, false},
		{"edit delivered twice", entry(id, at(t2), cmd(other)), ev("edited", t2), other, true},
		{"older delivery after the edit", entry(id, at(t2), cmd(other)), ev("created", t1), answer, true},
		{"edit that kept the command", entry(id, at(t1), cmd(answer)), ev("edited", t2), answer, true},
		{"no edit time in the event", entry(id, at(t1), cmd(answer)), ev("created", ""), answer, true},
		{"entry from before edit times, redelivered", entry(id), ev("created", t1), answer, true},
		{"entry from before edit times, edited", entry(id), ev("edited", t2), other, false},
		{"another comment's entry", entry(jsonfile.Field{Key: CommentKey, Value: commentIDValue(8)}), ev("created", t1), answer, false},
	} {
		if got := appliedBefore(tt.l, tt.ev, tt.cmd); got != tt.want {
			t.Errorf("%s: appliedBefore = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestRotate(t *testing.T) {
	t.Parallel()
	issues := []int{1, 10, 11, 12, 2, 3} // as the branch lists them, by path
	for _, tt := range []struct {
		after, n  int
		want      string
		wantAfter int
	}{
		{0, 2, "[1 2]", 2},
		{2, 3, "[3 10 11]", 11},
		{11, 3, "[12 1 2]", 2},
		{12, 2, "[1 2]", 2},
		{5, 1, "[10]", 10},
		{3, 10, "[1 2 3 10 11 12]", 12},
	} {
		got, next := rotate(issues, tt.after, tt.n)
		if fmt.Sprint(got) != tt.want || next != tt.wantAfter {
			t.Errorf("rotate(after %d, %d) = %v, %d; want %s, %d", tt.after, tt.n, got, next, tt.want, tt.wantAfter)
		}
	}
}

// TestSweepAppliesALostEditOnce: a command was applied, then its comment
// was edited and the edit's run was lost. The sweep sees a verdict older
// than the edit and applies the new command; a second sweep over the same
// window finds the fresh verdict and does nothing. Comments inside the
// grace period are left to their own runs.
func TestSweepAppliesALostEditOnce(t *testing.T) {
	t.Parallel()
	fake := newFakeWithIssues(42)
	defer fake.Close()
	l := ledger42()
	l.Clarifications[0].Status = ledger.Answered
	l.Clarifications[0].Thread = append(l.Clarifications[0].Thread,
		ledger.Entry{Round: 1, From: "architect", Type: ledger.Answer, Body: "JWT.", Timestamp: l.Clarifications[0].Created})
	fake.PutBranchFile(DefaultStateBranch, ledgerPath42, encode(t, l))
	c := newTestClient(t, fake, &sleeps{})
	start := fake.Now()

	ev := event(fake, "alice", "OWNER", "/clarify ask CLR-42-001 How long do they live?")
	cm, _ := fake.Comment(ev.Comment.ID)
	ev.Comment.UpdatedAt = cm.Updated.Format(time.RFC3339)
	if out, err := newIngester(c).Run(context.Background(), ev); err != nil || !out.Applied {
		t.Fatalf("first version: %+v %v", out, err)
	}
	edited, _ := fake.EditCommentByHand(ev.Comment.ID, "/clarify resolve CLR-42-001 JWT, 24 hours.")
	fake.Advance(time.Hour)
	fresh := fake.AddComment(42, "bob", "OWNER", "/clarify resolve CLR-42-002 Later.") // still in its own run's hands

	sweep := func() (*Sweep, *Ingester) {
		in := newIngester(c)
		in.Syncer = nil
		return &Sweep{Ingester: in, Clock: clock.NewFake(fake.Now().Add(time.Minute))}, in
	}
	sw, in := sweep()
	until, err := sw.Run(context.Background(), start)
	if err != nil || sw.Found != 1 || in.Counts.CommandsApplied != 1 {
		t.Fatalf("sweep: found %d, counts %+v, err %v", sw.Found, in.Counts, err)
	}
	if !until.Before(fresh.Updated) {
		t.Fatalf("the window ends at %s, after the comment in its grace period (%s)", until, fresh.Updated)
	}
	data, _ := fake.BranchFile(DefaultStateBranch, ledgerPath42)
	got, _ := ledger.Parse("remote", data, 42)
	if rec := got.Find("CLR-42-001"); rec.Status != ledger.Resolved || len(rec.Thread) != 4 {
		t.Fatalf("the edit was not applied once: %s, %d entries", rec.Status, len(rec.Thread))
	}
	if got := fake.ReactionsBy(edited.ID, githubfake.BotLogin); got != "eyes,+1" {
		t.Fatalf("reactions %q", got)
	}
	if got := fake.ReactionsBy(fresh.ID, githubfake.BotLogin); got != "" {
		t.Fatalf("the sweep took a comment in its grace period: %q", got)
	}

	sw, in = sweep()
	if _, err := sw.Run(context.Background(), start); err != nil || sw.Found != 0 || in.Counts.CommandsApplied != 0 {
		t.Fatalf("second sweep: found %d, counts %+v, err %v", sw.Found, in.Counts, err)
	}
}

// TestPermissionDecides: the collaborator-permission endpoint's role
// against MinPermission; a user GitHub does not know (404) is none; a
// permission that cannot be read is never a yes.
func TestPermissionDecides(t *testing.T) {
	t.Parallel()
	fake := newFakeWithIssues(42)
	defer fake.Close()
	fake.PutBranchFile(DefaultStateBranch, ledgerPath42, encode(t, ledger42()))
	fake.SetPermission("mia", "maintain")
	fake.SetPermission("tom", "triage")
	c := newTestClient(t, fake, &sleeps{})
	fake.Fault = func(call githubfake.Call) *githubfake.Response {
		switch {
		case strings.Contains(call.Path, "/collaborators/ghost/"):
			return &githubfake.Response{Status: 404, Body: `{"message":"Not Found"}`}
		case strings.Contains(call.Path, "/collaborators/lock/"):
			return &githubfake.Response{Status: 403, Body: `{"message":"Resource not accessible by integration"}`}
		}
		return nil
	}
	for _, tt := range []struct {
		user, min string
		want      bool
	}{
		{"mia", "", true}, {"mia", "maintain", true}, {"mia", "admin", false},
		{"tom", "", false}, {"tom", "triage", true}, {"ghost", "read", false}, {"lock", "read", false},
	} {
		var warned []string
		in := newIngester(c)
		in.MinPermission = tt.min
		in.Warn = func(f string, a ...any) { warned = append(warned, fmt.Sprintf(f, a...)) }
		ok, why := in.permitted(context.Background(), tt.user, "CONTRIBUTOR")
		if ok != tt.want || (!ok && !strings.Contains(why, "not allowed")) {
			t.Errorf("%s with min %q: %v %q", tt.user, tt.min, ok, why)
		}
		if (tt.user == "lock") != (len(warned) == 1) {
			t.Errorf("%s: warnings %q", tt.user, warned)
		}
	}
}

// TestWrongBotLogin: markers under the token's own login (a personal
// access token, which may read GET /user) or a bot account stop the sync
// before it posts; markers a person typed do not.
func TestWrongBotLogin(t *testing.T) {
	t.Parallel()
	want := Desired(ledger42(), testLabels, ident)
	for _, tt := range []struct {
		name, author, token string
		stop                bool
	}{
		{"an app posted them", "agentx-app[bot]", "t", true},
		{"the token's own login", "octo", "pat", true},
		{"a person pasted them", "mallory", "t", false},
		{"a person pasted them, read with a personal token", "mallory", "pat", false},
		{"an app quoted ours", "quoter[bot]", "t", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakeWithIssues(42)
			defer fake.Close()
			fake.Tokens["pat"] = "octo"
			for _, w := range want.Comments {
				fake.AddComment(42, tt.author, "NONE", w.Body)
				if tt.name == "an app quoted ours" {
					fake.AddComment(42, githubfake.BotLogin, "NONE", w.Body) // ours, listed after the app's
				}
			}
			c, err := NewClient(ClientConfig{APIURL: fake.URL(), Token: tt.token, Repository: "o/r", WriteInterval: -1, Sleep: (&sleeps{}).sleep})
			if err != nil {
				t.Fatal(err)
			}
			s := newSyncer(c)
			before := fake.CommentCount()
			err = s.Issue(context.Background(), ledger42(), NewState())
			if stopped := errors.Is(err, ErrWrongBot); stopped != tt.stop {
				t.Fatalf("err %v, want stop %v", err, tt.stop)
			}
			if tt.stop && (fake.CommentCount() != before || !strings.Contains(err.Error(), "set the action's bot-login input to "+tt.author)) {
				t.Fatalf("posted %d, err %v", fake.CommentCount()-before, err)
			}
			if tt.name == "an app quoted ours" {
				if err != nil || fake.CommentCount() != before {
					t.Fatalf("err %v, %d comments posted", err, fake.CommentCount()-before)
				}
				return
			}
			if !tt.stop && fake.CommentCount() != before+len(want.Comments) {
				t.Fatalf("a person's pasted markers stopped or confused the sync: %d comments", fake.CommentCount())
			}
		})
	}
}

// TestIngestSkipsADeletedComment: a comment deleted before its run
// started was taken back by its author; nothing is applied or posted.
func TestIngestSkipsADeletedComment(t *testing.T) {
	t.Parallel()
	fake := newFakeWithIssues(42)
	defer fake.Close()
	fake.PutBranchFile(DefaultStateBranch, ledgerPath42, encode(t, ledger42()))
	ev := event(fake, "alice", "OWNER", "/clarify answer CLR-42-001 Sessions.")
	fake.DeleteCommentByHand(ev.Comment.ID)
	in := newIngester(newTestClient(t, fake, &sleeps{}))
	out, err := in.Run(context.Background(), ev)
	if err != nil || out.Skipped == "" || in.Counts != (Counts{}) || fake.Calls()["GET /repos/{owner}/{repo}/git/ref/{ref...}"] != 0 {
		t.Fatalf("%+v %v counts %+v calls %v", out, err, in.Counts, fake.Calls())
	}
}
