package compact

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/metrics"
)

// Report is what one compaction of an issue did, or with DryRun would do.
type Report struct {
	Issue         int
	DryRun        bool
	Before, After int
	Plan          Plan
	// Raced says the store dropped the plan: the issue changed while it
	// was made, and nothing was compacted.
	Raced bool
}

// Changed reports whether the issue file changed.
func (r *Report) Changed() bool { return !r.DryRun && r.Before != r.After }

// Counters are the compaction's metrics: one compaction, the issue's
// size before and after.
func (r *Report) Counters() metrics.Counters {
	return metrics.Counters{Compactions: 1, CompactBefore: r.Before, CompactAfter: r.After}
}

// Run plans the compaction of one issue and, unless dryRun, applies it
// through the store (which archives the originals). An issue without
// observations is NOT_FOUND.
func Run(ctx context.Context, st *memory.Store, issue int, opt Options, dryRun bool) (*Report, error) {
	before, err := st.GetByIssue(ctx, issue)
	if err != nil {
		return nil, err
	}
	if len(before) == 0 {
		return nil, errcode.New(errcode.NotFound, "issue #%d has no observations", issue)
	}
	rep := &Report{Issue: issue, DryRun: dryRun, Before: len(before)}
	if dryRun {
		rep.Plan = Make(before, opt)
		rep.After = len(rep.Plan.Keep)
		return rep, nil
	}
	after, archived, err := st.Compact(ctx, issue, func(obs []memory.Observation) ([]memory.Observation, []memory.Observation, error) {
		rep.Plan = Make(obs, opt)
		return rep.Plan.Keep, rep.Plan.Archive, nil
	})
	if err != nil {
		return nil, err // the store's errors name the issue file already
	}
	rep.After = len(after)
	if archived == 0 && len(rep.Plan.Archive) > 0 {
		rep.Plan, rep.After, rep.Raced = Plan{}, len(before), true
	}
	return rep, nil
}

// Line is the report for people; archive is where the originals went.
func (r *Report) Line(archive string) string {
	if r.Raced {
		return fmt.Sprintf("Nothing compacted: issue #%d changed while the plan was made; run it again.", r.Issue)
	}
	verb := "Compacted"
	if r.DryRun {
		verb = "Would compact"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s issue #%d: %d -> %d observations (%d originals merged into %d summaries", verb, r.Issue, r.Before, r.After, len(r.Plan.Archive), r.Plan.Merged)
	if len(r.Plan.Archive) > 0 {
		fmt.Fprintf(&b, ", archived in %s", archive)
	}
	b.WriteString(").")
	return b.String()
}

// Doc is `memory compact --issue N --json`.
type Doc struct {
	After    int    `json:"after"`
	Archive  string `json:"archive"`
	Archived int    `json:"archived"`
	Before   int    `json:"before"`
	DryRun   bool   `json:"dryRun"`
	Issue    int    `json:"issue"`
	jsonfile.Versioned
	Summaries int `json:"summaries"`
}

// Doc is the compaction as `memory compact --json` prints it; archive is
// the archive file's path relative to the workspace root.
func (r *Report) Doc(archive string) *Doc {
	return &Doc{Issue: r.Issue, DryRun: r.DryRun, Before: r.Before, After: r.After,
		Summaries: r.Plan.Merged, Archived: len(r.Plan.Archive), Archive: archive}
}
