package session

import (
	"context"
	"os"

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/localissue"
)

// stageSection is the agent's place in the issue's workflow: its step,
// the upstream artifacts by path and status, [STALE] where an upstream
// changed after its artifact was written (one ledger file read). In
// Local Mode the step's status_on_start is written to the local issue
// file. ok is false with nothing to say.
func (s *session) stageSection(ctx context.Context) (Section, bool) {
	cfg := s.d.Config
	if cfg == nil || !s.in.HasIssue || s.in.Issue <= 0 || s.in.Agent == "" {
		return Section{}, false
	}
	f, err := s.artifacts()
	if err != nil {
		s.warn("agentx hook start: %v", err)
		return Section{}, false
	}
	wf, ok := artifact.WorkflowOf(cfg, f, cfg.Config.DefaultWorkflow)
	if !ok {
		return Section{}, false
	}
	if st, ok := artifact.AgentStep(wf, s.in.Agent); ok && st.StatusOnStart != "" && !s.githubMode() {
		s.statusOnStart(ctx, st.StatusOnStart)
	}
	if len(f.Artifacts) == 0 || !hasOutputs(wf.Steps) {
		return Section{}, false // an issue no step has written for yet
	}
	text, ok := artifact.Brief(wf, f, s.in.Agent)
	if !ok {
		return Section{}, false
	}
	// Answers given about an artifact of this issue that changed since.
	for _, recs := range [][]ledger.Record{s.res.Waiting, s.res.Requests} {
		for i := range recs {
			if ab, ok := artifact.ParseAbout(recs[i].ExtraValue(artifact.AboutKey)); ok {
				if now, changed := ab.Outdated(f); changed {
					text += "\n[MAY BE OUTDATED] " + artifact.OutdatedLine(recs[i].ID, string(recs[i].Status), ab, now)
				}
			}
		}
	}
	return Section{Title: "Your stage", Body: text}, true
}

func hasOutputs(steps []config.Step) bool {
	for i := range steps {
		if len(steps[i].Output) > 0 {
			return true
		}
	}
	return false
}

// statusOnStart writes the step's status_on_start into the issue's local
// file, when the team keeps one.
func (s *session) statusOnStart(ctx context.Context, status string) {
	for _, p := range localissue.Paths(s.d.Workspace.IssuesDir(), s.in.Issue) {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if err := localissue.SetStatus(ctx, s.d.Locks, p, status); err != nil {
			s.warn("agentx hook start: issue #%d: status %q not written: %v", s.in.Issue, status, err)
		}
		return
	}
}

// neededSteps are the steps the agent's step needs on the session's issue,
// through steps without outputs: recall favours their decisions.
func (s *session) neededSteps() []string {
	cfg := s.d.Config
	if cfg == nil || !s.in.HasIssue || s.in.Agent == "" {
		return nil
	}
	var f *artifact.File
	if s.in.Issue > 0 {
		f, _ = s.artifacts() // unreadable: the default workflow's steps
	}
	wf, ok := artifact.WorkflowOf(cfg, f, cfg.Config.DefaultWorkflow)
	if !ok {
		return nil
	}
	st, ok := artifact.AgentStep(wf, s.in.Agent)
	if !ok {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	var walk func(needs []string)
	walk = func(needs []string) {
		for _, n := range needs {
			if seen[n] {
				continue
			}
			seen[n] = true
			out = append(out, n)
			if up, ok := wf.Step(n); ok {
				walk(up.Needs)
			}
		}
	}
	walk(st.Needs)
	return out
}

// artifacts is the session's issue's artifact ledger, read once (after
// hook start's notices were recorded).
func (s *session) artifacts() (*artifact.File, error) {
	if s.art != nil {
		return s.art, nil
	}
	f, err := (&artifact.Store{WS: s.d.Workspace, Locks: s.d.Locks}).Load(s.in.Issue)
	if err == nil {
		s.art = f
	}
	return f, err
}
