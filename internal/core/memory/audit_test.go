package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// auditedStore is a store under a fresh temp dir (memory/ beside state/,
// as in a workspace) whose writes append to the audit trail in state/,
// on a fake clock; dir is that temp dir.
func auditedStore(t *testing.T) (s *Store, dir string) {
	t.Helper()
	dir = t.TempDir()
	clk := clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	s = New(filepath.Join(dir, "memory"), lock.New(lock.Options{}), clk)
	s.NoSync = true
	s.Audit = &audit.Trail{Dir: filepath.Join(dir, "state"), Clock: clk}
	return s, dir
}

// TestWritesAreAuditedWithHashes: a store, a removal, a compaction and a
// rebuild each leave one line naming the ids and their hashes, and the
// hashes are those stored with the observations.
func TestWritesAreAuditedWithHashes(t *testing.T) {
	t.Parallel()
	s, _ := auditedStore(t)
	s.Actor = "ada"
	ctx := context.Background()
	stored, err := s.Store(ctx, []Observation{
		{Agent: "engineer", IssueNumber: 5, Category: Decision, Content: "first decision about the parser"},
		{Agent: "engineer", IssueNumber: 5, Category: Decision, Content: "second decision about the lexer"},
		{Agent: "engineer", IssueNumber: 5, Category: KeyFact, Content: "a fact to remove later on"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range stored {
		if h, ok := o.StoredHash(); !ok || h != o.ComputeHash() {
			t.Fatalf("stored %s without its hash (%q)", o.ID, h)
		}
	}
	if _, err := s.Remove(ctx, stored[2].ID); err != nil {
		t.Fatal(err)
	}
	_, n, err := s.Compact(ctx, 5, func(obs []Observation) ([]Observation, []Observation, error) {
		sum := Observation{Agent: "engineer", IssueNumber: 5, Category: Decision, Content: "both decisions"}
		sum.setExtra(FieldCompactedFrom, []byte(`["`+obs[0].ID+`","`+obs[1].ID+`"]`))
		return []Observation{sum}, obs, nil
	})
	if err != nil || n != 2 {
		t.Fatalf("compact: %d, %v", n, err)
	}
	if _, err := s.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	h, err := audit.History(s.Audit.Dir, audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, e := range h {
		ops = append(ops, e.Op+"/"+e.Actor)
	}
	want := []string{"memory.capture/engineer", "memory.remove/ada", "memory.compact/ada", "memory.rebuild/ada"}
	if len(ops) != len(want) {
		t.Fatalf("ops = %v, want %v", ops, want)
	}
	for i := range want {
		if ops[i] != want[i] {
			t.Fatalf("ops = %v, want %v", ops, want)
		}
	}
	if h[1].Before[stored[2].ID] != stored[2].ComputeHash() {
		t.Fatalf("remove line = %+v", h[1])
	}
	if h[2].Before[stored[0].ID] != stored[0].ComputeHash() || len(h[2].After) != 1 {
		t.Fatalf("compact line = %+v", h[2])
	}
	if f, _, err := audit.Check(s.Audit.Dir); err != nil || len(f) != 0 {
		t.Fatalf("chain: %+v %v", f, err)
	}
	// The archive keeps the originals' hashes.
	arch, err := readIssueAt(s.ArchivePath(5), 5)
	if err != nil || len(arch.Observations) != 2 {
		t.Fatalf("archive: %v", err)
	}
	for _, o := range arch.Observations {
		if h, ok := o.StoredHash(); !ok || h != o.ComputeHash() {
			t.Fatalf("archived %s: hash %q", o.ID, h)
		}
	}
}

// What an issue file holds is anchored on the trail before the store's
// pending marker goes (issue 37): a reader that finds no marker finds the
// line. Once the manifest write fails the issue file's observations stand
// (the next command repairs the manifest), so their line must be there;
// it was appended only after the manifest, and verify beside writers saw
// a stored observation with neither marker nor line.
func TestStoredObservationIsAnchoredBeforeItsMarkerGoes(t *testing.T) {
	t.Parallel()
	s, dir := auditedStore(t)
	ctx := context.Background()
	// The manifest cannot be replaced: a directory stands in its place.
	if err := os.MkdirAll(filepath.Join(dir, "memory", "manifest.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store(ctx, []Observation{{Agent: "engineer", IssueNumber: 5, Category: Decision, Content: "a decision the manifest never heard of"}}); err == nil {
		t.Fatal("stored with no manifest to write")
	}
	f, err := os.ReadFile(filepath.Join(dir, "memory", "issue-5.json"))
	if err != nil {
		t.Fatalf("the issue file was not written first: %v", err)
	}
	h, err := audit.History(s.Audit.Dir, audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 1 || len(h[0].IDs) != 1 || !strings.Contains(string(f), h[0].IDs[0]) {
		t.Fatalf("the issue file holds an observation its trail does not name: %d lines %+v\n%s", len(h), h, f)
	}
}

// Remove, compact, archive and restore append their lines before their
// pending markers go, as a store does (issue 32): a reader beside them
// that finds no marker finds the line. The hook between the issue file's
// write and the marker's removal reads the trail there; on the old order
// (line after the marker) it found the operation's line missing, and
// verify beside writers could call a removed observation deleted unseen.
func TestEveryWriteIsAnchoredBeforeItsMarkerGoes(t *testing.T) {
	t.Parallel()
	s, _ := auditedStore(t)
	ctx := context.Background()
	stored, err := s.Store(ctx, []Observation{
		{Agent: "engineer", IssueNumber: 5, Category: Decision, Content: "first decision about the parser"},
		{Agent: "engineer", IssueNumber: 5, Category: Decision, Content: "second decision about the lexer"},
		{Agent: "engineer", IssueNumber: 5, Category: KeyFact, Content: "a fact to remove later on"},
		{Agent: "engineer", IssueNumber: 5, Category: KeyFact, Content: "a fact to archive and restore"},
	})
	if err != nil {
		t.Fatal(err)
	}
	// expect is the op and id the trail's last line must name when the
	// hook runs; the hook reports what it found.
	var expect struct{ op, id string }
	var problems []string
	s.afterIssueWrite = func() error {
		h, err := audit.History(s.Audit.Dir, audit.Filter{})
		if err != nil {
			return err
		}
		last := h[len(h)-1]
		if last.Op != expect.op || !slices.Contains(last.IDs, expect.id) {
			problems = append(problems, fmt.Sprintf("%s of %s: the trail's last line is %s %v while its marker stands", expect.op, expect.id, last.Op, last.IDs))
		}
		return nil
	}
	expect.op, expect.id = OpRemove, stored[2].ID
	if ok, err := s.Remove(ctx, stored[2].ID); !ok || err != nil {
		t.Fatalf("remove: %v %v", ok, err)
	}
	expect.op, expect.id = OpArchive, stored[3].ID
	if got, err := s.Archive(ctx, 5, func([]Observation) []string { return []string{stored[3].ID} }); len(got) != 1 || err != nil {
		t.Fatalf("archive: %d %v", len(got), err)
	}
	expect.op, expect.id = OpRestore, stored[3].ID
	if _, err := s.Restore(ctx, stored[3].ID); err != nil {
		t.Fatalf("restore: %v", err)
	}
	expect.op, expect.id = OpCompact, stored[0].ID
	if _, n, err := s.Compact(ctx, 5, func(obs []Observation) ([]Observation, []Observation, error) {
		sum := Observation{Agent: "engineer", IssueNumber: 5, Category: Decision, Content: "both decisions"}
		sum.setExtra(FieldCompactedFrom, []byte(`["`+stored[0].ID+`","`+stored[1].ID+`"]`))
		var keep, arch []Observation
		for _, o := range obs {
			if o.ID == stored[0].ID || o.ID == stored[1].ID {
				arch = append(arch, o)
			} else {
				keep = append(keep, o)
			}
		}
		return append(keep, sum), arch, nil
	}); n != 2 || err != nil {
		t.Fatalf("compact: %d %v", n, err)
	}
	if len(problems) > 0 {
		t.Fatal(strings.Join(problems, "\n"))
	}
}
