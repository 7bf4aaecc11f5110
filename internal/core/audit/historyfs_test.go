package audit

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
)

// trailAt writes a trail with one line per time (ops named by ops) and
// returns its file's bytes.
func trailAt(t *testing.T, times []time.Time, ops []string, ids []string) []byte {
	t.Helper()
	dir := t.TempDir()
	fake := clock.NewFake(times[0])
	tr := &Trail{Dir: dir, Clock: fake}
	for i, at := range times {
		fake.Set(at)
		if err := tr.Append(context.Background(), Entry{Actor: "a", Op: ops[i], Issue: 7, IDs: []string{ids[i]}}); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// BranchHistory merges the Action's trail and every clone's by time, each
// entry naming its trail, and applies the filter to all of them.
func TestBranchHistoryMergesTrails(t *testing.T) {
	t.Parallel()
	at := func(min int) time.Time { return time.Date(2026, 3, 1, 10, min, 0, 0, time.UTC) }
	action := trailAt(t, []time.Time{at(2), at(5)}, []string{"clarify.answer", "monitor.mark-stale"}, []string{"CLR-7-001", "CLR-7-002"})
	cloneA := trailAt(t, []time.Time{at(1), at(4), at(6)}, []string{"clarify.request", "memory.add", "clarify.resolve"}, []string{"CLR-7-001", "OBS-1", "CLR-7-001"})
	cloneB := trailAt(t, []time.Time{at(3)}, []string{"clarify.request"}, []string{"CLR-7-002"})
	fsys := fstest.MapFS{
		"state/" + FileName:                      {Data: action},
		"state/audit.d/aaaa/" + FileName:         {Data: cloneA},
		"state/audit.d/bbbb/" + FileName:         {Data: cloneB},
		"state/audit.d/notes.txt":                {Data: []byte("not a trail")},
		"state/clarifications/issue-7.json":      {Data: []byte("{}")},
		"state/audit.d/cccc/not-an-audit-file.x": {Data: []byte("x")},
	}
	type row struct{ trail, op string }
	rows := func(es []TrailEntry) []row {
		var out []row
		for _, e := range es {
			out = append(out, row{e.Trail, e.Op})
		}
		return out
	}
	got, err := BranchHistory(fsys, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	want := []row{{"aaaa", "clarify.request"}, {ActionTrail, "clarify.answer"}, {"bbbb", "clarify.request"},
		{"aaaa", "memory.add"}, {ActionTrail, "monitor.mark-stale"}, {"aaaa", "clarify.resolve"}}
	if !slices.Equal(rows(got), want) {
		t.Errorf("BranchHistory = %v, want %v", rows(got), want)
	}
	got, err = BranchHistory(fsys, Filter{ID: "CLR-7-001", Since: at(2)})
	if err != nil {
		t.Fatal(err)
	}
	if want := []row{{ActionTrail, "clarify.answer"}, {"aaaa", "clarify.resolve"}}; !slices.Equal(rows(got), want) {
		t.Errorf("filtered = %v, want %v", rows(got), want)
	}
	// A branch without trails has no history; a symlinked trail file is
	// an error (verify --state-branch says which).
	if got, err := BranchHistory(fstest.MapFS{"README.md": {Data: []byte("x")}}, Filter{}); err != nil || len(got) != 0 {
		t.Errorf("no trails: %v %v", got, err)
	}
	fsys["state/audit.d/bbbb/"+FileName] = &fstest.MapFile{Data: cloneB, Mode: os.ModeSymlink}
	if _, err := BranchHistory(fsys, Filter{}); err == nil {
		t.Error("a symlinked trail file was read")
	}
}

// HistoryFS reads a trail of a tree like History reads it on disk.
func TestHistoryFSMatchesHistory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fake := clock.NewFake(time.Date(2026, 1, 31, 23, 0, 0, 0, time.UTC))
	tr := &Trail{Dir: dir, Clock: fake}
	for i, id := range []string{"X-1", "X-2", "X-1"} {
		fake.Set(time.Date(2026, 1, 31+i, 23, 0, 0, 0, time.UTC))
		if err := tr.Append(context.Background(), Entry{Actor: "a", Op: "memory.add", IDs: []string{id}}); err != nil {
			t.Fatal(err)
		}
	}
	fsys := fstest.MapFS{}
	files, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fsys["t/"+filepath.Base(p)] = &fstest.MapFile{Data: data}
	}
	for _, f := range []Filter{{}, {ID: "X-1"}} {
		want, err := History(dir, f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := HistoryFS(fsys, "t", f)
		if err != nil || !slices.EqualFunc(got, want, func(a, b Entry) bool { return a.Hash == b.Hash }) || len(got) == 0 {
			t.Errorf("HistoryFS(%+v) = %d entries (%v), History %d", f, len(got), err, len(want))
		}
	}
}
