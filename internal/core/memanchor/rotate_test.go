package memanchor

import (
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/audit"
)

// A writer that rotates the trail (a new month) after the index listed it
// and before it read the current file leaves that file continuing one the
// listing did not hold: the index must read the trail again, not judge the
// notes of the file it missed unanchored (as verify, whose race run found
// it: TestTrailRotatedWhileReadIsNoBrokenChain).
func TestTrailRotatedWhileIndexReadsIt(t *testing.T) {
	f := newFix(t) // March
	f.clk.Advance(31 * 24 * time.Hour)
	f.add(t, 9, "April's note, in the file the rotation will move away")
	if files, err := audit.Files(f.ws.StateDir()); err != nil || len(files) != 2 {
		t.Fatalf("trail files %v, %v; want two", files, err)
	}
	rotated := false
	afterList = func() {
		afterList = nil
		f.clk.Advance(31 * 24 * time.Hour)
		f.add(t, 11, "May's note, whose line rotates April's file")
		rotated = true
	}
	t.Cleanup(func() { afterList = nil })
	// Asked of one issue whose notes are all in March's file: no finding
	// makes the index read the trail's tail again, and the verdicts of the
	// whole store it saves (made from the whole trail) are judged with
	// what it read.
	if got := findings(t, f.ws, 5); got != "" {
		t.Errorf("findings beside a rotation:\n%s", got)
	}
	if !rotated {
		t.Fatal("the trail was not rotated while the index read it")
	}
	if files, _ := audit.Files(f.ws.StateDir()); len(files) != 3 {
		t.Fatalf("trail files %v; want three", files)
	}
	// The next call, asked of every issue, serves no verdict made from a
	// reading that missed April's file.
	if got := findings(t, f.ws, 5, 7, 9, 11); got != "" {
		t.Errorf("findings after the rotation:\n%s", got)
	}
}
