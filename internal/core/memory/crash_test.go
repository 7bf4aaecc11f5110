package memory

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/atomicfile/atomicfiletest"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// Writer processes that die between writing a temporary file and renaming
// it leave the temporary and their lock: for an issue file, the manifest
// and the search index (written under the manifest's lock). The next
// store takes those locks over and must remove what the dead writers left.
func TestStoreCleansTempsOfCrashedWriters(t *testing.T) {
	t.Parallel()
	if file := os.Getenv("AGENTX_MEMORY_CRASH_FILE"); file != "" {
		atomicfiletest.CrashMidWrite(file, os.Getenv("AGENTX_MEMORY_CRASH_LOCK"))
		return
	}
	ctx := context.Background()
	s := New(filepath.Join(t.TempDir(), "memory"), lock.New(lock.Options{}), clock.Real{})
	s.NoSync = true
	if _, err := s.Store(ctx, []Observation{obs("engineer", 3, Decision, "before the crashes")}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, lock string }{
		{s.IssuePath(3), s.IssuePath(3)},
		{s.ManifestPath(), s.ManifestPath()},
		{s.IndexPath(), s.ManifestPath()},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestStoreCleansTempsOfCrashedWriters$")
		cmd.Env = append(os.Environ(), "AGENTX_MEMORY_CRASH_FILE="+c.file, "AGENTX_MEMORY_CRASH_LOCK="+c.lock)
		if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "crashing") {
			t.Fatalf("helper did not crash writing %s: %v\n%s", c.file, err, out)
		}
	}
	if temps, _ := filepath.Glob(filepath.Join(s.Dir, ".*.tmp-*")); len(temps) != 3 {
		t.Fatalf("the crashed writers left %d temporaries, want 3: %v", len(temps), temps)
	}
	if _, err := s.Store(ctx, []Observation{obs("engineer", 3, Decision, "after the crashes")}); err != nil {
		t.Fatal(err)
	}
	if temps, _ := filepath.Glob(filepath.Join(s.Dir, ".*.tmp-*")); len(temps) != 0 {
		t.Fatalf("temporaries of crashed writers are left: %v", temps)
	}
	checkAgree(t, s)
}
