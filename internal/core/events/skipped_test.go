package events

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestReadSkippedNamesTheLines: the lines Read skips are named by number
// (the first MaxSkippedLines, the others counted), blank lines neither
// skipped nor miscounted.
func TestReadSkippedNamesTheLines(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	good := `{"type":"a","timestamp":"2026-01-01T00:00:00Z"}`
	data := good + "\n{torn\n\n" + good + "\nnot json\n" + `{"type":""}` + "\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	evs, sk, err := (&Log{Path: path}).ReadSkipped(time.Time{})
	if err != nil || len(evs) != 2 || sk.Count != 3 {
		t.Fatalf("evs=%d skipped=%+v err=%v", len(evs), sk, err)
	}
	if got := sk.String(); got != "lines 2, 5 and 6" {
		t.Errorf("String() = %q", got)
	}
	for _, tc := range []struct {
		s    Skipped
		want string
	}{
		{Skipped{Count: 1, Lines: []int{4}}, "line 4"},
		{Skipped{Count: 9, Lines: []int{1, 2, 3, 4, 5}}, "lines 1, 2, 3, 4, 5 and 4 more"},
		{Skipped{Count: 5, Lines: []int{1, 2, 3, 4, 5}}, "lines 1, 2, 3, 4 and 5"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.s, got, tc.want)
		}
	}
}
