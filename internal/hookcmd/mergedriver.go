package hookcmd

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/agentx-dev/agentx/internal/core/githooks"
	"github.com/agentx-dev/agentx/internal/core/statemerge"
)

const mergeDriverUsage = `merge-driver BASE OURS THEIRS PATH

What git runs to merge a ledger, memory issue file or memory archive when
both branches changed it (registered by ` + "`agentx-hook hooks install --merge-driver`" + `
as merge.agentx.driver = "` + githooks.MergeDriverCommand + `").
It merges the three versions by meaning (records by id, threads as sets,
status by lifecycle, id collisions renumbered on the incoming side,
observations by id) and writes the result into OURS. It never writes
conflict markers: a file it cannot parse, or one that is not a state file,
exits 1 with OURS untouched, and git reports its normal conflict.`

// hooksMergeDriverUsage is added to `hooks --help`.
const hooksMergeDriverUsage = `

--merge-driver (install) also registers the semantic merge driver for state
files kept on code branches: git config merge.agentx.driver and
.gitattributes lines for .agentx/state/clarifications/issue-*.json,
.agentx/memory/issue-*.json and .agentx/memory/archive/*.json (existing
lines are kept). uninstall removes both; status shows them. See docs/merge.md.`

// runMergeDriver is git's merge driver protocol: the result goes into
// OURS, exit 0 on success; any failure exits non-zero with OURS as it was.
// mergeDriverOptions is git's %O %A %B %P: the three versions (relative
// paths made absolute against the working directory) and the file's path
// in the repository.
type mergeDriverOptions struct {
	Base, Ours, Theirs, Path string
}

func parseMergeDriver(a *App, args []string) (*mergeDriverOptions, error) {
	flags := newFlags(a, "merge-driver", mergeDriverUsage)
	pos, err := parse(flags, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != 4 {
		return nil, usagef("merge-driver needs BASE OURS THEIRS PATH (git's %%O %%A %%B %%P), got %d arguments", len(pos))
	}
	return &mergeDriverOptions{Base: a.abs(pos[0]), Ours: a.abs(pos[1]), Theirs: a.abs(pos[2]), Path: pos[3]}, nil
}

func runMergeDriver(_ context.Context, a *App, o *mergeDriverOptions) error {
	rep, err := statemerge.Driver(o.Base, o.Ours, o.Theirs, o.Path)
	if err != nil {
		return err
	}
	printMergeReport(a.Stderr, o.Path, rep)
	return nil
}

// printMergeReport tells the person running git what the merge decided
// that they may want to know: renumbered ids above all.
func printMergeReport(w io.Writer, path string, rep statemerge.Report) {
	for _, r := range rep.Renamed {
		fmt.Fprintf(w, "agentx merge-driver: %s: %s from the other branch renumbered to %s (renamedFrom kept in the record)\n", path, r.From, r.To)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "agentx merge-driver: %s: %s\n", path, n)
	}
}

func (a *App) abs(p string) string {
	if filepath.IsAbs(p) || a.Cwd == "" {
		return p
	}
	return filepath.Join(a.Cwd, p)
}
