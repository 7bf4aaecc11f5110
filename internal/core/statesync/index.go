package statesync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/process"
)

// HookReindexMax is how many memory issue files a hook's state pull may
// have written for the hook to bring the memory index in line itself: each
// is re-rendered in the manifest, tens of milliseconds for a few at 100K
// observations. A fresh clone's first pull writes every issue file, and
// indexing them all (seconds at 100K) inside the hook overran sync_budget
// (8.9 s measured at 1,000 issues): past this count, or once the budget is
// spent, the index is rebuilt by a process the hook leaves running.
const HookReindexMax = 20

// IndexRebuild is the memory index rebuilt in the background after a
// hook's pull: `agentx-hook memory rebuild --after-sync` in a session of
// its own, so it outlives the hook (and a host that kills the hook's
// process group), with its output in Marker+".log". The marker file names
// the process: the hook's until the child rewrites it with its own pid,
// and the child removes it once the index is in line. While it is there,
// hooks recall without the index (Pending).
type IndexRebuild struct {
	Root   string // the workspace root the child runs in (--root)
	Marker string // .agentx/memory/index-rebuild
	// Exe finds the agentx-hook binary to start.
	Exe func() (string, error)
	// Warn receives what could not be done.
	Warn func(format string, args ...any)
	// deferred: this process left the index to a background rebuild; its
	// recall runs without the index.
	deferred bool
}

// Start starts the rebuild (with --pull-first when the hook's pull was cut
// short by its budget, so that a fresh clone has the whole state well
// before its next hook).
func (ix *IndexRebuild) Start(pullFirst bool) error {
	if err := writeMarker(ix.Marker, os.Getpid()); err != nil {
		return err
	}
	ix.deferred = true
	exe, err := ix.Exe()
	if err != nil {
		return err // the marker stays: the next hook tries again
	}
	logf, err := os.OpenFile(ix.Marker+".log", os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", ix.Marker+".log", err)
	}
	defer func() { _ = logf.Close() }() // the child has its own descriptor
	args := []string{"--root", ix.Root, "memory", "rebuild", "--after-sync"}
	if pullFirst {
		args = append(args, "--pull-first")
	}
	// Detached: it must outlive this process, so no context of ours ends it.
	cmd := exec.CommandContext(context.Background(), exe, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	process.Detach(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s memory rebuild: %w", exe, err)
	}
	// Not waited for: it is the next process's to finish. Release frees
	// what this process holds of it.
	return cmd.Process.Release()
}

func writeMarker(path string, pid int) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	// A marker lost in a crash only costs a slower search until the next
	// write: no fsync.
	return atomicfile.Write(path, []byte(strconv.Itoa(pid)+"\n"), atomicfile.Options{NoSync: true})
}

// Pending reports whether the memory index is being rebuilt in the
// background, so that recall must not rely on it. A marker whose process
// is gone belongs to a rebuild that died (killed, the machine restarted):
// it is started again, and still pending.
func (ix *IndexRebuild) Pending() bool {
	if ix.deferred {
		return true
	}
	data, err := os.ReadFile(ix.Marker)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	pid, perr := strconv.Atoi(strings.TrimSpace(string(data)))
	if err == nil && perr == nil && pid > 0 && pid != os.Getpid() && process.Alive(pid) {
		return true
	}
	if err := ix.Start(false); err != nil {
		ix.warn("memory index rebuild not started: %v", err)
	}
	return true
}

// Claim is the start of `memory rebuild --after-sync`: the marker names
// this process, so hooks know the rebuild is alive.
func (ix *IndexRebuild) Claim() {
	if err := writeMarker(ix.Marker, os.Getpid()); err != nil {
		ix.warn("%v", err)
	}
}

// Done is the end of `memory rebuild --after-sync`: the index is in line,
// the hooks may use it again.
func (ix *IndexRebuild) Done() {
	if err := os.Remove(ix.Marker); err != nil && !errors.Is(err, fs.ErrNotExist) {
		ix.warn("remove %s: %v", ix.Marker, err)
	}
}

// Running reports a background rebuild started and not finished.
func (ix *IndexRebuild) Running() bool {
	_, err := os.Lstat(ix.Marker)
	return err == nil
}

func (ix *IndexRebuild) warn(format string, args ...any) {
	if ix.Warn != nil {
		ix.Warn(format, args...)
	}
}
