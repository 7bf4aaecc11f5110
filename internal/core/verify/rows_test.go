package verify

import (
	"testing"

	"github.com/agentx-dev/agentx/internal/core/memory"
)

// What verify holds of each observation for its cross-checks is a compact
// row, not the parsed observation (issue 35: a million of those were
// 2.5 GB). Measured as the live heap memoryFiles leaves behind, after a
// collection, on a store of n observations; the bound is per observation,
// so it holds at any size. The parsed observations held before were about
// 680 bytes each on this corpus, rows of strings about 225, keyed rows
// (rows.go) about 50.
func TestHeldBytesPerObservationAreBounded(t *testing.T) {
	if !measuredApart(t) {
		return
	}
	// The store of TestVerifyHoldsFewBytesPerObservation: its audit trail
	// is not read here (memoryFiles reads the memory files alone).
	const n = heldObservations
	c, per := heldPerObservation(t, func(c *checker) { c.memoryFiles(memory.New(c.ws.MemoryDir(), nil, nil)) })
	if c.rep.Counts.Observations != n || len(c.rep.Problems) != 0 {
		t.Fatalf("read %d observations with problems %+v, want %d and none", c.rep.Counts.Observations, c.rep.Problems, n)
	}
	const limit = 100
	if per > limit {
		t.Fatalf("verify holds %d bytes per observation read, over the bound of %d", per, limit)
	}
}
