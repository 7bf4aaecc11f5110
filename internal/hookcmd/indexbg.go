package hookcmd

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

// hookReindexMax is how many memory issue files a hook's state pull may
// have written for the hook to bring the memory index in line itself: each
// is re-rendered in the manifest, tens of milliseconds for a few at 100K
// observations. A fresh clone's first pull writes every issue file, and
// indexing them all (seconds at 100K) inside the hook overran sync_budget
// (8.9 s measured at 1,000 issues): past this count, or once the budget is
// spent, the index is rebuilt by a process the hook leaves running.
const hookReindexMax = 20

// startIndexRebuild starts `agentx-hook memory rebuild --after-sync` (with
// --pull-first when the hook's pull was cut short by its budget, so that a
// fresh clone has the whole state well before its next hook) in a
// session of its own, so it outlives the hook (and a host that kills the
// hook's process group), with its output in .agentx/memory/index-rebuild.log.
// The marker .agentx/memory/index-rebuild names the process: this one
// until the child rewrites it with its own pid, and the child removes it
// once the index is in line. While it is there, hooks recall without the
// index (indexRebuildPending).
func (a *App) startIndexRebuild(pullFirst bool) error {
	marker := a.Workspace().IndexRebuildFile()
	if err := writeIndexMarker(marker, os.Getpid()); err != nil {
		return err
	}
	a.indexDeferred = true
	exe, err := selfExecutable()
	if err != nil {
		return err // the marker stays: the next hook tries again
	}
	logf, err := os.OpenFile(marker+".log", os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", marker+".log", err)
	}
	defer func() { _ = logf.Close() }() // the child has its own descriptor
	args := []string{"--root", a.Workspace().Root, "memory", "rebuild", "--after-sync"}
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

// selfExecutable is the agentx-hook binary to start again: the one this
// process runs as (its argv[0] as the shell found it, which a test harness
// that runs agentx-hook from its own binary keeps meaningful), else the
// executable itself, provided it is agentx-hook and not, say, a test binary.
func selfExecutable() (string, error) {
	if strings.HasPrefix(filepath.Base(os.Args[0]), "agentx-hook") {
		if p, err := exec.LookPath(os.Args[0]); err == nil {
			return p, nil
		}
	}
	if p, err := os.Executable(); err == nil && strings.HasPrefix(filepath.Base(p), "agentx-hook") {
		return p, nil
	}
	return "", errors.New("no agentx-hook executable to run the memory index rebuild (run `agentx-hook memory rebuild`)")
}

func writeIndexMarker(path string, pid int) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	// A marker lost in a crash only costs a slower search until the next
	// write: no fsync.
	return atomicfile.Write(path, []byte(strconv.Itoa(pid)+"\n"), atomicfile.Options{NoSync: true})
}

// indexRebuildPending reports whether the memory index is being rebuilt
// in the background, so that recall must not rely on it. A marker whose
// process is gone belongs to a rebuild that died (killed, the machine
// restarted): it is started again, and still pending.
func (a *App) indexRebuildPending() bool {
	if a.indexDeferred {
		return true
	}
	marker := a.Workspace().IndexRebuildFile()
	data, err := os.ReadFile(marker)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	pid, perr := strconv.Atoi(strings.TrimSpace(string(data)))
	if err == nil && perr == nil && pid > 0 && pid != os.Getpid() && process.Alive(pid) {
		return true
	}
	if err := a.startIndexRebuild(false); err != nil {
		a.warn("memory index rebuild not started: %v", err)
	}
	return true
}

// indexRebuilt is the end of `memory rebuild --after-sync`: the index is
// in line, the hooks may use it again.
func (a *App) indexRebuilt() {
	if err := os.Remove(a.Workspace().IndexRebuildFile()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		a.warn("remove %s: %v", a.Workspace().IndexRebuildFile(), err)
	}
}

// claimIndexRebuild is the start of `memory rebuild --after-sync`: the
// marker names this process, so hooks know the rebuild is alive.
func (a *App) claimIndexRebuild() {
	if err := writeIndexMarker(a.Workspace().IndexRebuildFile(), os.Getpid()); err != nil {
		a.warn("%v", err)
	}
}

// indexMarkerExists reports a background rebuild started and not finished.
func (a *App) indexMarkerExists() bool {
	_, err := os.Lstat(a.Workspace().IndexRebuildFile())
	return err == nil
}

// pullBeforeRebuild completes a state pull a hook's budget cut short,
// within [github] sync_timeout; the rebuild that follows indexes it all.
func (a *App) pullBeforeRebuild(ctx context.Context) {
	opt, _, err := a.stateSyncOptions()
	if err != nil {
		a.warn("state pull skipped: %v", err)
		return
	}
	opt.PullOnly = true
	cfg, _ := a.Config() // loaded by stateSyncOptions
	ctx, cancel := context.WithTimeout(ctx, cfg.Config.GitHub.SyncTimeoutOr())
	defer cancel()
	res, _, err := a.syncState(ctx, opt, syncThenRebuild)
	if err != nil {
		a.warn("state pull not completed: %v", err)
		return
	}
	fmt.Fprintln(a.Stderr, syncSummary(res)) // stdout is the rebuild's (--json)
}
