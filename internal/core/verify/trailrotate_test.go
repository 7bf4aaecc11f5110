package verify

import (
	"context"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/clock"
)

// A writer rotating the trail while verify reads it (a new month, or the
// current file full) is no broken chain: verify listed the files before
// the rotation and read the current one after it, whose first line
// continues the file the listing did not hold. The CI's race run found
// it (TestVerifyBesideWriters, whose writers' first line rotates the
// fixture's older month).
func TestTrailRotatedWhileReadIsNoBrokenChain(t *testing.T) {
	t.Parallel()
	ws := fixture(t)
	month := func(m time.Month) *audit.Trail {
		return &audit.Trail{Dir: ws.StateDir(), Clock: clock.NewFake(time.Date(t0.Year()+1, m, 3, 0, 0, 0, 0, time.UTC))}
	}
	// The trail in two files: the fixture's month, rotated, and March's.
	for range 3 {
		if err := month(time.March).Append(context.Background(), audit.Entry{Actor: "engineer", Op: "memory.add", Issue: 5}); err != nil {
			t.Fatal(err)
		}
	}
	if files, err := audit.Files(ws.StateDir()); err != nil || len(files) != 2 {
		t.Fatalf("trail files %v, %v; want two", files, err)
	}
	rotated := false
	opts := alone()
	opts.duringTrail = func() {
		// April's first line rotates March's file away, after the
		// listing and before the current file is read.
		if err := month(time.April).Append(context.Background(), audit.Entry{Actor: "engineer", Op: "memory.add", Issue: 7}); err != nil {
			t.Error(err)
		}
		rotated = true
	}
	rep, err := Run(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !rotated {
		t.Fatal("the trail was not rotated while verify read it")
	}
	if got := errorsOf(rep, Error); len(got) > 0 {
		t.Fatalf("verify beside a rotation: %v", got)
	}
	if files, _ := audit.Files(ws.StateDir()); len(files) != 3 {
		t.Fatalf("trail files %v; want three", files)
	}
}
