package statebranch_test

import (
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/metrics"
	"github.com/agentx-dev/agentx/internal/core/statebranch"
	sbt "github.com/agentx-dev/agentx/internal/core/statebranch/statebranchtest"
	"github.com/agentx-dev/agentx/internal/core/statemerge"
)

func weekFile(writer, through string, captures int) (string, string) {
	w := &metrics.Week{Writer: writer, Week: "2026-W47", Through: through,
		Counters: metrics.Counters{Lines: captures, CaptureRuns: captures}}
	return metrics.Dir + "/" + metrics.FileName(writer, w.Week), string(w.Encode())
}

// Each machine's weekly metrics file goes to the state branch under its
// own name and comes back to every clone; a later version of one machine's
// file replaces the earlier wherever it meets it, with no conflict (issue
// 22 item 3).
func TestWeeklyMetricsFilesTravelAndMergeWithoutConflict(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	real := func(a *agent) *agent {
		a.opts.Merge = func(p string, base, ours, theirs []byte) ([]byte, error) {
			m, _, err := statemerge.MergeFile(p, base, ours, theirs)
			return m, err
		}
		a.opts.Valid, a.opts.Lost = statemerge.Valid, statemerge.Lost
		return a
	}
	a, b := real(newAgent(t, remote)), real(newAgent(t, remote))
	pa, ca := weekFile("aaaaaaaaaaaaaaaa", "2026-11-17T10:00:00.000Z", 1)
	pb, cb := weekFile("bbbbbbbbbbbbbbbb", "2026-11-18T10:00:00.000Z", 2)
	if !statebranch.IsStatePath(pa) || statebranch.IsStatePath(metrics.Dir+"/notes.json") {
		t.Fatalf("IsStatePath(%s) false, or a stray name accepted", pa)
	}
	a.write(pa, ca)
	b.write(pb, cb)
	a.sync()
	b.sync()
	a.sync()
	for _, ag := range []*agent{a, b} {
		if string(ag.read(pa)) != ca || string(ag.read(pb)) != cb {
			t.Fatalf("%s does not hold both machines' files", ag.dir)
		}
	}
	// a folds more into its file; b still holds the earlier copy.
	_, ca2 := weekFile("aaaaaaaaaaaaaaaa", "2026-11-19T10:00:00.000Z", 3)
	a.write(pa, ca2)
	if res := a.sync(); len(res.Conflicts) != 0 {
		t.Fatalf("conflicts: %+v", res.Conflicts)
	}
	if res := b.sync(); len(res.Conflicts) != 0 {
		t.Fatalf("conflicts: %+v", res.Conflicts)
	}
	if got := string(b.read(pa)); got != ca2 {
		t.Errorf("b's copy of a's file is not the later one:\n%s", got)
	}
	if got := string(remoteFile(t, remote, pa)); !strings.Contains(got, `"captureRuns": 3`) {
		t.Errorf("branch copy:\n%s", got)
	}
}
