// Package gitexclude owns agentx's lines in a clone's .git/info/exclude:
// the files agentx writes into the work tree that belong to that clone
// alone (Copilot's recall instructions, rewritten at every session end),
// kept out of `git status` without a change to any tracked file. Lines
// anyone else wrote are kept byte for byte.
package gitexclude

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
)

// maxExclude bounds what is read of an exclude file: git's own holds a few
// comment lines, and one past this is not ours to rewrite.
const maxExclude = 1 << 20

// path is the exclude file of the git directory commonDir (a linked
// worktree shares its main repository's).
func path(commonDir string) string { return filepath.Join(commonDir, "info", "exclude") }

// Ensure adds pattern as a line of commonDir's info/exclude unless a line
// already is it. It reports whether it wrote.
func Ensure(commonDir, pattern string) (bool, error) {
	p := path(commonDir)
	data, err := atomicfile.ReadRegular(p, maxExclude)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("read %s: %w", p, err)
	}
	if hasLine(data, pattern) {
		return false, nil
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	data = append(data, pattern+"\n"...)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return false, fmt.Errorf("create %s: %w", filepath.Dir(p), err)
	}
	if err := atomicfile.Write(p, data, atomicfile.Options{ClearDead: true}); err != nil {
		return false, fmt.Errorf("write %s: %w", p, err)
	}
	return true, nil
}

// Has reports whether commonDir's info/exclude holds the line pattern.
func Has(commonDir, pattern string) bool {
	data, err := atomicfile.ReadRegular(path(commonDir), maxExclude)
	return err == nil && hasLine(data, pattern)
}

// Remove takes the lines that are pattern out of commonDir's
// info/exclude, every other byte kept. It reports whether it wrote.
func Remove(commonDir, pattern string) (bool, error) {
	p := path(commonDir)
	data, err := atomicfile.ReadRegular(p, maxExclude)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", p, err)
	}
	if !hasLine(data, pattern) {
		return false, nil
	}
	var out []byte
	for line := range bytes.SplitAfterSeq(data, []byte("\n")) {
		if string(bytes.TrimRight(line, "\r\n")) != pattern {
			out = append(out, line...)
		}
	}
	if err := atomicfile.Write(p, out, atomicfile.Options{ClearDead: true}); err != nil {
		return false, fmt.Errorf("write %s: %w", p, err)
	}
	return true, nil
}

func hasLine(data []byte, pattern string) bool {
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if string(bytes.TrimRight(line, "\r")) == pattern {
			return true
		}
	}
	return false
}
