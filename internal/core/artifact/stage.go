package artifact

import (
	"slices"
	"strconv"
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

// Stage is DeriveStage over the ledger's summary (what a scan returns;
// `ready` derives 500 of them, so no maps: a workflow has a handful of
// steps).
func (sum *Summary) Stage(wf *config.Workflow, active map[string]bool, blocked []string) Stage {
	st := Stage{Workflow: wf.Name, Blocked: blocked, Issue: sum.Issue}
	num := strconv.Itoa(sum.Issue)
	states := make([]StepState, len(wf.Steps))
	started := make([]bool, len(wf.Steps))
	isStarted := func(id string) bool {
		for i := range wf.Steps {
			if wf.Steps[i].ID == id {
				return started[i]
			}
		}
		return false
	}
	for i := range wf.Steps {
		states[i], started[i] = stepState(&wf.Steps[i], sum, num)
	}
	current := -1
	for i := range wf.Steps {
		if !started[i] && active[wf.Steps[i].Agent] {
			current = i
			break
		}
	}
	for i := 0; current < 0 && i < len(wf.Steps); i++ {
		if started[i] {
			continue
		}
		ready := true
		for _, n := range wf.Steps[i].Needs {
			ready = ready && isStarted(n)
		}
		if ready {
			current = i
		}
	}
	if current >= 0 {
		s := &wf.Steps[current]
		states[current], started[current] = StepState{Step: s.ID, Agent: s.Agent, State: StepCurrent}, true
	}
	for i := range wf.Steps {
		if started[i] {
			st.Steps = append(st.Steps, states[i])
		}
	}
	return st
}

// stepState is the state of a step with outputs; ok is false when none
// of them is recorded.
func stepState(s *config.Step, sum *Summary, num string) (StepState, bool) {
	if sum.Empty() || len(s.Output) == 0 {
		return StepState{}, false
	}
	ss := StepState{Step: s.ID, Agent: s.Agent, State: StepDone}
	found := false
	for _, t := range s.Output {
		// IDFor(OutputPath(t, issue)) without building the path: the id
		// is the template's base name less its extension, the number in
		// its place (500 stages a `ready`).
		pre, post, has := strings.Cut(templateID(t), config.IssueNumberVar)
		n := num
		if !has { // the number is in a directory or the extension: not in the id
			n = ""
		}
		flags, id, ok := sum.markOf(pre, n, post)
		if !ok {
			ss.Notes = append(ss.Notes, pre+n+post+" missing")
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

// templateID is IDFor of an output template: its base name less the
// extension, the placeholder kept (the number holds no '/' or '.', so
// filling it in later gives the same id).
func templateID(t string) string {
	base := t[strings.LastIndexByte(t, '/')+1:]
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return base
}

// String is the stage's line: "feature: prd ✓ → architecture (SPEC-42
// stale) → implement (engineer) [BLOCKED: CLR-42-001]".
func (st Stage) String() string {
	var b strings.Builder
	b.Grow(64)
	b.WriteString(st.Workflow)
	b.WriteString(": ")
	for i, s := range st.Steps {
		if i > 0 {
			b.WriteString(" → ")
		}
		b.WriteString(s.Step)
		switch s.State {
		case StepDone:
			b.WriteString(" ✓")
		case StepInProgress:
			b.WriteString(" (" + strings.Join(s.Notes, ", ") + ")")
		default:
			b.WriteString(" (" + s.Agent + ")")
		}
	}
	if len(st.Blocked) > 0 {
		b.WriteString(" [BLOCKED: " + strings.Join(st.Blocked, ", ") + "]")
	}
	return b.String()
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

// Status is the issue status the stage stands for, from the workflow
// steps' status_on_start and status_on_complete: walking the stage's
// steps in order, a step whose outputs are all approved (and none stale)
// stands for its status_on_complete, any other step shown (in progress,
// or the step at work) for its status_on_start; the last step that names
// one wins. So the step at work sets the status, as `hook start` of its
// agent does in Local Mode, and a workflow whose shown steps are all
// approved ends in the last one's status_on_complete. "" when no step
// names a status.
func (st Stage) Status(wf *config.Workflow, f *File) string {
	status := ""
	for _, s := range st.Steps {
		cs, ok := wf.Step(s.Step)
		if !ok {
			continue
		}
		next := cs.StatusOnStart
		if s.State == StepDone && allApproved(cs, f) {
			next = cs.StatusOnComplete
		}
		if next != "" {
			status = next
		}
	}
	return status
}

// allApproved reports whether every output of step is recorded in f and
// approved (a stale one is not: EffectiveStatus).
func allApproved(step *config.Step, f *File) bool {
	if f == nil || len(step.Output) == 0 {
		return false
	}
	for _, t := range step.Output {
		a := f.Find(IDFor(config.OutputPath(t, f.IssueNumber)))
		if a == nil || f.EffectiveStatus(a) != Approved {
			return false
		}
	}
	return true
}

// Statuses lists every status the workflows of set name (status_on_start
// and status_on_complete), sorted, each once: the issue statuses agentx
// manages (GitHub Mode's labels).
func Statuses(set *config.Set) []string {
	seen := map[string]bool{}
	var out []string
	for i := range set.Workflows {
		for j := range set.Workflows[i].Steps {
			s := &set.Workflows[i].Steps[j]
			for _, v := range []string{s.StatusOnStart, s.StatusOnComplete} {
				if v != "" && !seen[v] {
					seen[v] = true
					out = append(out, v)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}
