package verify

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/memory/synth"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Issue 35: what verify holds across its run, at its largest (the trail's
// anchors and the store's observations, once both are read), is a few
// fixed-size rows per observation, not strings: a million observations
// held 1.27 GB of RSS when the anchors were a map of id strings and the
// rows held the ids and times (472 bytes an observation live on this
// corpus); as keyed rows it is about 110 (at a million, where the tables
// are fuller, 100). Measured as the live heap
// after a collection, with the checker that holds it alive: a count of
// bytes that does not depend on timing or load. The bound is per
// observation, so it holds at any size.
func TestVerifyHoldsFewBytesPerObservation(t *testing.T) {
	if !measuredApart(t) {
		return
	}
	const n = heldObservations
	c, per := heldPerObservation(t, func(c *checker) {
		c.stateFiles()
		c.memoryFiles(memory.New(c.ws.MemoryDir(), nil, nil))
	})
	if c.view == nil || c.view.Lines == 0 || c.rep.Counts.Observations != n || len(c.rep.Problems) != 0 {
		t.Fatalf("read %d observations and a trail (%v) with problems %+v, want %d, a trail and none", c.rep.Counts.Observations, c.view != nil, c.rep.Problems, n)
	}
	const limit = 150
	if per > limit {
		t.Fatalf("verify holds %d bytes per observation (its anchor and its row), over the bound of %d", per, limit)
	}
}

// heldPerObservation runs read on a checker of the held-bytes store and
// returns the checker and the live heap it leaves behind per observation,
// after a collection: a count of bytes that does not depend on timing or
// load.
func heldPerObservation(t *testing.T, read func(c *checker)) (*checker, int64) {
	t.Helper()
	c := &checker{ws: heldWorkspace(t), opt: Options{Now: time.Now}, rep: &Report{Problems: []Problem{}}}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	read(c)
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / heldObservations
	runtime.KeepAlive(c)
	t.Logf("%d bytes held per observation", per)
	return c, per
}

// heldObservations is the size of the store the held-bytes tests read.
const heldObservations = 20000

var (
	heldOnce sync.Once
	heldWS   workspace.Workspace
	heldErr  error
	// heldDir is the directory of heldWS, removed by TestMain.
	heldDir string
)

// heldWorkspace is a store of heldObservations synthetic observations and
// its audit trail, generated once for both held-bytes tests (each took
// about half a second to generate the same store; issue 37), in the
// process they measure in (measuredApart). The tests only read it.
func heldWorkspace(t *testing.T) workspace.Workspace {
	t.Helper()
	heldOnce.Do(func() {
		heldDir, heldErr = os.MkdirTemp("", "verify-held-")
		if heldErr != nil {
			return
		}
		ws := workspace.Workspace{Root: heldDir}
		for _, d := range []string{ws.MemoryDir(), ws.StateDir()} {
			if heldErr = os.MkdirAll(d, 0o755); heldErr != nil {
				return
			}
		}
		store := memory.New(ws.MemoryDir(), lock.New(lock.Options{}), nil)
		store.Audit = &audit.Trail{Dir: ws.StateDir()}
		_, heldErr = synth.Generate(context.Background(), store, heldObservations, heldObservations/50, 1, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		heldWS = ws
	})
	if heldErr != nil {
		t.Fatalf("the held-bytes store: %v", heldErr)
	}
	return heldWS
}

// heldChildEnv marks the process the held-bytes tests measure in.
const heldChildEnv = "AGENTX_VERIFY_HELD_BYTES"

// heldTests are the tests that measure the heap; they run in a process of
// their own, one after the other and beside nothing else.
const heldTests = "^(TestVerifyHoldsFewBytesPerObservation|TestHeldBytesPerObservationAreBounded)$"

// measuredApart reports whether t measures here: in the process
// heldChild starts, where nothing else runs. Elsewhere t runs in parallel
// with the package's other tests and reports what it did in that
// process. The heap is measured where nothing else allocates: before, the
// two tests ran alone in the package's own process, and every parallel
// test waited for them, and for the store they generate, about a second
// (issue 37).
func measuredApart(t *testing.T) bool {
	if os.Getenv(heldChildEnv) != "" {
		return true
	}
	t.Parallel()
	out, err := heldChild()
	name := t.Name()
	run, pass := "=== RUN   "+name+"\n", "--- PASS: "+name+" "
	_, after, ran := strings.Cut(out, run)
	body, _, passed := strings.Cut(after, pass)
	if !ran || !passed {
		t.Fatalf("%s in a process of its own: %v\n%s", name, err, out)
	}
	t.Logf("in a process of its own:\n%s", body)
	return false
}

// heldChild runs the held-bytes tests in a process of their own, once for
// both, and returns what it printed (go test -v).
var heldChild = sync.OnceValues(func() (string, error) {
	cmd := exec.CommandContext(context.Background(), os.Args[0], "-test.run="+heldTests, "-test.v")
	cmd.Env = append(os.Environ(), heldChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	return string(out), err
})
