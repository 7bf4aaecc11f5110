// Retention: checkpoints past keep pruned, in batches (each drop rewrites
// the history), the id Create returned still naming its checkpoint after a
// rewrite, and a restore of the oldest kept not pruning its own target.

package checkpoint

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

func TestPrune(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, s := newRepo(t)
	for i := range 5 {
		write(t, root, ".agentx/agentx.toml", strings.Repeat("#\n", i+1))
		if _, err := s.Create(ctx, "c"+string(rune('0'+i)), 3); err != nil {
			t.Fatal(err)
		}
	}
	list, err := s.List()
	if err != nil || len(list) != 3 || list[0].Message != "c4" || list[2].Message != "c2" {
		t.Fatalf("after pruning: %+v %v", list, err)
	}
	if n := strings.Count(git(t, root, "rev-list", Ref), "\n"); n != 3 {
		t.Fatalf("history holds %d commits", n)
	}
}

// Past keep the oldest are dropped in batches (keep/10 at a time): each
// drop rewrites the whole history, so not at every create.
func TestPruneInBatches(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, s := newRepo(t)
	counts := []int{}
	for i := range 24 {
		write(t, root, ".agentx/agentx.toml", strings.Repeat("#\n", i+1))
		r, err := s.Create(ctx, fmt.Sprintf("c%d", i), 20)
		if err != nil {
			t.Fatal(err)
		}
		list, _ := s.List()
		counts = append(counts, len(list))
		if r.Pruned > 0 && (len(list) != 20 || r.Pruned != 3) {
			t.Fatalf("create %d pruned %d, leaving %d", i, r.Pruned, len(list))
		}
	}
	// 1..22 grow, the 23rd drops 3 (back to 20), then they grow again.
	if fmt.Sprint(counts[19:]) != "[20 21 22 20 21]" {
		t.Fatalf("history sizes %v", counts)
	}
	if exact, err := s.Prune(ctx, 20); err != nil || exact != 1 {
		t.Fatalf("an explicit Prune keeps exactly keep: dropped %d, %v", exact, err)
	}
}

// The id Create returns keeps naming its checkpoint after retention
// rewrote the history (once keep is reached every create rewrites it: an
// id that changed would be stale as soon as it was printed).
func TestIDsSurvivePruning(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, s := newRepo(t)
	var ids []string
	for i := range 6 {
		write(t, root, ".agentx/agentx.toml", strings.Repeat("#\n", i+1))
		r, err := s.Create(ctx, "c"+string(rune('0'+i)), 3)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	list, err := s.List()
	if err != nil || len(list) != 3 {
		t.Fatalf("after pruning: %+v %v", list, err)
	}
	for i, want := range []string{ids[5], ids[4], ids[3]} {
		if list[i].ID != want {
			t.Errorf("checkpoint %s listed with id %s, created as %s", list[i].Message, list[i].ID, want)
		}
		c, err := s.Get(want[:ShortLen])
		if err != nil || c.Message != list[i].Message {
			t.Errorf("Get(%s) = %+v, %v", want[:ShortLen], c, err)
		}
		// The commit it is now can be named too (git log shows that one).
		if c2, err := s.Get(list[i].Commit); err != nil || c2.ID != want {
			t.Errorf("Get(commit %s) = %+v, %v", list[i].Commit, c2, err)
		}
	}
	if _, err := s.Get(ids[0][:ShortLen]); !errcode.Is(err, errcode.NotFound) {
		t.Errorf("a pruned checkpoint: %v", err)
	}
	// A checkpoint rewritten twice keeps its first id.
	write(t, root, ".agentx/agentx.toml", "x")
	if _, err := s.Create(ctx, "c6", 3); err != nil {
		t.Fatal(err)
	}
	if list, _ = s.List(); list[2].ID != ids[4] {
		t.Errorf("after a second rewrite: %s, want %s", list[2].ID, ids[4])
	}
	if _, err := s.Restore(ctx, ids[4][:8], false, "undo", 3); err != nil {
		t.Errorf("restore by a printed id: %v", err)
	}
}

// Restoring the oldest checkpoint kept does not prune it away with the
// checkpoint the restore takes first.
func TestRestoreKeepsItsTarget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, s := newRepo(t)
	var ids []string
	for i := range 3 {
		write(t, root, ".agentx/agentx.toml", strings.Repeat("#\n", i+1))
		r, err := s.Create(ctx, "c"+string(rune('0'+i)), 3)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	write(t, root, ".agentx/agentx.toml", "changed since c2")
	res, err := s.Restore(ctx, ids[0], false, "before restoring c0", 3)
	if err != nil || res.Before == nil || !res.Before.Created {
		t.Fatalf("restore: %+v, %v", res, err)
	}
	if _, err := s.Get(ids[0]); err != nil {
		t.Fatalf("the restored checkpoint was pruned: %v", err)
	}
	// The next create prunes back to keep, the oldest first.
	write(t, root, ".agentx/agentx.toml", "x")
	if _, err := s.Create(ctx, "c4", 3); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.List(); len(list) != 3 || list[2].ID != ids[2] {
		t.Fatalf("after the next create: %+v", list)
	}
}
