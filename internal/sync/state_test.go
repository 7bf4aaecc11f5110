package sync

import (
	"context"
	"testing"

	"github.com/agentx-dev/agentx/internal/githubfake"
)

func TestSyncStateMergesOverlappingRuns(t *testing.T) {
	fake := githubfake.New()
	defer fake.Close()
	c := newTestClient(t, fake, &sleeps{})
	ctx := context.Background()
	sb := NewStateBranch(c, "")
	base := NewState()
	base.Issues["1"] = IssueState{Hash: "old1"}
	base.Issues["2"] = IssueState{Hash: "old2"}
	base.touched = map[string]bool{"1": true}
	empty, _ := sb.Read(ctx)
	if err := saveState(ctx, sb, base, empty); err != nil {
		t.Fatal(err)
	}
	// Two runs read the same branch and state.
	read, _ := sb.Read(ctx)
	data, _ := sb.ReadFile(ctx, read, SyncStatePath)
	sa, sbState := ParseState(data), ParseState(data)
	sa.Set(1, IssueState{Hash: "new1"})
	sbState.Set(2, IssueState{Hash: "new2"})
	sbState.MarkLabel("clarification-blocked")
	sbState.SetSettings("s2")
	if err := saveState(ctx, sb, sa, read); err != nil {
		t.Fatal(err)
	}
	fake.ResetCounts()
	if err := saveState(ctx, sb, sbState, read); err != nil { // conflicts, merges, retries
		t.Fatal(err)
	}
	if n := fake.Calls()["PATCH /repos/{owner}/{repo}/git/refs/{ref...}"]; n != 2 {
		t.Fatalf("%d ref updates, want 2 (one lost race)", n)
	}
	got, _ := fake.BranchFile(DefaultStateBranch, SyncStatePath)
	st := ParseState(got)
	if st.Issues["1"].Hash != "new1" || st.Issues["2"].Hash != "new2" || !st.LabelEnsured("clarification-blocked") || st.Settings != "s2" {
		t.Fatalf("merged state %+v", st)
	}
	// Nothing changed: no call at all.
	fake.ResetCounts()
	if err := saveState(ctx, sb, st, read); err != nil || fake.Writes()+fake.Reads() != 0 {
		t.Fatalf("unchanged save: %v, %d reads, %d writes", err, fake.Reads(), fake.Writes())
	}
	// A garbage file is an empty state, never an error.
	if s := ParseState([]byte("{nope")); len(s.Issues) != 0 {
		t.Fatal("garbage state parsed")
	}
}
