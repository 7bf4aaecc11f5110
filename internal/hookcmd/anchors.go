package hookcmd

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/memanchor"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/verify"
)

// benchNoAnchors is the benchmark knob that leaves the read paths'
// audit-trail check out (docs/PERFORMANCE.md, issue 32): set to 1 it
// measures what the check costs. It is no user option: docs/verify.md
// names it as a benchmark's only.
const benchNoAnchors = "AGENTX_BENCH_NO_ANCHORS"

// anchors is the index read paths check observations with against the
// audit trail (nil under the benchmark knob); write lets it save what it
// brought up to date (commands that write anyway: readers never write).
func (a *App) anchors(write bool) *memanchor.Index {
	if a.Getenv(benchNoAnchors) == "1" {
		return nil
	}
	x := memanchor.For(a.Workspace())
	x.Write = write
	return x
}

// refreshAnchors brings the anchors index up to date after a command that
// rewrote the store (every issue file judged), so the readers that follow
// find it current: they never write it (issue 14).
func (a *App) refreshAnchors(ctx context.Context) {
	if x := a.anchors(true); x != nil {
		if err := x.Refresh(ctx); err != nil {
			a.warn("anchors index not brought up to date: %v", err)
		}
	}
}

// anchorMarks checks issues' files against the audit trail; a failure is
// a warning and marks nothing (verify reports the trail itself).
func (a *App) anchorMarks(ctx context.Context, issues []int) *memanchor.Report {
	return a.anchorMarksOf(ctx, issues, nil)
}

// anchorMarksOf is anchorMarks with the stat data of issue files the
// caller read its rows from (memory.Store.SearchFiles; nil: none), which
// the check takes instead of stat'ing those files again.
func (a *App) anchorMarksOf(ctx context.Context, issues []int, known memory.FileStats) *memanchor.Report {
	x := a.anchors(false)
	if x == nil || len(issues) == 0 {
		return nil
	}
	x.Known = known
	rep, err := x.Check(ctx, issues)
	if err != nil {
		a.warn("not checked against the audit trail: %v (`agentx-hook verify` checks it)", err)
		return nil
	}
	return rep
}

// recordMarks are verify's checks of the ledgers that hold recs (the
// record hash, the comparison with the checkpoint verify compares with,
// named by the anchors index's reading of the trail): record id -> why
// it is not to be believed. Nil under the benchmark knob.
//
// The clarify commands and hook start write anyway (the monitor runs):
// the index they bring up to date is saved.
func (a *App) recordMarks(ctx context.Context, recs []ledger.Record) map[string]string {
	x := a.anchors(true)
	if x == nil {
		return nil
	}
	return verify.MarkRecords(ctx, x, a.Workspace(), recs)
}

// rowIssues are the issues rows come from.
func rowIssues(rows []memory.Row) []int {
	out := make([]int, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.IssueNumber)
	}
	return out
}

// untrustedLine is how text output marks an observation the trail does not
// account for.
func untrustedLine(m *memory.Mark) string {
	return fmt.Sprintf("[UNTRUSTED: %s: %s]", m.Code, m.Reason)
}

// untrustedWarning names the records shown marked [UNTRUSTED] ("" for none).
func untrustedWarning(marks map[string]string) string {
	if len(marks) == 0 {
		return ""
	}
	ids := slices.Sorted(maps.Keys(marks))
	return fmt.Sprintf("%d record(s) rewritten past agentx (%s): shown marked [UNTRUSTED]; `agentx-hook verify` names what changed, `agentx-hook checkpoint restore ID` brings back the recorded version",
		len(ids), strings.Join(ids, ", "))
}
