package statemerge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/tombstone"
)

const (
	memoryPath  = "memory/issue-42.json"
	archivePath = "memory/archive/issue-42-archived.json"
)

func obs(id string, min int, content string) memory.Observation {
	return memory.Observation{ID: id, Agent: "engineer", IssueNumber: 42, Category: memory.Decision, Content: content,
		Summary: content, Tokens: memory.EstimateTokens(content), Timestamp: ts(min), SessionID: "s1"}
}

func recalled(o memory.Observation, n int) memory.Observation {
	o.RecallCount = n
	return o
}

func obsExtra(o memory.Observation, key, value string) memory.Observation {
	o.Extra = append(append([]jsonfile.Field(nil), o.Extra...), jsonfile.Field{Key: key, Value: json.RawMessage(value)})
	return o
}

func memFile(t testing.TB, updated int, os ...memory.Observation) []byte {
	t.Helper()
	f := &memory.IssueFile{Version: 1, IssueNumber: 42, UpdatedAt: ts(updated), Observations: os}
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func obsIDs(f *memory.IssueFile) string {
	var s []string
	for _, o := range f.Observations {
		s = append(s, o.ID)
	}
	return strings.Join(s, ",")
}

func TestMergeMemoryRules(t *testing.T) {
	t.Parallel()
	a, b, c, d := obs("obs-a", 1, "Chose JSON files"), obs("obs-b", 2, "Lock order fixed"), obs("obs-c", 3, "Redis for sessions"), obs("obs-d", 4, "JWT tokens")
	summary := obs("obs-s", 5, "Summary of a and b")
	summary.Category = memory.CompactionSummary
	tests := []struct {
		name               string
		path               string
		base, ours, theirs []byte
		check              func(t *testing.T, f *memory.IssueFile, rep Report)
	}{
		{
			name: "observations added on both sides are unioned in time order",
			path: memoryPath, base: memFile(t, 1, a), ours: memFile(t, 4, a, d), theirs: memFile(t, 3, a, c),
			check: func(t *testing.T, f *memory.IssueFile, rep Report) {
				if got := obsIDs(f); got != "obs-a,obs-c,obs-d" || f.UpdatedAt != ts(4) {
					t.Errorf("ids %s updatedAt %s", got, f.UpdatedAt)
				}
			},
		},
		{
			name: "a removal with a tombstone stays removed, even where the other side recalled it",
			path: memoryPath, base: memFile(t, 2, a, b),
			ours:   buried(t, memFile(t, 5, summary), dead("obs-a", "compacted"), dead("obs-b", "compacted")),
			theirs: memFile(t, 4, recalled(a, 1), b, d),
			check: func(t *testing.T, f *memory.IssueFile, rep Report) {
				if got := obsIDs(f); got != "obs-d,obs-s" {
					t.Errorf("ids %s", got)
				}
				if ts, err := f.Tombstones(memoryPath); err != nil || len(ts) != 2 {
					t.Errorf("tombstones %v %v: the merge must carry them", ts, err)
				}
			},
		},
		{
			name: "an observation missing on one side without a tombstone is not here yet: kept",
			path: memoryPath, base: memFile(t, 2, a, b), ours: memFile(t, 5, summary), theirs: memFile(t, 4, recalled(a, 1), b, d),
			check: func(t *testing.T, f *memory.IssueFile, rep Report) {
				if got := obsIDs(f); got != "obs-a,obs-b,obs-d,obs-s" {
					t.Errorf("ids %s", got)
				}
			},
		},
		{
			name: "an observation only the base holds is kept (both sides lost it, nobody removed it)",
			path: memoryPath, base: memFile(t, 2, a, b), ours: memFile(t, 5, a), theirs: memFile(t, 4, a, d),
			check: func(t *testing.T, f *memory.IssueFile, rep Report) {
				if got := obsIDs(f); got != "obs-a,obs-b,obs-d" {
					t.Errorf("ids %s", got)
				}
			},
		},
		{
			name: "recall counts add what each side recalled",
			path: memoryPath, base: memFile(t, 2, recalled(a, 2)), ours: memFile(t, 3, recalled(a, 3)), theirs: memFile(t, 4, recalled(a, 5)),
			check: func(t *testing.T, f *memory.IssueFile, rep Report) {
				if f.Observations[0].RecallCount != 6 {
					t.Errorf("recallCount %d, want 2+1+3", f.Observations[0].RecallCount)
				}
			},
		},
		{
			name: "unknown keys of observations and of the file are kept",
			path: memoryPath, base: memFile(t, 1, a), ours: memFile(t, 2, obsExtra(a, "files", `["a.go"]`)), theirs: memFile(t, 3, obsExtra(recalled(a, 1), "relevanceScore", "0.5")),
			check: func(t *testing.T, f *memory.IssueFile, rep Report) {
				o := f.Observations[0]
				if o.RecallCount != 1 || len(o.Extra) != 2 {
					t.Errorf("observation %+v", o)
				}
			},
		},
		{
			name: "the archive is a union: nothing leaves it",
			path: archivePath, base: memFile(t, 1, a, b), ours: memFile(t, 2, a, b, c), theirs: memFile(t, 3, b, d),
			check: func(t *testing.T, f *memory.IssueFile, rep Report) {
				if got := obsIDs(f); got != "obs-a,obs-b,obs-c,obs-d" {
					t.Errorf("ids %s", got)
				}
			},
		},
		{
			name: "content changed on both sides: a conflict, decided the same way both ways",
			path: memoryPath, base: memFile(t, 1, a), ours: memFile(t, 2, obs("obs-a", 1, "Chose JSON")), theirs: memFile(t, 3, obs("obs-a", 1, "Chose JSON files only")),
			check: func(t *testing.T, f *memory.IssueFile, rep Report) {
				if rep.Conflicts != 2 { // content and summary
					t.Errorf("conflicts %d %v", rep.Conflicts, rep.Notes)
				}
			},
		},
		{
			name: "a file missing on one side is not a deletion: everything the other holds stays",
			path: memoryPath, base: memFile(t, 1, a), ours: nil, theirs: memFile(t, 3, a, c),
			check: func(t *testing.T, f *memory.IssueFile, rep Report) {
				if got := obsIDs(f); got != "obs-a,obs-c" {
					t.Errorf("ids %s", got)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, rep, err := MergeFile(tc.path, tc.base, tc.ours, tc.theirs)
			if err != nil {
				t.Fatal(err)
			}
			f, err := memory.ParseIssueFile(tc.path, got)
			if err != nil {
				t.Fatalf("merged file does not parse: %v\n%s", err, got)
			}
			tc.check(t, f, rep)
			swapped, _, err := MergeFile(tc.path, tc.base, tc.theirs, tc.ours)
			if err != nil || string(swapped) != string(got) {
				t.Errorf("not symmetric (%v):\n%s\nswapped:\n%s", err, got, swapped)
			}
		})
	}
}

func dead(id, reason string) tombstone.Tombstone {
	return tombstone.Tombstone{Kind: tombstone.Observation, ID: id, Reason: reason, At: ts(5), By: "engineer"}
}

// buried is the issue file data with tombstones added.
func buried(t testing.TB, data []byte, ts ...tombstone.Tombstone) []byte {
	t.Helper()
	f, err := memory.ParseIssueFile(memoryPath, data)
	if err != nil {
		t.Fatal(err)
	}
	f.SetTombstones(tombstone.Union(ts))
	out, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A checkpoint restore that brings back a removed observation revives it:
// the next merge with a copy that still has the tombstone keeps it.
func TestRevivedObservationSurvivesTheMerge(t *testing.T) {
	t.Parallel()
	a, b := obs("obs-a", 1, "Chose JSON files"), obs("obs-b", 2, "Lock order fixed")
	removed := buried(t, memFile(t, 3, b), dead("obs-a", "removed"))
	restored := memFile(t, 2, a, b) // the checkpoint from before the removal
	revivedFile, err := Revive(memoryPath, restored, removed, ts(9), "engineer", "checkpoint restore abc")
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := MergeFile(memoryPath, removed, revivedFile, removed)
	if err != nil {
		t.Fatal(err)
	}
	f, err := memory.ParseIssueFile(memoryPath, got)
	if err != nil {
		t.Fatal(err)
	}
	if ids := obsIDs(f); ids != "obs-b,obs-a" { // the base's order, then what came back
		t.Fatalf("after the merge: %s", ids)
	}
	// Without the revival the tombstone wins.
	got, _, _ = MergeFile(memoryPath, removed, restored, removed)
	if f, _ := memory.ParseIssueFile(memoryPath, got); obsIDs(f) != "obs-b" {
		t.Fatalf("a plain restore: %s", obsIDs(f))
	}
}
