package recalljournal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/lock"
)

func TestJournalSurvivesATornLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "recall-pending.jsonl")
	if err := os.WriteFile(path, []byte(`["obs-a"]`+"\n"+`["obs-b","obs-`), 0o644); err != nil {
		t.Fatal(err)
	}
	j := New(path, nil)
	if err := j.Append([]string{"obs-c"}); err != nil {
		t.Fatal(err)
	}
	got := j.Pending()
	if got["obs-a"] != 1 || got["obs-c"] != 1 {
		t.Fatalf("recalls after a torn line = %v", got)
	}
}

type counter struct {
	got map[string]int
	err error
}

func (c *counter) AddRecallCounts(_ context.Context, counts map[string]int) error {
	if c.err != nil {
		return c.err
	}
	for k, v := range counts {
		c.got[k] += v
	}
	return nil
}

// Fold adds every journalled recall once; a failed fold keeps the batch
// aside, counted by Pending and applied by the next fold.
func TestFoldOnceAndRetry(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j := New(filepath.Join(dir, "recall-pending.jsonl"), lock.New(lock.Options{}))
	ctx := context.Background()
	for _, ids := range [][]string{{"a", "b"}, {"a"}} {
		if err := j.Append(ids); err != nil {
			t.Fatal(err)
		}
	}
	failing := &counter{got: map[string]int{}, err: errors.New("disk full")}
	if err := j.Fold(ctx, failing); err == nil {
		t.Fatal("fold error lost")
	}
	if err := j.Append([]string{"b"}); err != nil {
		t.Fatal(err)
	}
	if got := j.Pending(); !reflect.DeepEqual(got, map[string]int{"a": 2, "b": 2}) {
		t.Fatalf("pending after a failed fold = %v", got)
	}
	c := &counter{got: map[string]int{}}
	if err := j.Fold(ctx, c); err != nil {
		t.Fatal(err)
	}
	// The batch left aside is applied first; the fresh journal waits.
	if !reflect.DeepEqual(c.got, map[string]int{"a": 2, "b": 1}) {
		t.Fatalf("first fold = %v", c.got)
	}
	if err := j.Fold(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := j.Fold(ctx, c); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.got, map[string]int{"a": 2, "b": 2}) || len(j.Pending()) != 0 || j.Full() {
		t.Fatalf("after folding all = %v, pending %v", c.got, j.Pending())
	}
}

// The journal an earlier agentx kept in the memory directory (Old) is
// counted, and folded once by the next fold, which removes it; new
// recalls go to Path only. Folding an empty journal whose directory does
// not exist yet is no error.
func TestOldJournalCountedAndFolded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := New(filepath.Join(dir, "recall-pending.jsonl"), lock.New(lock.Options{}))
	if err := old.Append([]string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	j := New(filepath.Join(dir, "pending", "recall-pending.jsonl"), lock.New(lock.Options{}))
	j.Old = old.Path
	ctx := context.Background()
	c := &counter{got: map[string]int{}}
	if err := j.Fold(ctx, c); err != nil || !reflect.DeepEqual(c.got, map[string]int{"a": 1, "b": 1}) {
		t.Fatalf("fold: %v %v", err, c.got)
	}
	// An older binary still running appends there again.
	if err := old.Append([]string{"a"}); err != nil {
		t.Fatal(err)
	}
	if err := j.Append([]string{"b"}); err != nil {
		t.Fatal(err)
	}
	if got := j.Pending(); !reflect.DeepEqual(got, map[string]int{"a": 1, "b": 1}) {
		t.Fatalf("pending = %v", got)
	}
	c = &counter{got: map[string]int{}}
	if err := j.Fold(ctx, c); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.got, map[string]int{"a": 1, "b": 1}) {
		t.Fatalf("fold = %v", c.got)
	}
	if _, err := os.Stat(old.Path); !os.IsNotExist(err) {
		t.Fatalf("the old journal is still there: %v", err)
	}
	if got := j.Pending(); len(got) != 0 {
		t.Fatalf("pending after the fold = %v", got)
	}
	empty := New(filepath.Join(dir, "none", "recall-pending.jsonl"), lock.New(lock.Options{}))
	if err := empty.Fold(ctx, c); err != nil {
		t.Fatalf("empty fold: %v", err)
	}
}
