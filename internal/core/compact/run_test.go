package compact

import (
	"testing"

	"github.com/agentx-dev/agentx/internal/core/memory"
)

func TestReportLine(t *testing.T) {
	two := []memory.Observation{{}, {}}
	for _, tc := range []struct {
		rep  Report
		want string
	}{
		{Report{Issue: 4, Before: 6, After: 3, Plan: Plan{Archive: two, Merged: 1}},
			"Compacted issue #4: 6 -> 3 observations (2 originals merged into 1 summaries, archived in A)."},
		{Report{Issue: 4, DryRun: true, Before: 2, After: 2},
			"Would compact issue #4: 2 -> 2 observations (0 originals merged into 0 summaries)."},
		{Report{Issue: 4, Raced: true},
			"Nothing compacted: issue #4 changed while the plan was made; run it again."},
	} {
		if got := tc.rep.Line("A"); got != tc.want {
			t.Errorf("Line = %q, want %q", got, tc.want)
		}
	}
	if (&Report{DryRun: true, Before: 3, After: 1}).Changed() || !(&Report{Before: 3, After: 1}).Changed() {
		t.Error("Changed: a dry run changes nothing, a smaller issue changed")
	}
}
