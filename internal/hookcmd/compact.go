package hookcmd

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/compact"
	"github.com/agentx-dev/agentx/internal/core/metrics"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

const compactUsage = `memory compact --issue N [--older-than D] [--dry-run] [--json]
       agentx-hook memory compact --auto [--json]

Merges related observations of an issue (same category, overlapping content)
into summary observations until the issue holds at most half as many, and
moves the originals to .agentx/memory/archive/issue-N-archived.json. A
summary keeps its members' category and text, so search still finds every
decision; nothing is ever deleted.

--auto applies the [retention] policy of agentx.toml to the whole store at
once (the hooks apply it one issue file per hook finish): observations not
recalled for archive_after_days move to the archive (memory search
--archived finds them, memory restore ID brings one back), and an issue
holding more than compact_over observations is compacted.`

// memoryCompactOptions is `memory compact`'s command line.
type memoryCompactOptions struct {
	Issue     int
	OlderThan string // a duration (7d, 48h) or a date
	DryRun    bool
	Auto      bool // --auto: the retention policy on every issue (retention.go)
	jsonFlag
}

func parseMemoryCompact(a *App, args []string) (*memoryCompactOptions, error) {
	o := &memoryCompactOptions{}
	flags := newFlags(a, "memory compact", compactUsage)
	issueFlag := flags.String("issue", "", "issue `N`")
	flags.StringVar(&o.OlderThan, "older-than", "", "only merge observations older than `D` (7d, 48h; default: all)")
	flags.BoolVar(&o.DryRun, "dry-run", false, "print the plan, change nothing")
	flags.BoolVar(&o.Auto, "auto", false, "apply the [retention] policy to every issue")
	o.register(flags)
	if err := parseFlagsOnly(flags, args); err != nil {
		return o, err
	}
	if o.Auto {
		if *issueFlag != "" || o.OlderThan != "" || o.DryRun {
			return o, usagef("memory compact --auto takes no --issue, --older-than or --dry-run")
		}
		return o, nil
	}
	if *issueFlag == "" {
		return o, usagef("memory compact needs --issue N or --auto")
	}
	var err error
	o.Issue, err = validate.LedgerIssue(*issueFlag) // issue 0: the old chat integration's, maintained too
	return o, err
}

func runMemoryCompact(ctx context.Context, a *App, o *memoryCompactOptions) error {
	if o.Auto {
		return runRetentionAll(ctx, a, o)
	}
	issue := o.Issue
	opt := compact.Options{Now: a.Clock.Now()}
	if o.OlderThan != "" {
		t, err := clock.ParseWhen(o.OlderThan, opt.Now)
		if err != nil {
			return err
		}
		opt.MinAge = opt.Now.Sub(t)
	}
	if !o.DryRun {
		autoCheckpoint(ctx, a, fmt.Sprintf("before memory compact --issue %d", issue))
	}
	a.recallService().Fold(ctx) // archived originals keep their recall counts
	store := a.Memory()
	rep, err := compact.Run(ctx, store, issue, opt, o.DryRun)
	if err != nil {
		return err
	}
	if rep.Raced && !o.JSON {
		fmt.Fprintln(a.Stdout, rep.Line(""))
		return nil
	}
	if rep.Changed() {
		a.commandMetrics(ctx, metrics.Line{Command: "memory compact", Issue: issue, Counters: rep.Counters()})
	}
	archive, _ := filepath.Rel(a.Workspace().Root, store.ArchivePath(issue))
	return a.emit(o.JSON, rep.Doc(filepath.ToSlash(archive)), rep.Line(filepath.ToSlash(archive))+"\n")
}
