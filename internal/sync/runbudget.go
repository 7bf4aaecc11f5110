package sync

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// DefaultOperationsPerRun bounds the writes of one run unless the
// operations-per-run input says otherwise (as actions/stale does): with
// the default write-interval a full budget takes five minutes, and stays
// under GitHub's 500 content-creating requests an hour even when the
// next run follows at once (see docs/github-mode.md, Budgets).
const DefaultOperationsPerRun = 400

// ErrBudget is a run that spent its operations-per-run: the issues not
// reached are left unrecorded in the sync state, so the next run picks
// them up.
var ErrBudget = errors.New("operations-per-run spent")

// PlannedOp is one write a run makes (or, dry, would make).
type PlannedOp struct {
	Issue int
	// Action is what is written: "create comment", "edit comment",
	// "delete comment", "create label", "add labels", "remove label".
	Action string
	// Target is the comment id or the label names ("" for a new comment).
	Target string
}

// IssueFailure is an issue the run could not mirror, and why. The run
// went on with the others.
type IssueFailure struct {
	Issue int
	Err   error
}

// FailedIssues is a run that attempted every issue and failed some.
type FailedIssues struct{ Failures []IssueFailure }

func (e *FailedIssues) Error() string {
	var parts []string
	for _, f := range e.Failures {
		parts = append(parts, fmt.Sprintf("#%d: %v", f.Issue, f.Err))
	}
	return fmt.Sprintf("%d issue(s) failed: %s", len(e.Failures), strings.Join(parts, "; "))
}

// stopsRun reports whether err ends the whole run rather than one issue:
// the budget or the wait spent, a permission every issue needs, a state
// branch that refuses writes, a wrong bot-login (every issue would
// repost its mirrors), a cancelled run.
func stopsRun(err error) bool {
	return errors.Is(err, ErrBudget) || errors.Is(err, ErrRateLimited) || errors.Is(err, ErrPermission) || errors.Is(err, ErrWrongBot) ||
		errors.Is(err, ErrProtected) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// spend takes one write from the budget, and records it for a dry run's
// plan and the debug log. It refuses once the budget is spent.
func (s *Syncer) spend(issue int, action, target string) error {
	if s.Budget > 0 && s.writes >= s.Budget {
		return ErrBudget
	}
	s.writes++
	s.debugf("issue #%d: %s %s", issue, action, target)
	if s.DryRun {
		s.Planned = append(s.Planned, PlannedOp{Issue: issue, Action: action, Target: target})
	}
	return nil
}

// ensureLabel creates a managed label the first time it is used, unless
// the repository has it already. A dry run asks the same question (a
// read) and plans the creation, once per run, so its plan counts the
// writes the real run would make against the budget.
func (s *Syncer) ensureLabel(ctx context.Context, issue int, name string, st *State) error {
	if st.LabelEnsured(name) || s.dryLabels[name] {
		return nil
	}
	exists, err := s.GH.LabelExists(ctx, name)
	if err != nil {
		return err
	}
	if !exists {
		if err := s.spend(issue, "create label", name); err != nil {
			return err
		}
		if !s.DryRun {
			if err := s.GH.CreateLabel(ctx, s.labelSpec(name)); err != nil {
				return err
			}
		}
	}
	if s.DryRun {
		if s.dryLabels == nil {
			s.dryLabels = map[string]bool{}
		}
		s.dryLabels[name] = true
		return nil
	}
	st.MarkLabel(name)
	return nil
}

// Writes is the number of writes the run made (dry: would make).
func (s *Syncer) Writes() int { return s.writes }

func (s *Syncer) debugf(format string, args ...any) {
	if s.Debug != nil {
		s.Debug(format, args...)
	}
}
