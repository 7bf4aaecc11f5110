package checkpoint

import (
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/audit"
)

// A checkpoint is audited when a checkpoint.create line names its short
// id and tree; the last restore line is remembered with its position.
func TestTrailOf(t *testing.T) {
	t.Parallel()
	tr := TrailOf([]audit.Entry{
		{Op: OpCreate, IDs: []string{"aaaa"}, After: map[string]string{"aaaa": "tree:t1"}},
		{Op: "memory.add"},
		{Op: OpRestore, IDs: []string{"aaaa"}},
		{Op: OpCreate, IDs: []string{"bbbb"}, After: map[string]string{"bbbb": "tree:t2"}},
	})
	list := []Checkpoint{
		{Short: "bbbb", Tree: "t2"},
		{Short: "aaaa", Tree: "t1"},
		{Short: "aaaa", Tree: "other"}, // same id, another tree: forged
		{Short: "cccc", Tree: "t3"},
	}
	if n := tr.MarkUnaudited(list); n != 2 {
		t.Errorf("%d unaudited, want 2", n)
	}
	for i, want := range []bool{false, false, true, true} {
		if list[i].Unaudited != want {
			t.Errorf("%s tree %s: unaudited %v, want %v", list[i].Short, list[i].Tree, list[i].Unaudited, want)
		}
	}
	if at, ok := tr.At(list[0]); !ok || at != 3 {
		t.Errorf("At(bbbb) = %d, %v; want 3, true", at, ok)
	}
	if tr.LastRestore != "aaaa" || tr.LastRestoreAt != 2 {
		t.Errorf("last restore %q at %d, want aaaa at 2", tr.LastRestore, tr.LastRestoreAt)
	}
	if empty := TrailOf(nil); empty.LastRestoreAt != -1 {
		t.Errorf("no restore: at %d, want -1", empty.LastRestoreAt)
	}
}

func TestCreateEntry(t *testing.T) {
	t.Parallel()
	if _, ok := CreateEntry(nil, "m"); ok {
		t.Error("nil result: want no line")
	}
	if _, ok := CreateEntry(&Result{Checkpoint: Checkpoint{Short: "aaaa"}}, "m"); ok {
		t.Error("unchanged state: want no line")
	}
	e, ok := CreateEntry(&Result{Checkpoint: Checkpoint{Short: "aaaa", Tree: "t"}, Created: true}, "why")
	if !ok || e.Op != OpCreate || e.After["aaaa"] != "tree:t" || e.Detail != "why" {
		t.Errorf("entry %+v, %v", e, ok)
	}
}

func TestTexts(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 25, 1, 2, 3, 0, time.UTC)
	for _, tt := range []struct {
		name, got, want string
	}{
		{"created", (&Result{Checkpoint: Checkpoint{Short: "abcd"}, Created: true, Files: 3, Blobs: 1}).Line(), "abcd checkpoint of 3 files (1 new blobs)\n"},
		{"unchanged", (&Result{Checkpoint: Checkpoint{Short: "abcd"}}).Line(), "abcd unchanged: the state equals the last checkpoint\n"},
		{"empty list", ListText(nil), "No checkpoints yet (agentx-hook checkpoint create makes one).\n"},
		{"list", ListText([]Checkpoint{{Short: "abcd", Time: at, Message: "m", Unaudited: true}}), "abcd  2026-11-25 01:02:03Z  m  [UNAUDITED]\n"},
		{"dry restore", (&RestoreResult{Target: Checkpoint{Short: "abcd"}, Written: []string{"x"}, DryRun: true}).Text(), "would restore .agentx/x\nDry run: nothing changed.\n"},
		{"nothing", (&RestoreResult{Target: Checkpoint{Short: "abcd"}}).Text(), "Nothing to do: the state equals checkpoint abcd.\n"},
		{"no changes", (&Diff{Checkpoint: Checkpoint{Short: "abcd", Time: at, Message: "m"}}).Text(), "checkpoint abcd  2026-11-25 01:02:03Z  m\nNo changes since this checkpoint.\n"},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if w := UnauditedWarning(1); !strings.HasPrefix(w, "1 checkpoint marked") {
		t.Errorf("warning %q", w)
	}
}
