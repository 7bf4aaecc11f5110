package session

import (
	"context"
	"fmt"
	"github.com/agentx-dev/agentx/internal/core/artifact"

	"github.com/agentx-dev/agentx/internal/core/agentstatus"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/monitor"
)

// view runs the monitor and collects the agent's clarifications. Each part
// fails open on its own: a failed check still lists what can be read.
func (s *session) view(ctx context.Context) {
	res := s.res
	res.unchecked = false
	scanner := monitor.NewScanner(s.d.Workspace)
	var open []ledger.Record
	if rt, err := s.d.Router(); err != nil {
		// Without a configuration nothing can act, but the ledgers still
		// say what waits for the agent.
		s.warn("agentx hook %s: %v", s.in.Event, err)
	} else if rep, err := s.checkWithArtifacts(ctx, &monitor.Monitor{Router: rt, Scanner: scanner}); err != nil {
		s.warn("agentx hook %s: monitor: %v", s.in.Event, err)
	} else {
		res.Report = rep
		if s.d.MonitorWarnings != nil {
			s.d.MonitorWarnings(rep)
		}
		open = rep.Open
	}
	if res.Report == nil || len(res.Report.Actions) > 0 {
		// No check ran, or it changed records: list them as they are now.
		if scan, err := scanner.Scan(); err == nil {
			open = scan.Open
		} else if res.Report == nil {
			s.warn("agentx hook %s: %v", s.in.Event, err)
		}
	}
	res.Waiting, res.Requests = ledger.Inbox(open, s.in.Agent)
	if s.d.RecordMarks != nil && len(res.Waiting)+len(res.Requests) > 0 {
		res.Untrusted = s.d.RecordMarks(append(append([]ledger.Record(nil), res.Waiting...), res.Requests...))
	}
	if s.in.HasIssue {
		l, err := s.d.Ledgers.Load(s.in.Issue)
		if err != nil {
			s.warn("agentx hook %s: %v", s.in.Event, err)
			return
		}
		for _, r := range l.Clarifications {
			if r.Status == ledger.Escalated {
				res.Escalations = append(res.Escalations, r)
			}
		}
	}
}

// blockingWait returns the agent's blocking request that still waits, if any.
func (r *Result) blockingWait() *ledger.Record {
	for i := range r.Requests {
		if rec := &r.Requests[i]; rec.Blocking && rec.Status.Waiting() {
			return rec
		}
	}
	return nil
}

// setStatus updates the agent's status: want, unless its own blocking
// request still waits (then it stays blocked-clarification on it).
func (s *session) setStatus(ctx context.Context, want string) {
	res := s.res
	blocked := res.blockingWait()
	res.Status = want
	if blocked != nil {
		res.Status = agentstatus.BlockedClarification
	}
	err := agentstatus.Update(ctx, s.d.Locks, s.d.Workspace.AgentStatusFile(), func(f *agentstatus.File) error {
		st := f.Ensure(s.in.Agent)
		st.Status = res.Status
		if s.in.HasIssue {
			st.Issue = agentstatus.Ptr(s.in.Issue)
		}
		st.LastActivity = clock.Format(s.d.Clock.Now())
		st.RespondingTo = nil
		if blocked != nil {
			st.Issue = agentstatus.Ptr(blocked.IssueNumber)
			st.ClarificationID = agentstatus.Ptr(blocked.ID)
			st.WaitingOn = agentstatus.Ptr(blocked.To)
		} else {
			st.ClarificationID, st.WaitingOn = nil, nil
		}
		return nil
	})
	if err != nil {
		res.Status = "" // not what agent-status.json says
		s.warn("agentx hook %s: agent status not updated: %v", s.in.Event, err)
	}
}

// verdict is --strict's answer: why the agent must stop while it waits
// on a blocking clarification or one waits for its answer (nil: go on).
func (r *Result) verdict(cli string) *errcode.Error {
	if rec := r.blockingWait(); rec != nil {
		return errcode.New(errcode.InvalidInput, "%s is blocked: clarification %s still waits on %s", r.Agent, rec.ID, rec.To).
			WithHint(fmt.Sprintf("wait for the answer, or settle it: %s clarify resolve %s", cli, rec.ID))
	}
	for _, rec := range r.Waiting {
		if rec.Blocking {
			return errcode.New(errcode.InvalidInput, "%s owes an answer: blocking clarification %s from %s is open", r.Agent, rec.ID, rec.From).
				WithHint(fmt.Sprintf("%s clarify answer %s --body \"<answer>\"", cli, rec.ID))
		}
	}
	return nil
}

// checkWithArtifacts is the session's monitor check: at hook start, the
// session's issue's stale artifacts are announced first (once per
// change; GitHub Mode pulled the other clones' marks before), so the
// check lists the clarification that carries them.
func (s *session) checkWithArtifacts(ctx context.Context, m *monitor.Monitor) (*monitor.Report, error) {
	var notices []monitor.ArtifactNotice
	if s.in.Event == EventStart && s.in.HasIssue && s.in.Issue > 0 {
		var errs []error
		notices, errs = m.NotifyIssue(ctx, &artifact.Store{WS: s.d.Workspace, Locks: s.d.Locks}, s.in.Issue)
		for _, e := range errs {
			s.warn("agentx hook start: artifacts: %v", e)
		}
	}
	rep, err := m.Check(ctx)
	if rep != nil {
		rep.ArtifactNotices = notices
	}
	return rep, err
}
