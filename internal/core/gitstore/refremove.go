package gitstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// RemoveRefAndLog deletes ref name and its reflog (git update-ref -d
// NAME), then the log directories the deletion left empty below logs/refs:
// what uninstall takes out leaves no trace of agentx's refs. A missing ref
// or log is fine.
func (r *Repo) RemoveRefAndLog(name string) error {
	if err := r.RemoveRef(name); err != nil {
		return err
	}
	logs := filepath.Join(r.refDir(name), "logs")
	p := filepath.Join(logs, filepath.FromSlash(name))
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the reflog of %s: %w", name, err)
	}
	// The ref's own directories too (refs/agentx/worktrees/X/), when
	// nothing else is in them; refs/ and logs/refs/ stay.
	for _, top := range []string{filepath.Join(logs, "refs"), filepath.Join(r.refDir(name), "refs")} {
		rel := strings.TrimPrefix(name, "refs/")
		for dir := filepath.Dir(filepath.Join(top, filepath.FromSlash(rel))); dir != top && strings.HasPrefix(dir, top); dir = filepath.Dir(dir) {
			if os.Remove(dir) != nil {
				break
			}
		}
	}
	return nil
}
