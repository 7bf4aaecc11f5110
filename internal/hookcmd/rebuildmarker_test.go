package hookcmd

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// markerWatch is the log of a background `memory rebuild --after-sync`:
// on every write it notes whether the hook's marker was still there.
type markerWatch struct {
	marker string
	text   strings.Builder
	gone   bool // a write came after the marker was removed
}

func (m *markerWatch) Write(p []byte) (int, error) {
	if _, err := os.Lstat(m.marker); errors.Is(err, fs.ErrNotExist) {
		m.gone = true
	}
	return m.text.Write(p)
}

// A hook waits for the marker of the background index rebuild to go; so
// does anyone reading its log (hook_fresh_clone_index.txtar). The marker
// went before the rebuild's report was written, and under load the log
// read right after was empty (issue 37): the report comes first.
func TestAfterSyncRebuildReportsBeforeItsMarkerGoes(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if _, e, code := runApp(t, root, nil, "", "init"); code != 0 {
		t.Fatalf("init: %s", e)
	}
	if _, e, code := runApp(t, root, nil, "", "memory", "add", "--agent", "engineer", "--issue", "1", "--category", "decision", "Chose gRPC streaming"); code != 0 {
		t.Fatalf("memory add: %s", e)
	}
	marker := workspace.Workspace{Root: root}.IndexRebuildFile()
	log := &markerWatch{marker: marker}
	var errb strings.Builder
	a := &App{Stdin: strings.NewReader(""), Stdout: log, Stderr: &errb, Cwd: root, rootFlag: root,
		Clock:  clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)),
		Getenv: func(string) string { return "" }}
	if code := a.Run(context.Background(), []string{"memory", "rebuild", "--after-sync"}); code != 0 {
		t.Fatalf("memory rebuild --after-sync: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(log.text.String(), "Search index rebuilt") {
		t.Fatalf("report %q", log.text.String())
	}
	if log.gone {
		t.Errorf("the report was written after the marker was removed: a reader waiting for the marker finds an incomplete log")
	}
	if _, err := os.Lstat(marker); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the marker is still there: %v", err)
	}
}
