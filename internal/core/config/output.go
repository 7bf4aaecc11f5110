package config

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// IssueNumberVar is the placeholder of an output template that stands for
// the issue number.
const IssueNumberVar = "{{issue_number}}"

// Outputs is a step's `output`: one template or a list of them. The
// reference tools write one string; a step with two deliverables (an ADR
// and a SPEC) writes a list.
type Outputs []string

// UnmarshalTOML takes a string or an array of strings.
func (o *Outputs) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		*o = Outputs{x}
	case []any:
		out := make(Outputs, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("output: expected strings, found %T", e)
			}
			out = append(out, s)
		}
		*o = out
	default:
		return fmt.Errorf("output: expected a string or a list of strings, found %T", v)
	}
	return nil
}

// checkOutputs refuses an output template that could name a file outside
// the repository or names no issue: the artifact ledger files what a
// commit touches under the issue the path names.
func checkOutputs(file, at string, st *Step) error {
	for _, t := range st.Output {
		switch {
		case t == "":
			return invalid(file, at+" output", "is empty")
		case strings.HasPrefix(t, "/") || strings.Contains(t, "\\"):
			return invalid(file, at+" output", "%q must be a slash-separated path relative to the repository root", t)
		case path.Clean(t) != t || strings.HasPrefix(t, "../") || t == "..":
			return invalid(file, at+" output", "%q must be a clean path inside the repository (no ., .. or doubled /)", t)
		case strings.Count(t, IssueNumberVar) != 1:
			return invalid(file, at+" output", "%q must hold %s exactly once: it names the issue the artifact belongs to", t, IssueNumberVar)
		case strings.Contains(strings.ReplaceAll(t, IssueNumberVar, ""), "{{"):
			return invalid(file, at+" output", "%q holds a placeholder other than %s", t, IssueNumberVar)
		}
	}
	return nil
}

// OutputPath is the template with the issue number filled in.
func OutputPath(template string, issue int) string {
	return strings.Replace(template, IssueNumberVar, strconv.Itoa(issue), 1)
}

// MatchOutput reports whether rel (slash-separated, relative to the
// repository root) is the template filled with some issue number, and
// which.
func MatchOutput(template, rel string) (issue int, ok bool) {
	pre, post, found := strings.Cut(template, IssueNumberVar)
	if !found || len(rel) <= len(pre)+len(post) || !strings.HasPrefix(rel, pre) || !strings.HasSuffix(rel, post) {
		return 0, false
	}
	num := rel[len(pre) : len(rel)-len(post)]
	if num == "" || num[0] == '0' || len(num) > 10 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(num); i++ {
		c := num[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if n > 1_000_000_000 {
		return 0, false
	}
	return n, true
}

// StepOutput is one output template of one step of one workflow.
type StepOutput struct {
	Workflow string
	Step     *Step
	Template string
}

// Outputs lists every step output template of every workflow.
func (s *Set) Outputs() []StepOutput {
	var out []StepOutput
	for i := range s.Workflows {
		w := &s.Workflows[i]
		for j := range w.Steps {
			for _, t := range w.Steps[j].Output {
				out = append(out, StepOutput{Workflow: w.Name, Step: &w.Steps[j], Template: t})
			}
		}
	}
	return out
}

// MatchPath finds the step output rel is, with its issue: the default
// workflow's steps first, then the others in name order.
func (s *Set) MatchPath(rel string) (StepOutput, int, bool) {
	var found StepOutput
	issue, ok := 0, false
	for _, so := range s.Outputs() {
		n, m := MatchOutput(so.Template, rel)
		if !m {
			continue
		}
		if !ok || so.Workflow == s.Config.DefaultWorkflow {
			found, issue, ok = so, n, true
		}
	}
	return found, issue, ok
}

// Step returns the step id of workflow w.
func (w *Workflow) Step(id string) (*Step, bool) {
	for i := range w.Steps {
		if w.Steps[i].ID == id {
			return &w.Steps[i], true
		}
	}
	return nil, false
}
