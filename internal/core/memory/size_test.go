package memory_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/memory/synth"
)

// Seed 000 §7.1 asks for a store under 50 MB at 50K observations: 1,000
// bytes an observation, whatever the files, and a manifest (or what
// replaces it) under 3 MB: 60 bytes an observation. The reference manifest
// alone costs about 350 bytes an entry; the compact layout ("delta") about
// 285; the file base (agentx-hook's default) writes none, its search index
// (about 56 bytes an observation) pointing into the issue files. Measured
// on the corpus `memory generate` writes, at the bench's density (50
// observations an issue), scaled down.
const (
	storeBudget    = 1000 // bytes an observation, every file of .agentx/memory
	manifestBudget = 60   // bytes an observation of the manifest or what replaces it
	compactBudget  = 300  // bytes an entry of manifest.json, compact layout
	sizeTestN      = 2000
	sizeTestIssues = sizeTestN / 50
)

func TestStoreSizeBudget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		reference bool
		fileBase  bool
		manifest  int // bytes an entry at most; 0: not bounded here
		store     int
	}{
		// No manifest: the index replaces it, and is bounded as it would be.
		{"file base", false, true, manifestBudget, storeBudget},
		{"compact", false, false, compactBudget, storeBudget},
		// The reference layout is what the old tools write; it is bounded
		// only so that a drift in either layout shows.
		{"reference", true, false, 360, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := clock.NewFake(time.Date(2026, 3, 1, 17, 0, 0, 0, time.UTC))
			st := memory.New(filepath.Join(t.TempDir(), ".agentx", "memory"), lock.New(lock.Options{Clock: clk}), clk)
			st.NoSync = true
			st.ReferenceManifest, st.FileBase = tc.reference, tc.fileBase
			if _, err := synth.Generate(context.Background(), st, sizeTestN, sizeTestIssues, 0, clk.Now()); err != nil {
				t.Fatal(err)
			}
			ents, err := os.ReadDir(st.Dir)
			if err != nil {
				t.Fatal(err)
			}
			var total, manifest int64
			for _, e := range ents {
				fi, err := e.Info()
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().IsRegular() {
					total += fi.Size()
				}
				if e.Name() == "manifest.json" || tc.fileBase && e.Name() == "search.idx" {
					manifest += fi.Size()
				}
			}
			t.Logf("%d observations: manifest.json %d bytes (%d an entry), store %d bytes (%d an observation)",
				sizeTestN, manifest, manifest/sizeTestN, total, total/sizeTestN)
			if _, err := os.Stat(st.ManifestPath()); tc.fileBase != os.IsNotExist(err) {
				t.Fatalf("manifest.json: %v; the file base writes none, the others one", err)
			}
			if per := manifest / sizeTestN; tc.manifest > 0 && per > int64(tc.manifest) {
				t.Errorf("manifest.json: %d bytes an entry, over the budget of %d", per, tc.manifest)
			}
			if per := total / sizeTestN; tc.store > 0 && per > int64(tc.store) {
				t.Errorf("store: %d bytes an observation, over the budget of %d (50 MB at 50K)", per, tc.store)
			}
		})
	}
}

// A store switched to `[memory] manifest = "reference"` (DeltaLimit < 0)
// renders a compact manifest again in the old tools' layout at its next
// write, entries and all; switched back, the next rebuild makes it compact.
func TestManifestLayoutFollowsTheMode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 3, 1, 17, 0, 0, 0, time.UTC))
	st := memory.New(filepath.Join(t.TempDir(), ".agentx", "memory"), lock.New(lock.Options{Clock: clk}), clk)
	st.NoSync = true
	if _, err := synth.Generate(ctx, st, 40, 4, 0, clk.Now()); err != nil {
		t.Fatal(err)
	}
	layout := func(want string, entries int) {
		t.Helper()
		data, err := os.ReadFile(st.ManifestPath())
		if err != nil {
			t.Fatal(err)
		}
		m, err := memory.ParseManifest("m", data)
		if err != nil || len(m.Entries) != entries {
			t.Fatalf("%v, %d entries, want %d", err, len(m.Entries), entries)
		}
		compact := bytes.Count(data, []byte("\n{\"id\":"))
		indented := bytes.Count(data, []byte("\n    {\n      \"id\": "))
		got := "mixed"
		switch {
		case compact == entries && indented == 0:
			got = "compact"
		case indented == entries && compact == 0:
			got = "reference"
		}
		if got != want {
			t.Fatalf("layout %s (%d compact rows, %d indented), want %s", got, compact, indented, want)
		}
	}
	layout("compact", 40)
	st.DeltaLimit = -1
	if _, err := st.Store(ctx, []memory.Observation{{Agent: "engineer", IssueNumber: 2, Category: memory.KeyFact, Content: "switched to the reference layout"}}); err != nil {
		t.Fatal(err)
	}
	layout("reference", 41)
	st.DeltaLimit = 0
	if _, err := st.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	layout("compact", 41)
}
