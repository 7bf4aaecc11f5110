package gitstore

import (
	"os"
	"path/filepath"
	"testing"
)

// Refs lists what `git for-each-ref` lists, loose and packed, and a
// killed update's empty NAME.lock (or an empty loose ref) does not fail
// the listing: go-git's iterator read every file under refs/ and failed
// with "ref file is empty", and `sync --recover` with it.
func TestRefsSkipLocksAndBrokenRefs(t *testing.T) {
	r := newRepo(t)
	c1, c2 := commitOf(t, r, 1), commitOf(t, r, 2)
	if err := r.SetRef("refs/agentx/checkpoints", c1); err != nil {
		t.Fatal(err)
	}
	if err := r.SetRef("refs/remotes/origin/agentx/state", c1); err != nil {
		t.Fatal(err)
	}
	git(t, r.Top, "pack-refs", "--all")
	// A loose ref over its packed copy wins; a new loose ref beside.
	if err := r.SetRef("refs/agentx/checkpoints", c2); err != nil {
		t.Fatal(err)
	}
	if err := r.SetRef("refs/agentx/synced", c2); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"refs/agentx/checkpoints.lock", "refs/remotes/origin/agentx/state.lock", "refs/agentx/broken"} {
		p := filepath.Join(r.CommonDir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := r.Refs("refs/agentx/", "refs/remotes/")
	if err != nil {
		t.Fatalf("Refs with a killed update's empty lock: %v", err)
	}
	want := map[string]Hash{"refs/agentx/checkpoints": c2, "refs/agentx/synced": c2, "refs/remotes/origin/agentx/state": c1}
	if len(got) != len(want) {
		t.Fatalf("Refs = %v, want %v", got, want)
	}
	for n, h := range want {
		if got[n] != h {
			t.Errorf("%s = %s, want %s", n, got[n], h)
		}
	}
	all, err := r.Refs()
	if err != nil || len(all) != 3 {
		t.Errorf("all refs = %v, %v (the repository has no branch commit yet)", all, err)
	}
}
