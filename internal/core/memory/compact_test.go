// Compaction: the originals it replaces move to the archive and leave the
// index, and an observation removed while it planned does not come back.

package memory

import (
	"context"
	"os"
	"strings"
	"testing"
)

func TestCompactArchivesOriginals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	stored, err := s.Store(ctx, []Observation{
		obs("engineer", 12, Decision, "Use Redis for the session store"),
		obs("engineer", 12, Error, "Redis timeout under load"),
		obs("reviewer", 12, KeyFact, "Sessions expire after 30 minutes"),
		obs("engineer", 13, KeyFact, "Unrelated issue stays as it is"),
	})
	if err != nil {
		t.Fatal(err)
	}
	kept, archived, err := s.Compact(ctx, 12, func(all []Observation) ([]Observation, []Observation, error) {
		sum := Observation{Agent: "agent-x", Category: CompactionSummary, Content: "Sessions: Redis store, 30 minute expiry, timeouts under load fixed"}
		return []Observation{all[2], sum}, all[:2], nil
	})
	if err != nil || archived != 2 || len(kept) != 2 || kept[1].ID == "" {
		t.Fatalf("compact: %+v %d %v", kept, archived, err)
	}
	data, err := os.ReadFile(s.ArchivePath(12))
	if err != nil {
		t.Fatal(err)
	}
	arch, err := ParseIssueFile(s.ArchivePath(12), data)
	if err != nil || len(arch.Observations) != 2 || arch.Observations[0].ID != stored[0].ID {
		t.Fatalf("archive: %+v %v", arch, err)
	}
	checkAgree(t, s)
	rows, _ := s.Search(ctx, Query{Issue: 12})
	if len(rows) != 2 {
		t.Fatalf("issue 12 after compaction: %+v", rows)
	}
	rows, _ = s.Search(ctx, Query{Text: "timeout"})
	if len(rows) != 1 || rows[0].Category != CompactionSummary {
		t.Fatalf("archived originals must leave the index: %+v", rows)
	}
}

// Compaction plans on a read taken without the lock. An observation
// removed meanwhile (a person deleting a leaked secret with `memory
// remove`) must not come back with the plan, nor live on inside a new
// summary; recall counts added meanwhile must not be lost.
func TestCompactDoesNotResurrectWhatWasRemovedMeanwhile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	stored, err := s.Store(ctx, []Observation{
		obs("engineer", 12, Decision, "Use Redis for the session store"),
		obs("engineer", 12, KeyFact, "The staging token is hunter2"),
		obs("reviewer", 12, KeyFact, "Sessions expire after 30 minutes"),
	})
	if err != nil {
		t.Fatal(err)
	}
	secret, counted := stored[1].ID, stored[2].ID
	// Keep everything: the plan only races the removal.
	_, _, err = s.Compact(ctx, 12, func(all []Observation) ([]Observation, []Observation, error) {
		if _, err := s.Remove(ctx, secret); err != nil {
			t.Fatal(err)
		}
		if err := s.AddRecallCounts(ctx, map[string]int{counted: 3}); err != nil {
			t.Fatal(err)
		}
		return all, nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := s.GetByIssue(ctx, 12)
	for _, o := range got {
		if o.ID == secret {
			t.Fatal("compaction brought back an observation removed while it planned")
		}
		if o.ID == counted && o.RecallCount != 3 {
			t.Fatalf("recall count %d, want 3: compaction lost the increments made while it planned", o.RecallCount)
		}
	}
	// Merge the removed one into a summary: the summary must not land.
	stored, err = s.Store(ctx, []Observation{obs("engineer", 12, KeyFact, "The prod token is swordfish")})
	if err != nil {
		t.Fatal(err)
	}
	secret = stored[0].ID
	_, _, err = s.Compact(ctx, 12, func(all []Observation) ([]Observation, []Observation, error) {
		if _, err := s.Remove(ctx, secret); err != nil {
			t.Fatal(err)
		}
		var keep, arch []Observation
		merged := ""
		for _, o := range all {
			if o.Category == KeyFact {
				arch = append(arch, o)
				merged += o.Content + "; "
			} else {
				keep = append(keep, o)
			}
		}
		keep = append(keep, Observation{Agent: "agent-x", Category: CompactionSummary, Content: merged})
		return keep, arch, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = s.GetByIssue(ctx, 12)
	for _, o := range got {
		if strings.Contains(o.Content, "swordfish") {
			t.Fatalf("the removed observation lives on in %s: %q", o.ID, o.Content)
		}
	}
	checkAgree(t, s)
}
