package statemerge

import (
	"bytes"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/metrics"
)

// A machine's weekly metrics file: of two versions the one folded further
// wins, either way round; a side that does not parse gives way.
func TestMergeMetricsKeepsTheLaterVersion(t *testing.T) {
	t.Parallel()
	p := metrics.Dir + "/" + metrics.FileName("0123456789abcdef", "2026-W47")
	older := (&metrics.Week{Writer: "0123456789abcdef", Week: "2026-W47", Through: "2026-11-17T10:00:00.000Z",
		Counters: metrics.Counters{Lines: 1}}).Encode()
	newer := (&metrics.Week{Writer: "0123456789abcdef", Week: "2026-W47", Through: "2026-11-18T10:00:00.000Z",
		Counters: metrics.Counters{Lines: 2}}).Encode()
	for _, c := range []struct{ ours, theirs []byte }{{older, newer}, {newer, older}, {nil, newer}, {[]byte("{"), newer}} {
		got, rep, err := MergeFile(p, older, c.ours, c.theirs)
		if err != nil || !bytes.Equal(got, newer) || rep.Conflicts != 0 {
			t.Errorf("merge(%s | %s) = %s, %+v, %v", c.ours, c.theirs, got, rep, err)
		}
	}
	if err := Valid(p, newer); err != nil {
		t.Error(err)
	}
	if lost, err := Lost(p, newer, older); err != nil || len(lost) != 0 {
		t.Errorf("lost %v, %v", lost, err)
	}
	if ok, _ := Classify(metrics.Dir + "/x-2026-W47.json"); ok {
		t.Error("a name without a writer id is state")
	}
}
