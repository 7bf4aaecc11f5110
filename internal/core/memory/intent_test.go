package memory

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/audit"
)

// A writer killed after its issue write but before its audit line (found
// by internal/e2e/crashpoints: `memory add` killed there left an
// observation verify called planted, OBSERVATION_UNANCHORED, for good)
// leaves its line in its pending marker; the next write's repair appends
// it once, and only when the write landed.
func TestRepairAppendsTheLineADeadWriterOwed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, c := range []struct {
		name            string
		landed, hadLine bool
		want            int // lines naming the observation afterwards
	}{
		{"killed between the file and the line", true, false, 1},
		{"killed after the line, before the marker went", true, true, 1},
		{"killed before the file's rename", false, false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, clk, _ := newTestStore(t)
			s.Audit = &audit.Trail{Dir: filepath.Join(filepath.Dir(s.Dir), "state"), Clock: clk}
			if _, err := s.Store(ctx, []Observation{obs("engineer", 42, Decision, "Chose gRPC")}); err != nil {
				t.Fatal(err)
			}
			// What the killed writer left: its marker with the line, the
			// file written (or not), the line appended (or not).
			var added []Observation
			fn := func(f *IssueFile) (bool, error) {
				added, _ = appendNew(f, 42, []Observation{obs("engineer", 42, Decision, "Going with JWT")}, s.now())
				return c.landed, nil
			}
			entry := func() (audit.Entry, bool) { return s.storedEntry(42, added) }
			var marker string
			var err error
			if c.landed {
				marker, err = s.updateIssue(ctx, 42, fn, entry)
			} else {
				// The marker of a write whose rename never came.
				f, rerr := s.readIssue(42)
				if rerr != nil {
					t.Fatal(rerr)
				}
				_, _ = fn(f)
				e, _ := entry()
				marker, err = s.leaveMarker(42, &e)
			}
			if err != nil || marker == "" {
				t.Fatalf("marker %q: %v", marker, err)
			}
			if c.hadLine {
				s.auditStored(ctx, 42, added)
			}
			clk.Advance(2 * markerStale) // the writer is gone for good
			if _, err := s.Store(ctx, []Observation{obs("reviewer", 42, KeyFact, "Note: the suite runs nightly")}); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(marker); !os.IsNotExist(err) {
				t.Errorf("the dead writer's marker is still there: %v", err)
			}
			trail, err := os.ReadFile(s.Audit.Path())
			if err != nil {
				t.Fatal(err)
			}
			if n := bytes.Count(trail, []byte(`"`+added[0].ID+`"`)); n != 2*c.want { // in ids and after
				t.Errorf("the trail names %s %d times, want %d:\n%s", added[0].ID, n, 2*c.want, trail)
			}
			if findings, _, err := audit.Check(s.Audit.Dir); err != nil || len(findings) > 0 {
				t.Errorf("the trail's chain: %v %v", findings, err)
			}
		})
	}
}
