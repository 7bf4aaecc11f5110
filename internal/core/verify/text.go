package verify

import (
	"fmt"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/gitstore"
	"github.com/agentx-dev/agentx/internal/core/shorten"
)

// What `agentx-hook verify` prints and fails with, decided here; the
// command writes it.

// docsURL lists the problem codes.
const docsURL = "https://github.com/agentx-dev/agentx/blob/main/docs/verify.md"

// Text is the problem in one line: severity, code, where (path, line,
// byte offset, id), message, and the repair that fixes it.
func (p Problem) Text() string {
	var where strings.Builder
	where.WriteString(p.Path)
	if p.Line > 0 {
		fmt.Fprintf(&where, ":%d", p.Line)
	}
	if p.Offset >= 0 {
		fmt.Fprintf(&where, " @%d", p.Offset)
	}
	if p.ID != "" {
		where.WriteString(" " + p.ID)
	}
	line := fmt.Sprintf("%-5s %s %s: %s", p.Severity, p.Code, where.String(), p.Message)
	if p.Repair != "" {
		line += " [repairable: " + p.Repair + "]"
	}
	return line
}

// Text is what a repair did, or why it failed.
func (d Done) Text() string {
	if d.Err != "" {
		return fmt.Sprintf("repair failed %s %s: %s: %s", d.Code, d.Path, d.Action, d.Err)
	}
	return fmt.Sprintf("repaired %s %s: %s", d.Code, d.Path, d.Action)
}

// status is "ok" or how many problems there are.
func (r *Report) status() string {
	if n := r.Errors(); n > 0 {
		return fmt.Sprintf("%d problem%s", n, plural(n))
	}
	return "ok"
}

// problemsText is one line per problem.
func (r *Report) problemsText(b *strings.Builder) {
	for _, p := range r.Problems {
		b.WriteString(p.Text() + "\n")
	}
}

// Text is a workspace's check as `verify` prints it: the repairs made,
// the problems, and a summary of what was checked.
func (r *Report) Text(repairs []Done) string {
	var b strings.Builder
	for _, d := range repairs {
		b.WriteString(d.Text() + "\n")
	}
	r.problemsText(&b)
	c := r.Counts
	fmt.Fprintf(&b, "verify: %s: %d ledgers (%d records, %d entries), %d observations in %d issue files, %d archived, %d audit lines\n",
		r.status(), c.Ledgers, c.Records, c.Entries, c.Observations, c.IssueFiles, c.Archived, c.AuditLines)
	return b.String()
}

// BranchText is the state branch's check at ref (commit) as `verify
// --state-branch` prints it.
func (r *Report) BranchText(ref, commit string) string {
	var b strings.Builder
	r.problemsText(&b)
	c := r.Counts
	fmt.Fprintf(&b, "verify: %s: %s at %s: %d ledgers (%d records, %d entries), %d observations in %d issue files, %d archived, %d audit lines in %d trails\n",
		r.status(), ref, shorten.Runes(commit, 12), c.Ledgers, c.Records, c.Entries, c.Observations, c.IssueFiles, c.Archived, c.AuditLines, c.Trails)
	return b.String()
}

// Failure is the error a workspace's check ends with (nil when nothing is
// wrong): how many problems under agentxDir, and whether --repair (not
// asked for, repairAsked false) would fix some.
func (r *Report) Failure(agentxDir string, repairAsked bool) *errcode.Error {
	errs := r.Errors()
	if errs == 0 {
		return nil
	}
	failure := errcode.New(errcode.CorruptState, "verify found %d problem%s under %s", errs, plural(errs), agentxDir)
	if r.hasRepair() && !repairAsked {
		failure.Hint = "`agentx-hook verify --repair` fixes those marked repairable; the others need a person"
	} else {
		failure.Hint = "agentx never edits a ledger record or an observation to fix it: the problems listed need a person (see " + docsURL + "; `agentx-hook checkpoint list` shows states to restore)"
	}
	return failure
}

// BranchFailure is the error the state branch's check at ref (commit)
// ends with (nil when nothing is wrong).
func (r *Report) BranchFailure(ref, commit string) *errcode.Error {
	errs := r.Errors()
	if errs == 0 {
		return nil
	}
	failure := errcode.New(errcode.CorruptState, "verify found %d problem%s on the state branch %s (commit %s)", errs, plural(errs), ref, shorten.Runes(commit, 12))
	failure.Hint = "the files are as the branch's history has them: `git log -p " + ref + " -- PATH` shows who changed one (see " + docsURL + ")"
	return failure
}

// hasRepair reports whether an error of r has a repair.
func (r *Report) hasRepair() bool {
	for _, p := range r.Problems {
		if p.Severity == Error && p.Repair != "" {
			return true
		}
	}
	return false
}

// RepairEntry is the audit line of the repairs made (ok false for none).
func RepairEntry(repairs []Done) (audit.Entry, bool) {
	if len(repairs) == 0 {
		return audit.Entry{}, false
	}
	var paths []string
	for _, d := range repairs {
		if d.Err == "" {
			paths = append(paths, d.Path)
		}
	}
	return audit.Entry{Op: "verify.repair", IDs: paths,
		Detail: fmt.Sprintf("%d repairs (%d failed)", len(paths), len(repairs)-len(paths))}, true
}

// GitDirs are the git directories of the repository holding root (its
// own and the common one), where verify looks for killed writers'
// temporaries (Options.GitDirs); none outside git.
func GitDirs(root string) []string {
	r, err := gitstore.Open(root)
	if err != nil {
		return nil
	}
	return []string{r.GitDir, r.CommonDir}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
