package hookcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/gitcmd"
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
	rel, ok := agentxRelative(o.Path)
	if !ok {
		return errcode.New(errcode.InvalidInput, "%s is not under a .agentx directory; git's normal conflict stands", o.Path)
	}
	var sides [3][]byte
	for i, p := range []string{o.Base, o.Ours, o.Theirs} {
		var err error
		if sides[i], err = os.ReadFile(p); err != nil {
			return fmt.Errorf("merge %s: %w", o.Path, err)
		}
	}
	// git hands an empty file as the base when both sides added the file.
	if len(sides[0]) == 0 {
		sides[0] = nil
	}
	merged, rep, err := statemerge.MergeFile(rel, sides[0], sides[1], sides[2])
	if errors.Is(err, statemerge.ErrUnmergeable) {
		e := errcode.Wrap(errcode.CorruptState, err, "cannot merge %s", o.Path)
		e.Hint = "the file was left as it is; git reports its normal conflict (repair the JSON, then `git add` it)"
		return e
	}
	if err != nil {
		return fmt.Errorf("merge %s: %w", o.Path, err)
	}
	if merged == nil {
		return errcode.New(errcode.InvalidInput, "merging %s leaves nothing; git's normal conflict stands", o.Path)
	}
	if err := os.WriteFile(o.Ours, merged, 0o644); err != nil {
		return fmt.Errorf("write merged %s: %w", o.Path, err)
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

// agentxRelative turns the path git names (relative to the repository's
// top level) into the path below .agentx/ that statemerge classifies.
func agentxRelative(repoPath string) (string, bool) {
	p := filepath.ToSlash(repoPath)
	if rest, ok := strings.CutPrefix(p, ".agentx/"); ok {
		return rest, true
	}
	if i := strings.LastIndex(p, "/.agentx/"); i >= 0 {
		return p[i+len("/.agentx/"):], true
	}
	return "", false
}

func (a *App) abs(p string) string {
	if filepath.IsAbs(p) || a.Cwd == "" {
		return p
	}
	return filepath.Join(a.Cwd, p)
}

// attributesFile is the .gitattributes beside .agentx/, so the lines'
// patterns hold wherever the workspace sits in the repository.
func (a *App) attributesFile() string {
	return filepath.Join(a.Workspace().Root, ".gitattributes")
}

// mergeDriverChange installs (install with --merge-driver) or removes
// (uninstall) the merge driver; nil when there is nothing to report.
func (a *App) mergeDriverChange(ctx context.Context, name string, requested bool) (*githooks.MergeDriverStatus, error) {
	git := gitcmd.Exec{Dir: a.Workspace().Root}
	var st githooks.MergeDriverStatus
	var err error
	switch {
	case name == "install" && requested:
		st, err = githooks.InstallMergeDriver(ctx, git, a.attributesFile())
	case name == "uninstall":
		st, err = githooks.UninstallMergeDriver(ctx, git, a.attributesFile())
		if err == nil && len(st.Changes) == 0 {
			return nil, nil
		}
	default:
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("merge driver: %w", err)
	}
	return &st, nil
}

// mergeDriverStatus is what `hooks status` shows.
func (a *App) mergeDriverStatus(ctx context.Context) (*githooks.MergeDriverStatus, error) {
	st, err := githooks.MergeDriverState(ctx, gitcmd.Exec{Dir: a.Workspace().Root}, a.attributesFile())
	if err != nil {
		return nil, fmt.Errorf("merge driver: %w", err)
	}
	return &st, nil
}

// printMergeDriver writes the merge driver's line(s) of a hooks listing.
func printMergeDriver(w io.Writer, st *githooks.MergeDriverStatus) {
	if st == nil {
		return
	}
	state := "installed"
	switch {
	case st.Installed:
	case st.Driver == "" && len(st.Missing) == len(githooks.MergeAttributes()):
		state = "not installed (hooks install --merge-driver)"
	case st.Driver != githooks.MergeDriverCommand && st.Driver != "":
		state = fmt.Sprintf("other command configured (%q)", st.Driver)
	default:
		state = fmt.Sprintf("incomplete: driver %q, %d attribute line(s) missing (hooks install --merge-driver)", st.Driver, len(st.Missing))
	}
	if len(st.Changes) > 0 {
		state = strings.Join(st.Changes, "; ")
	}
	fmt.Fprintf(w, "  %-12s %s\n", "merge-driver", state)
}
