package sync

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentx-dev/agentx/internal/githubfake"
)

func TestRemoteStateMergesOverlappingRuns(t *testing.T) {
	fake := githubfake.New()
	defer fake.Close()
	c := newTestClient(t, fake, &sleeps{})
	ctx := context.Background()
	base := NewState()
	base.Issues["1"] = IssueState{Hash: "old1"}
	base.Issues["2"] = IssueState{Hash: "old2"}
	base.touched = map[string]bool{"1": true}
	seed := &RemoteState{GH: c, Path: StateFile}
	if err := seed.Save(ctx, base); err != nil {
		t.Fatal(err)
	}
	// Two runs start from the same checkout (the local file, no API read).
	data, _ := fake.File(StateFile)
	local := filepath.Join(t.TempDir(), "github-sync.json")
	os.WriteFile(local, data, 0o644)
	a, b := &RemoteState{GH: c, Path: StateFile, LocalFile: local}, &RemoteState{GH: c, Path: StateFile, LocalFile: local}
	fake.ResetCounts()
	sa, _ := a.Load(ctx)
	sb, _ := b.Load(ctx)
	if fake.Reads() != 0 {
		t.Fatalf("loading from the checkout made %d reads", fake.Reads())
	}
	sa.Set(1, IssueState{Hash: "new1"})
	sb.Set(2, IssueState{Hash: "new2"})
	sb.MarkLabel("clarification-blocked")
	if err := a.Save(ctx, sa); err != nil {
		t.Fatal(err)
	}
	if err := b.Save(ctx, sb); err != nil { // conflicts, merges, retries
		t.Fatal(err)
	}
	got, _ := fake.File(StateFile)
	st := ParseState(got)
	if st.Issues["1"].Hash != "new1" || st.Issues["2"].Hash != "new2" || !st.LabelEnsured("clarification-blocked") {
		t.Fatalf("merged state %+v", st)
	}
	// Nothing changed: no write.
	fake.ResetCounts()
	if err := b.Save(ctx, st); err != nil || fake.Writes() != 0 {
		t.Fatalf("unchanged save: %v, %d writes", err, fake.Writes())
	}
	// A garbage file is an empty state, never an error.
	if s := ParseState([]byte("{nope")); len(s.Issues) != 0 {
		t.Fatal("garbage state parsed")
	}
}
