package actioncmd

import (
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/metrics"
	"github.com/agentx-dev/agentx/internal/sync"
)

// The Action's digest sums every machine's weekly metrics file on the
// state branch (issue 22 item 3): two machines' files for last week add up
// in the issue; this week's file and an older week's are not counted, and
// a file that does not parse is left out with a warning.
func TestActionDigestSumsMachinesWeeklyMetrics(t *testing.T) {
	t.Parallel()
	fake, r, monday := digestRunner(t)
	put := func(writer, week string, c metrics.Counters) {
		w := &metrics.Week{Writer: writer, Week: week, Through: "2026-11-20T10:00:00.000Z", Counters: c}
		fake.PutBranchFile(sync.DefaultStateBranch, metrics.Dir+"/"+metrics.FileName(writer, week), w.Encode())
	}
	put("aaaaaaaaaaaaaaaa", "2026-W47", metrics.Counters{Lines: 4, CaptureRuns: 2, CaptureMS: 100, Captured: 5,
		RecallRuns: 2, RecallMS: 40, Recalled: 3, RecallTokens: 300, Displaced: 2000, Searches: 4, SearchMS: 8, SearchResults: 12})
	put("bbbbbbbbbbbbbbbb", "2026-W47", metrics.Counters{Lines: 2, CaptureRuns: 1, CaptureMS: 50, CaptureErrors: 1,
		RecallRuns: 2, RecallMS: 20, RecallMisses: 1, Recalled: 1, RecallTokens: 100, Displaced: 500, LockTimeouts: 1,
		Compactions: 1, CompactBefore: 60, CompactAfter: 20})
	put("aaaaaaaaaaaaaaaa", "2026-W48", metrics.Counters{Lines: 9, CaptureRuns: 9}) // this week: next digest
	put("aaaaaaaaaaaaaaaa", "2026-W40", metrics.Counters{Lines: 9, CaptureRuns: 9}) // long ago: not read
	fake.PutBranchFile(sync.DefaultStateBranch, metrics.Dir+"/cccccccccccccccc-2026-W47.json", []byte("{"))

	body, log := runDigestOnce(t, fake, r, monday)
	for _, want := range []string{
		"Summed over 2 machine(s)' weekly files on the state branch.",
		"| Captures (observations captured) | 3 (5) | 0 (0) |",
		"| Capture errors | 1 | 0 |",
		"| Capture latency (average) | 50 ms | n/a |",
		"| Recalls at session start (observations recalled) | 4 (4) | 0 (0) |",
		"| Memory tokens injected | 400 | 0 |",
		"| Token displacement (re-read avoided, estimate) | 2500 | 0 |",
		"| Searches (results) | 4 (12) | 0 (0) |",
		"| Lock wait (total) / timeouts | 0 ms / 1 | 0 ms / 0 |",
		"| Compactions (observations before → after) | 1 (60 → 20) | 0 (0 → 0) |",
		"| Recall hit rate | 75% |",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("digest lacks %q:\n%s", want, body)
		}
	}
	if !strings.Contains(log, "cccccccccccccccc-2026-W47.json") {
		t.Errorf("no warning for the file that does not parse:\n%s", log)
	}
}
