package hookcmd

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/memory/synth"
	"github.com/agentx-dev/agentx/internal/core/validate"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// memoryGenerateOptions is `memory generate`'s command line: the target
// is Dir (a scratch workspace) or, with IntoStore, this workspace's store.
type memoryGenerateOptions struct {
	Observations, Issues int
	Seed                 uint64
	Dir                  string
	IntoStore            bool
	jsonFlag
}

const memoryGenerateUsage = `memory generate --observations N --issues M [--seed S] (DIR | --into-store) [--json]

Adds N synthetic observations (decisions, code changes, errors and key facts of
a software team) over issues 1..M, for benchmarks and for trying agentx at
scale, to the memory store of the workspace at DIR (created if missing):
  agentx-hook memory generate --observations 100000 --issues 2000 /tmp/big
  agentx-hook --root /tmp/big memory search "token refresh"
Synthetic data never mixes with real observations by accident: only
--into-store adds it to this workspace's own store.`

// maxGenerated is the most observations one memory generate adds.
const maxGenerated = 10_000_000

func parseMemoryGenerate(a *App, args []string) (*memoryGenerateOptions, error) {
	o := &memoryGenerateOptions{}
	flags := newFlags(a, "memory generate", memoryGenerateUsage)
	flags.IntVar(&o.Observations, "observations", 10000, "how many observations `N`")
	flags.IntVar(&o.Issues, "issues", 200, "spread over issues 1..`M`")
	flags.Uint64Var(&o.Seed, "seed", 1, "random seed `S` (same seed, same corpus)")
	flags.BoolVar(&o.IntoStore, "into-store", false, "add to this workspace's real memory store instead of DIR's")
	o.register(flags)
	pos, err := parse(flags, args)
	if err != nil {
		return o, err
	}
	// Each limit named with the value: an issue past validate.MaxIssue
	// would be a file no other command accepts.
	if o.Observations <= 0 || o.Observations > maxGenerated {
		return o, usagef("--observations must be 1 to %d (got %d)", maxGenerated, o.Observations)
	}
	if o.Issues <= 0 || o.Issues > validate.MaxIssue {
		return o, usagef("--issues must be 1 to %d (got %d)", validate.MaxIssue, o.Issues)
	}
	switch {
	case len(pos) > 1:
		return o, usagef("memory generate takes one target directory, got %q", pos)
	case len(pos) == 1 && o.IntoStore:
		return o, usagef("memory generate: give a target directory or --into-store, not both")
	case len(pos) == 0 && !o.IntoStore:
		return o, usagef("memory generate needs a target directory (memory generate [flags] DIR) or --into-store to add synthetic observations to this workspace's real store")
	case len(pos) == 1:
		o.Dir = pos[0]
	}
	return o, nil
}

func runMemoryGenerate(ctx context.Context, a *App, o *memoryGenerateOptions) error {
	s := a.Memory()
	if o.Dir != "" {
		dir := o.Dir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(a.Cwd, dir)
		}
		target := workspace.Workspace{Root: filepath.Clean(dir)}
		if target.Root == a.Workspace().Root {
			return usagef("memory generate: %s is this workspace; pass --into-store to add synthetic observations to its real store", o.Dir)
		}
		mine := a.Memory()
		s = memory.New(target.MemoryDir(), a.Locks(), a.Clock)
		// Laid out as this workspace's own store ([memory] manifest).
		s.Warn, s.FileBase, s.DeltaLimit = mine.Warn, mine.FileBase, mine.DeltaLimit
	}
	g, err := synth.Generate(ctx, s, o.Observations, o.Issues, o.Seed, a.Clock.Now())
	if err != nil {
		return err
	}
	if o.Dir == "" {
		a.refreshAnchors(ctx)
	}
	if o.JSON {
		return a.writeDoc(g.Doc(s.Dir))
	}
	if o.Dir == "" {
		fmt.Fprintln(a.Stdout, g.Line(""))
		return nil
	}
	fmt.Fprintf(a.Stdout, "%s\nTry: agentx-hook --root %s memory search \"token refresh\"\n", g.Line(filepath.Join(o.Dir, workspace.Dir, "memory")), o.Dir)
	return nil
}
