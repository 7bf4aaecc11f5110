package retention

import (
	"reflect"
	"testing"
	"time"
)

func TestSumAndLines(t *testing.T) {
	res := []Result{
		{Issue: 3, Before: 10, After: 4, Archived: 2, Compacted: 6, Summaries: 2},
		{Issue: 5, Before: 2, After: 2},
	}
	if got, want := Sum(res), (Sums{Changed: 1, Before: 10, After: 4, Archived: 2, Compacted: 6}); got != want {
		t.Errorf("Sum = %+v, want %+v", got, want)
	}
	p := Policy{ArchiveAfter: 90 * 24 * time.Hour, CompactOver: 200}
	want := []string{
		"Issue #3: 10 -> 4 observations (2 archived, 6 merged into 2 summaries).",
		"Issue #5: 2 -> 2 observations (0 archived, 0 merged into 0 summaries).",
		"Retention: 2 issues changed, 2 observations archived, 6 compacted ([retention] archive_after_days 90, compact_over 200).",
	}
	if got := Lines(res, p); !reflect.DeepEqual(got, want) {
		t.Errorf("Lines =\n%q\nwant\n%q", got, want)
	}
}
