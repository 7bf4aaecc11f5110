package hookcmd

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/statesync"
)

// indexRebuild is this process's handle on the background rebuild of the
// memory index (statesync.IndexRebuild): one per process, since a hook
// that left the index to it recalls without the index.
func (a *App) indexRebuild() *statesync.IndexRebuild {
	if a.indexBG == nil {
		a.indexBG = &statesync.IndexRebuild{Root: a.Workspace().Root, Marker: a.Workspace().IndexRebuildFile(),
			Exe: selfExecutable, Warn: a.warn}
	}
	return a.indexBG
}

// selfExecutable is the agentx-hook binary to start again, whatever it is
// called (a package manager's agentx, a renamed copy): pickExecutable.
func selfExecutable() (string, error) {
	exe, _ := os.Executable()
	return pickExecutable(os.Args[0], exe, exec.LookPath)
}

// pickExecutable chooses the binary to start again: argv0 as the shell
// found it when it is named agentx-hook (a test harness runs agentx-hook
// from its own binary, and only that name makes the binary act as
// agentx-hook), else the executable itself unless it is a Go test binary
// (its name ends in .test), which would run its tests instead. Only
// accepting names beginning with agentx-hook left a renamed binary's
// fresh clone without the background rebuild.
func pickExecutable(argv0, exe string, lookPath func(string) (string, error)) (string, error) {
	if strings.HasPrefix(filepath.Base(argv0), "agentx-hook") {
		if p, err := lookPath(argv0); err == nil {
			return p, nil
		}
	}
	base := strings.TrimSuffix(filepath.Base(exe), ".exe")
	if exe != "" && !strings.HasSuffix(base, ".test") {
		return exe, nil
	}
	return "", errors.New("no agentx-hook executable to run the memory index rebuild (run `agentx-hook memory rebuild`)")
}
