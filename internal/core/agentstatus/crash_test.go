package agentstatus

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile/atomicfiletest"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// A writer process that dies between writing its temporary file and the
// rename leaves the temporary and its lock. The next update takes the
// dead holder's lock over and must remove what it left: nothing else
// ever will.
func TestUpdateCleansTempsOfACrashedWriter(t *testing.T) {
	t.Parallel()
	if path := os.Getenv("AGENTX_STATUS_CRASH_PATH"); path != "" {
		atomicfiletest.CrashMidWrite(path, path)
		return
	}
	path := filepath.Join(t.TempDir(), "agent-status.json")
	cmd := exec.Command(os.Args[0], "-test.run=^TestUpdateCleansTempsOfACrashedWriter$")
	cmd.Env = append(os.Environ(), "AGENTX_STATUS_CRASH_PATH="+path)
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "crashing") {
		t.Fatalf("helper did not crash mid-write: %v\n%s", err, out)
	}
	if temps, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".agent-status.json.tmp-*")); len(temps) != 1 {
		t.Fatalf("the crashed writer left %d temporaries, want 1", len(temps))
	}
	err := Update(context.Background(), lock.New(lock.Options{Wait: 5 * time.Second}), path, func(f *File) error {
		f.Ensure("engineer").Status = Working
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if temps, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".agent-status.json.tmp-*")); len(temps) != 0 {
		t.Fatalf("temporaries of the crashed writer are left: %v", temps)
	}
}
