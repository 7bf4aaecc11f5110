package hooklog

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/workspace"
)

func newWS(t *testing.T) workspace.Workspace {
	t.Helper()
	ws := workspace.Workspace{Root: t.TempDir()}
	if err := os.Mkdir(ws.AgentxDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	return ws
}

// The log keeps the last MaxEntries runs, newest last, and concurrent
// appends lose none of them.
func TestAppendBounded(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := Append(ws, Entry{Time: time.Unix(int64(i), 0), Command: "hook start"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, err := Read(ws)
	if err != nil || len(got) != 8 {
		t.Fatalf("%d entries, %v", len(got), err)
	}
	for i := range MaxEntries + 5 {
		if err := Append(ws, Entry{Time: time.Unix(int64(100+i), 0), Command: "hook finish", Warnings: []string{"w"}}); err != nil {
			t.Fatal(err)
		}
	}
	got, _ = Read(ws)
	if len(got) != MaxEntries || got[len(got)-1].Time.Unix() != 100+MaxEntries+4 || got[0].Time.Unix() != 105 {
		t.Fatalf("%d entries, first %v, last %v", len(got), got[0].Time, got[len(got)-1].Time)
	}
	if got[0].Outcome != Warned {
		t.Errorf("outcome %q", got[0].Outcome)
	}
}

// Outside a workspace nothing is written; a torn line is dropped, the new
// entry kept; warnings are bounded.
func TestAppendEdges(t *testing.T) {
	t.Parallel()
	none := workspace.Workspace{Root: t.TempDir()}
	if err := Append(none, Entry{Command: "hook start"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(none.AgentxDir()); !os.IsNotExist(err) {
		t.Fatalf(".agentx/ created: %v", err)
	}
	outside := t.TempDir()
	linked := workspace.Workspace{Root: t.TempDir()}
	if err := os.Symlink(outside, linked.AgentxDir()); err != nil {
		t.Fatal(err)
	}
	if err := Append(linked, Entry{Command: "hook start"}); err == nil {
		t.Error("appended through a .agentx/ symlinked outside the workspace")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("wrote %d files outside", len(entries))
	}
	ws := newWS(t)
	if err := os.WriteFile(ws.HookLogFile(), []byte("{\"command\":\"hook start\",\"outcome\":\"ok\"}\n{\"torn"), 0o644); err != nil {
		t.Fatal(err)
	}
	many := make([]string, 30)
	for i := range many {
		many[i] = strings.Repeat("x", 600)
	}
	if err := Append(ws, Entry{Command: "hook finish", Warnings: many}); err != nil {
		t.Fatal(err)
	}
	got, _ := Read(ws)
	if len(got) != 2 || got[1].Command != "hook finish" {
		t.Fatalf("%+v", got)
	}
	w := got[1].Warnings
	if len(w) != MaxWarnings || w[MaxWarnings-1] != "(11 more warnings)" || len([]rune(w[0])) > MaxText {
		t.Errorf("warnings %d, last %q", len(w), w[len(w)-1])
	}
	if rel, _ := filepath.Rel(ws.AgentxDir(), ws.HookLogFile()); !workspace.IsLocalOnly(rel) {
		t.Errorf("%s is not local only", rel)
	}
}
