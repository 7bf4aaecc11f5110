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
