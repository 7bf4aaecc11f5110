package hookcmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

func runInit(_ context.Context, a *App, args []string) error {
	flags := newFlags(a, "init", "init [--force] [--json]\n\nCreates .agentx/ with a default agentx.toml and the feature, story and bug\nworkflows. Existing files are kept unless --force is given.")
	force := flags.Bool("force", false, "overwrite existing config and workflow files")
	asJSON := flags.Bool("json", false, "print one JSON document")
	if _, err := parse(flags, args); err != nil {
		return err
	}
	ws := a.Workspace()
	files := config.DefaultFiles()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, dir := range []string{ws.AgentxDir(), ws.WorkflowsDir(), ws.ClarificationsDir(), ws.MemoryDir()} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create %s: %w", dir, err)
		}
	}
	// report prints each file as it is written, or collects it for --json.
	type fileResult struct {
		Path   string `json:"path"`
		Action string `json:"action"` // created or kept
	}
	results := []fileResult{}
	report := func(action, path string) {
		if *asJSON {
			results = append(results, fileResult{Path: filepath.ToSlash(rel(ws.Root, path)), Action: action})
			return
		}
		fmt.Fprintf(a.Stdout, "%-8s %s\n", action, rel(ws.Root, path))
	}
	for _, n := range names {
		path := filepath.Join(ws.AgentxDir(), filepath.FromSlash(n))
		if _, err := os.Stat(path); err == nil && !*force {
			report("kept", path)
			continue
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := atomicfile.Write(path, files[n], atomicfile.Options{}); err != nil {
			return err
		}
		report("created", path)
	}
	gi := ws.GitignoreFile()
	if _, err := os.Stat(gi); errors.Is(err, fs.ErrNotExist) {
		// What stays local (locks, spools, crash markers, derived indexes)
		// is workspace's knowledge: never committed.
		if err := atomicfile.Write(gi, workspace.Gitignore(), atomicfile.Options{}); err != nil {
			return err
		}
		report("created", gi)
	}
	if *asJSON {
		return writeJSON(a.Stdout, map[string]any{"schema_version": SchemaVersion, "root": ws.Root, "files": results})
	}
	fmt.Fprintf(a.Stdout, "agentx initialised in %s\n", ws.Root)
	return nil
}

func rel(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil {
		return r
	}
	return path
}
