package config

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// Workflow is one `.agentx/workflows/*.toml` file. Keys we do not use
// (iterate, max_iterations, completion_criteria, ...) are accepted.
type Workflow struct {
	Name  string `toml:"name"`
	File  string `toml:"-"`
	Steps []Step `toml:"steps"`
}

// Step is one `[[steps]]` entry.
type Step struct {
	ID                     string   `toml:"id"`
	Title                  string   `toml:"title"`
	Agent                  string   `toml:"agent"`
	Needs                  []string `toml:"needs"`
	CanClarify             []string `toml:"can_clarify"`
	ClarifyMaxRounds       *int     `toml:"clarify_max_rounds"`
	ClarifySLAMinutes      *int     `toml:"clarify_sla_minutes"`
	ClarifyBlockingAllowed *bool    `toml:"clarify_blocking_allowed"`
	// Output names the step's deliverables, the stage artifacts
	// (package artifact): path templates relative to the repository root
	// in which {{issue_number}} stands for the issue. One string or a
	// list (the architecture step writes an ADR and a SPEC).
	Output Outputs `toml:"output"`
	// Template is the file the deliverable starts from (the reference
	// AgentX tools' key); kept and shown, not applied.
	Template string `toml:"template"`
	// StatusOnStart and StatusOnComplete are the issue status the step
	// sets when its agent starts and when its artifact is approved: the
	// local issue file's status in Local Mode.
	StatusOnStart    string `toml:"status_on_start"`
	StatusOnComplete string `toml:"status_on_complete"`
}

// Scope is the clarification policy of one step with defaults applied.
type Scope struct {
	Workflow        string
	Step            string
	Agent           string
	CanClarify      []string
	MaxRounds       int
	SLA             time.Duration
	BlockingAllowed bool
}

// Scope applies the reference defaults to the step.
func (s Step) Scope(workflow string, blocking bool) Scope {
	sc := Scope{Workflow: workflow, Step: s.ID, Agent: s.Agent, CanClarify: s.CanClarify,
		MaxRounds: DefaultMaxRoundsBlocking, SLA: DefaultSLAMinutes * time.Minute, BlockingAllowed: true}
	if !blocking {
		sc.MaxRounds = DefaultMaxRoundsNonBlocking
	}
	// Out-of-range values are clamped rather than trusted: a typo must not
	// overflow the SLA into the past or allow unbounded rounds.
	if s.ClarifyMaxRounds != nil && *s.ClarifyMaxRounds > 0 {
		sc.MaxRounds = min(*s.ClarifyMaxRounds, MaxRoundsLimit)
	}
	if s.ClarifySLAMinutes != nil && *s.ClarifySLAMinutes > 0 {
		sc.SLA = time.Duration(min(*s.ClarifySLAMinutes, MaxSLAMinutes)) * time.Minute
	}
	if s.ClarifyBlockingAllowed != nil {
		sc.BlockingAllowed = *s.ClarifyBlockingAllowed
	}
	return sc
}

// Allows reports whether the step may ask agent.
func (sc Scope) Allows(agent string) bool {
	for _, a := range sc.CanClarify {
		if a == agent {
			return true
		}
	}
	return false
}

// ParseWorkflow decodes one workflow file's content.
func ParseWorkflow(path string, data []byte) (Workflow, error) {
	var w Workflow
	if err := checkShape(path, data); err != nil {
		return w, err
	}
	if _, err := toml.Decode(string(data), &w); err != nil {
		return w, tomlErr(path, err)
	}
	if err := checkWorkflow(path, &w); err != nil {
		return w, err
	}
	if w.Name == "" {
		w.Name = strings.TrimSuffix(filepath.Base(path), ".toml")
	}
	w.File = path
	return w, nil
}

// Workflow returns the workflow named name.
func (s *Set) Workflow(name string) (*Workflow, bool) {
	for i := range s.Workflows {
		if s.Workflows[i].Name == name {
			return &s.Workflows[i], true
		}
	}
	return nil, false
}

// ResolveScope finds the step that governs a request by agent: the
// workflow from the flag, else the configured default, else the only one;
// the step from the flag, else the first step whose agent is the requester.
func (s *Set) ResolveScope(workflow, step, agent string, blocking bool) (Scope, error) {
	var wf *Workflow
	switch {
	case workflow != "":
		w, ok := s.Workflow(workflow)
		if !ok {
			return Scope{}, errcode.New(errcode.InvalidInput, "unknown workflow %q (have: %s)", workflow, s.workflowNames())
		}
		wf = w
	case s.Config.DefaultWorkflow != "":
		w, ok := s.Workflow(s.Config.DefaultWorkflow)
		if !ok {
			return Scope{}, errcode.New(errcode.InvalidInput, "default_workflow %q in agentx.toml has no file in .agentx/workflows", s.Config.DefaultWorkflow)
		}
		wf = w
	case len(s.Workflows) == 1:
		wf = &s.Workflows[0]
	case len(s.Workflows) == 0:
		return Scope{}, errcode.New(errcode.ScopeViolation, "no workflows in .agentx/workflows: nobody may clarify").
			WithHint("run `agentx-hook init` to create the default workflows")
	default:
		return Scope{}, errcode.New(errcode.InvalidInput, "several workflows (%s) and no default_workflow: pass --workflow", s.workflowNames())
	}
	for _, st := range wf.Steps {
		if (step != "" && st.ID == step) || (step == "" && st.Agent == agent) {
			if step != "" && st.Agent != "" && st.Agent != agent {
				return Scope{}, errcode.New(errcode.ScopeViolation, "step %q of workflow %q belongs to %q, not %q", st.ID, wf.Name, st.Agent, agent)
			}
			return st.Scope(wf.Name, blocking), nil
		}
	}
	if step != "" {
		return Scope{}, errcode.New(errcode.InvalidInput, "workflow %q has no step %q", wf.Name, step)
	}
	return Scope{}, errcode.New(errcode.ScopeViolation, "agent %q has no step in workflow %q, so it may not clarify", agent, wf.Name)
}

func (s *Set) workflowNames() string {
	names := make([]string, 0, len(s.Workflows))
	for _, w := range s.Workflows {
		names = append(names, w.Name)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
