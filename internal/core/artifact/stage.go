package artifact

import (
	"fmt"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/config"
)

// Step states in a stage.
const (
	StepDone       = "done"        // every output recorded, none stale, rejected or reopened
	StepInProgress = "in-progress" // some output recorded, or one stale, rejected or reopened
	StepCurrent    = "current"     // nothing recorded yet; the step at work
)

// StepState is one step of an issue's stage.
type StepState struct {
	Step  string `json:"step"`
	Agent string `json:"agent"`
	State string `json:"state"`
	// Notes say what keeps an in-progress step from done: "SPEC-42
	// stale", "ADR-42 rejected", "SPEC-42 missing".
	Notes []string `json:"notes,omitempty"`
}

// Stage is where an issue stands in its workflow: derived from the
// workflow, its artifact ledger and its clarifications at each read,
// never stored.
type Stage struct {
	Issue    int         `json:"issue"`
	Workflow string      `json:"workflow"`
	Steps    []StepState `json:"steps"`
	Blocked  []string    `json:"blocked,omitempty"`
}

// DeriveStage computes the stage. active names the agents at work on the
// issue (an open clarification they asked, their status); blocked the
// blocking clarifications open on it. The steps shown are those with
// artifacts, in workflow order, then the step at work: the step of an
// active agent with nothing recorded, else the first step with nothing
// recorded whose needs are all started.
func DeriveStage(wf *config.Workflow, f *File, active map[string]bool, blocked []string) Stage {
	if f == nil {
		return (&Summary{}).Stage(wf, active, blocked)
	}
	sum := f.Summarize()
	return sum.Stage(wf, active, blocked)
}

// Stage is DeriveStage over the ledger's summary (what a scan returns).
func (sum *Summary) Stage(wf *config.Workflow, active map[string]bool, blocked []string) Stage {
	st := Stage{Workflow: wf.Name, Blocked: blocked, Issue: sum.Issue}
	started := map[string]bool{}
	var states []StepState
	for i := range wf.Steps {
		s := &wf.Steps[i]
		ss, ok := stepState(s, sum)
		if ok {
			started[s.ID] = true
			states = append(states, ss)
		}
	}
	current := -1
	for i := range wf.Steps {
		s := &wf.Steps[i]
		if !started[s.ID] && active[s.Agent] {
			current = i
			break
		}
	}
	if current < 0 {
		for i := range wf.Steps {
			s := &wf.Steps[i]
			if started[s.ID] {
				continue
			}
			ready := true
			for _, n := range s.Needs {
				ready = ready && started[n]
			}
			if ready {
				current = i
				break
			}
		}
	}
	if current >= 0 {
		s := &wf.Steps[current]
		states = append(states, StepState{Step: s.ID, Agent: s.Agent, State: StepCurrent})
		started[s.ID] = true
	}
	// Back in workflow order.
	for i := range wf.Steps {
		for j := range states {
			if states[j].Step == wf.Steps[i].ID {
				st.Steps = append(st.Steps, states[j])
			}
		}
	}
	return st
}

// stepState is the state of a step with outputs; ok is false when none
// of them is recorded.
func stepState(s *config.Step, sum *Summary) (StepState, bool) {
	if sum.Empty() || len(s.Output) == 0 {
		return StepState{}, false
	}
	ss := StepState{Step: s.ID, Agent: s.Agent, State: StepDone}
	found := false
	for _, t := range s.Output {
		id := IDFor(config.OutputPath(t, sum.Issue))
		flags, ok := sum.mark(id)
		if !ok {
			ss.Notes = append(ss.Notes, id+" missing")
			continue
		}
		found = true
		switch {
		case flags&MarkStale != 0:
			ss.Notes = append(ss.Notes, id+" stale")
		case flags&MarkReopened != 0:
			ss.Notes = append(ss.Notes, id+" reopened")
		case flags&MarkRejected != 0:
			ss.Notes = append(ss.Notes, id+" rejected")
		}
	}
	if len(ss.Notes) > 0 {
		ss.State = StepInProgress
	}
	return ss, found
}

// String is the stage's line: "feature: prd ✓ → architecture (SPEC-42
// stale) → implement (engineer) [BLOCKED: CLR-42-001]".
func (st Stage) String() string {
	parts := make([]string, 0, len(st.Steps))
	for _, s := range st.Steps {
		switch s.State {
		case StepDone:
			parts = append(parts, s.Step+" ✓")
		case StepInProgress:
			parts = append(parts, fmt.Sprintf("%s (%s)", s.Step, strings.Join(s.Notes, ", ")))
		default:
			parts = append(parts, fmt.Sprintf("%s (%s)", s.Step, s.Agent))
		}
	}
	line := st.Workflow + ": " + strings.Join(parts, " → ")
	if len(st.Blocked) > 0 {
		line += " [BLOCKED: " + strings.Join(st.Blocked, ", ") + "]"
	}
	return line
}

// WorkflowOf is the workflow of an issue's ledger: the one its artifacts
// name (the first), else def.
func WorkflowOf(set *config.Set, f *File, def string) (*config.Workflow, bool) {
	var names []string
	if f != nil {
		for i := range f.Artifacts {
			names = append(names, f.Artifacts[i].Workflow)
		}
	}
	return workflowOf(set, names, def)
}

// WorkflowIn is WorkflowOf over the ledger's summary.
func (sum *Summary) WorkflowIn(set *config.Set, def string) (*config.Workflow, bool) {
	return workflowOf(set, sum.Workflows, def)
}

func workflowOf(set *config.Set, names []string, def string) (*config.Workflow, bool) {
	for _, n := range names {
		if wf, ok := set.Workflow(n); ok {
			return wf, true
		}
	}
	if def == "" && len(set.Workflows) == 1 {
		return &set.Workflows[0], true
	}
	return set.Workflow(def)
}
