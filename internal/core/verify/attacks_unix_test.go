//go:build unix

package verify

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/workspace"
	"github.com/agentx-dev/agentx/internal/testenv"
)

// TestAttacks: a symlink, a FIFO or a directory where a state file is
// expected is reported, never followed or waited on; a state directory
// leading outside the workspace stops the check before anything is read.
func TestAttacks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T, ws workspace.Workspace)
		want  string
	}{
		{"symlinked ledger", func(t *testing.T, ws workspace.Workspace) {
			outside := filepath.Join(t.TempDir(), "issue-9.json")
			_ = os.WriteFile(outside, []byte(`{"issueNumber":9,"clarifications":[]}`), 0o644)
			mustSymlink(t, outside, ws.LedgerFile(9))
		}, "SYMLINK .agentx/state/clarifications/issue-9.json"},
		{"FIFO ledger", func(t *testing.T, ws workspace.Workspace) {
			if err := syscall.Mkfifo(ws.LedgerFile(9), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "NOT_REGULAR .agentx/state/clarifications/issue-9.json"},
		{"directory for a memory issue file", func(t *testing.T, ws workspace.Workspace) {
			_ = os.Mkdir(filepath.Join(ws.MemoryDir(), "issue-9.json"), 0o755)
		}, "NOT_REGULAR .agentx/memory/issue-9.json"},
		{"FIFO event log", func(t *testing.T, ws workspace.Workspace) {
			_ = syscall.Mkfifo(ws.EventsFile(), 0o644)
		}, "NOT_REGULAR .agentx/state/events.jsonl"},
		{"archive directory outside the workspace", func(t *testing.T, ws workspace.Workspace) {
			outside := t.TempDir()
			_ = os.WriteFile(filepath.Join(outside, "issue-5-archived.json"), []byte(`{"version":1,"issueNumber":5,"observations":[]}`), 0o644)
			mustSymlink(t, outside, filepath.Join(ws.MemoryDir(), "archive"))
		}, "SYMLINK .agentx/memory/archive"},
		{"symlinked audit trail", func(t *testing.T, ws workspace.Workspace) {
			trail := filepath.Join(ws.StateDir(), audit.FileName)
			outside := filepath.Join(t.TempDir(), "audit.jsonl")
			_ = os.Rename(trail, outside)
			mustSymlink(t, outside, trail)
		}, "AUDIT_UNREADABLE .agentx/state/audit.jsonl"},
		{"state directory outside the workspace", func(t *testing.T, ws workspace.Workspace) {
			outside := t.TempDir()
			_ = os.Rename(ws.StateDir(), filepath.Join(outside, "state"))
			mustSymlink(t, filepath.Join(outside, "state"), ws.StateDir())
		}, "WORKSPACE_UNSAFE .agentx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := fixture(t)
			tt.setup(t, ws)
			done := make(chan *Report, 1)
			go func() { r, _ := Run(ws, alone()); done <- r }()
			select {
			case rep := <-done:
				if got := errorsOf(rep, Error); len(got) != 1 || got[0] != tt.want {
					t.Fatalf("errors = %v, want [%s]", got, tt.want)
				}
			case <-time.After(testenv.HangGuard):
				t.Fatal("verify hung")
			}
		})
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
