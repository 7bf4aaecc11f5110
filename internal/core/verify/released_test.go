package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
)

// A writer that releases its lock (or renames its temporary into place)
// and exits between verify's look at the file and its check of the
// writer's process left nothing behind: verify reports nothing for it.
// It reported LOCK_DEAD_PROCESS beside live writers
// (TestVerifyBesideRemoveAndCompactWriters, once beside a second copy of
// the suite). Not parallel: it replaces the package's process check.
func TestLockReleasedAsItsHolderExitsIsNotReported(t *testing.T) {
	ws := fixture(t)
	host, _ := os.Hostname()
	const pid, tmpPID = 999_999_001, 999_999_002 // the writers'
	lockPath := ws.LedgerFile(7) + ".lock"
	content := fmt.Sprintf(`{"pid":%d,"timestamp":"%s","created":"%s","agent":"x","host":%q}`,
		pid, clock.Format(time.Now()), clock.Format(time.Now()), host)
	if err := os.WriteFile(lockPath, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(ws.ClarificationsDir(), fmt.Sprintf(".issue-7.json.tmp-%d-1", tmpPID))
	if err := os.WriteFile(tmp, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	prev := alive
	t.Cleanup(func() { alive = prev })
	alive = func(p int) bool {
		// Each writer finishes now, then exits: the lock released, the
		// temporary renamed into place (here: removed).
		switch p {
		case pid:
			_ = os.Remove(lockPath)
		case tmpPID:
			_ = os.Remove(tmp)
		default:
			return prev(p)
		}
		return false
	}
	rep := run(t, ws)
	for _, e := range errorsOf(rep, Error) {
		if strings.Contains(e, "LOCK_DEAD_PROCESS") || strings.Contains(e, "TEMP_LEFTOVER") {
			t.Errorf("reported what its writer had released: %s", e)
		}
	}
}
