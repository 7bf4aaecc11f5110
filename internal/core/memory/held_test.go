package memory

import (
	"context"
	"testing"
)

// TestHeld: held means stored, or removed on purpose (a tombstone), and
// the answer is the same whether the fast scan or the decoded file gives it.
func TestHeld(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	if got, err := s.Held(42, []string{"obs-a-42-1-aaaaaa"}); err != nil || len(got) != 0 {
		t.Fatalf("Held on a missing file = %v, %v", got, err)
	}
	obs := []Observation{
		{ID: "obs-a-42-1-aaaaaa", Agent: "a", IssueNumber: 42, Category: Decision, Content: "kept"},
		{ID: "obs-a-42-2-bbbbbb", Agent: "a", IssueNumber: 42, Category: Decision, Content: "removed later"},
	}
	if _, err := s.Store(ctx, obs); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Remove(ctx, "obs-a-42-2-bbbbbb"); err != nil || !ok {
		t.Fatalf("Remove = %v, %v", ok, err)
	}
	for _, ids := range [][]string{
		{"obs-a-42-1-aaaaaa", "obs-a-42-2-bbbbbb"},                      // all held: the scan answers
		{"obs-a-42-1-aaaaaa", "obs-a-42-2-bbbbbb", "obs-a-42-3-cccccc"}, // one missing: decoded
	} {
		got, err := s.Held(42, ids)
		if err != nil || !got["obs-a-42-1-aaaaaa"] || !got["obs-a-42-2-bbbbbb"] || got["obs-a-42-3-cccccc"] || len(got) != 2 {
			t.Errorf("Held(%v) = %v, %v", ids, got, err)
		}
	}
}
