package sync

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/githubfake"
)

func budgetSyncer(fake *githubfake.Server, budget int, dry bool) *Syncer {
	gh, _ := NewClient(ClientConfig{APIURL: fake.URL(), Token: "t", Repository: "o/r", WriteInterval: -1, Sleep: (&sleeps{}).sleep})
	return &Syncer{GH: gh, Labels: testLabels, Bot: githubfake.BotLogin, Clean: ident, Budget: budget, DryRun: dry}
}

// A dry run plans every write, within the budget, and writes nothing.
func TestSyncerDryRunPlansEveryWrite(t *testing.T) {
	t.Parallel()
	fake := newFakeWithIssues(2)
	defer fake.Close()
	s := budgetSyncer(fake, 0, true)
	if err := s.Run(context.Background(), corpus(2), NewState()); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, op := range s.Planned {
		got = append(got, strings.TrimSpace(op.Action+" "+op.Target))
	}
	// #1: 4 entries + 1 question; #2 the same, and its blocking label,
	// which the repository does not have yet.
	want := "create comment|create comment|create comment|create comment|create comment|" +
		"create comment|create comment|create comment|create comment|create comment|" +
		"create label clarification-blocked|add labels clarification-blocked"
	if strings.Join(got, "|") != want || fake.Writes() != 0 || s.Writes() != 12 {
		t.Fatalf("plan %q (%d writes to the fake)", got, fake.Writes())
	}
}

// The budget stops the run before the write that would pass it; the
// unfinished issue is not recorded, and Waiting counts it and the rest.
func TestSyncerBudgetStopsBeforeTheWrite(t *testing.T) {
	t.Parallel()
	fake := newFakeWithIssues(3)
	defer fake.Close()
	s := budgetSyncer(fake, 7, false)
	st := NewState()
	err := s.Run(context.Background(), corpus(3), st)
	if !errors.Is(err, ErrBudget) || s.Writes() != 7 || fake.Writes() != 7 || s.Waiting != 2 {
		t.Fatalf("err %v, %d writes (fake %d), waiting %d", err, s.Writes(), fake.Writes(), s.Waiting)
	}
	if _, ok := st.Get(1); !ok {
		t.Fatal("issue #1 finished but not recorded")
	}
	if _, ok := st.Get(2); ok {
		t.Fatal("issue #2 recorded half done")
	}
}

// writeAction names a write the fake recorded as PlannedOp.Action does.
var writeAction = map[string]string{
	"POST /repos/{owner}/{repo}/issues/{number}/comments":        "create comment",
	"PATCH /repos/{owner}/{repo}/issues/comments/{id}":           "edit comment",
	"DELETE /repos/{owner}/{repo}/issues/comments/{id}":          "delete comment",
	"POST /repos/{owner}/{repo}/labels":                          "create label",
	"POST /repos/{owner}/{repo}/issues/{number}/labels":          "add labels",
	"DELETE /repos/{owner}/{repo}/issues/{number}/labels/{name}": "remove label",
}

// A dry run plans exactly the writes the real run then makes on the same
// state: every kind of write, a label the repository lacks created once
// (not once per issue), a label it has not created at all.
func TestSyncerDryPlanMatchesTheRealWrites(t *testing.T) {
	t.Parallel()
	for _, budget := range []int{0, 29, 30} { // 29, 30: the budget ends just before, just after the label creation
		fake := newFakeWithIssues(6)
		defer fake.Close()
		led := corpus(6)
		want := Desired(led[0].Ledger, testLabels, ident)
		fake.AddComment(1, githubfake.BotLogin, "NONE", strings.Replace(want.Comments[1].Body, "JWT.", "JWT?", 1)) // edited
		fake.AddComment(1, githubfake.BotLogin, "NONE", want.Comments[1].Body)                                     // deleted
		// #1 wrongly carries the blocked label, which thereby exists; the
		// escalated label (#5) does not exist yet.
		pre := budgetSyncer(fake, 0, false)
		if err := pre.GH.AddLabels(context.Background(), 1, []string{testLabels.Blocked}); err != nil {
			t.Fatal(err)
		}
		fake.ResetCounts()

		dry := budgetSyncer(fake, budget, true)
		dryErr := dry.Run(context.Background(), led, NewState())
		if fake.Writes() != 0 {
			t.Fatalf("the dry run wrote %d times", fake.Writes())
		}
		var planned []string
		for _, op := range dry.Planned {
			planned = append(planned, op.Action)
		}

		real := budgetSyncer(fake, budget, false)
		realErr := real.Run(context.Background(), led, NewState())
		var wrote []string
		for _, c := range fake.Log() {
			if c.Method != "GET" {
				wrote = append(wrote, writeAction[c.Route])
			}
		}
		if strings.Join(planned, "|") != strings.Join(wrote, "|") || dry.Writes() != real.Writes() || real.Writes() != fake.Writes() {
			t.Fatalf("budget %d: planned %d %q\nwrote %d %q", budget, dry.Writes(), planned, fake.Writes(), wrote)
		}
		if !errors.Is(dryErr, ErrBudget) != (budget == 0) || !errors.Is(realErr, ErrBudget) != (budget == 0) {
			t.Fatalf("budget %d: dry %v, real %v", budget, dryErr, realErr)
		}
		wantCreate := 1 // the escalated label, once
		if budget == 29 {
			wantCreate = 0
		}
		if n := strings.Count(strings.Join(planned, "|"), "create label"); n != wantCreate {
			t.Fatalf("budget %d: %d label creations planned, want %d: %q", budget, n, wantCreate, planned)
		}
		for _, a := range []string{"edit comment", "delete comment", "remove label", "add labels"} {
			if !strings.Contains(strings.Join(planned, "|"), a) {
				t.Fatalf("budget %d: no %q in %q", budget, a, planned)
			}
		}
	}
}
