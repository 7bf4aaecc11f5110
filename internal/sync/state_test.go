package sync

import (
	"context"
	"testing"

	"github.com/agentx-dev/agentx/internal/githubfake"
)

func TestSyncStateMergesOverlappingRuns(t *testing.T) {
	t.Parallel()
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
	if err := saveState(ctx, sb, base, empty, ""); err != nil {
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
	if err := saveState(ctx, sb, sa, read, ""); err != nil {
		t.Fatal(err)
	}
	fake.ResetCounts()
	if err := saveState(ctx, sb, sbState, read, ""); err != nil { // conflicts, merges, retries
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
	if err := saveState(ctx, sb, st, read, ""); err != nil || fake.Writes()+fake.Reads() != 0 {
		t.Fatalf("unchanged save: %v, %d reads, %d writes", err, fake.Reads(), fake.Writes())
	}
	// A garbage file is an empty state, never an error.
	if s := ParseState([]byte("{nope")); len(s.Issues) != 0 {
		t.Fatal("garbage state parsed")
	}
}

// The one-call "nothing changed" check trusts only the action's own record
// of a complete mirror sitting right on the commit it mirrored: a save
// that lost a race lands on top of commits nobody mirrored, so it must
// not carry the complete message, and any other writer's commit on top
// ends the trust too.
func TestUpToDateOnlyOnAMirrorRecordOfItsParent(t *testing.T) {
	t.Parallel()
	fake := githubfake.New()
	defer fake.Close()
	ctx := context.Background()
	sb := NewStateBranch(newTestClient(t, fake, &sleeps{}), "")
	sy := &Syncer{Labels: testLabels, Bot: githubfake.BotLogin}
	fake.SetBranchFiles(DefaultStateBranch, map[string][]byte{"state/clarifications/issue-1.json": []byte("{}")}, "agent push")

	read, _ := sb.Read(ctx)
	st := NewState()
	st.Set(1, IssueState{Hash: "h1"})
	if err := saveState(ctx, sb, st, read, mirroredMessage(sy.settings())); err != nil {
		t.Fatal(err)
	}
	if ok, err := sy.UpToDate(ctx, sb); err != nil || !ok {
		t.Fatalf("after a complete mirror: up to date %v, %v", ok, err)
	}
	if ok, _ := (&Syncer{Labels: Labels{Blocked: "other"}, Bot: githubfake.BotLogin}).UpToDate(ctx, sb); ok {
		t.Fatal("other label settings must mirror again")
	}

	// Another writer commits between our read and our save.
	read, _ = sb.Read(ctx)
	fake.SetBranchFiles(DefaultStateBranch, map[string][]byte{"state/clarifications/issue-2.json": []byte("{}")}, "agent push")
	st.Set(1, IssueState{Hash: "h1b"})
	if err := saveState(ctx, sb, st, read, mirroredMessage(sy.settings())); err != nil {
		t.Fatal(err)
	}
	if ok, _ := sy.UpToDate(ctx, sb); ok {
		t.Fatal("a save that lost a race claims a complete mirror of commits it never read")
	}
}
