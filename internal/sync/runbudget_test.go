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
	// #1: 4 entries + 1 question; #2 the same, and its blocking label.
	want := "create comment|create comment|create comment|create comment|create comment|" +
		"create comment|create comment|create comment|create comment|create comment|add labels clarification-blocked"
	if strings.Join(got, "|") != want || fake.Writes() != 0 || s.Writes() != 11 {
		t.Fatalf("plan %q (%d writes to the fake)", got, fake.Writes())
	}
}

// The budget stops the run before the write that would pass it; the
// unfinished issue is not recorded, and Waiting counts it and the rest.
func TestSyncerBudgetStopsBeforeTheWrite(t *testing.T) {
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
