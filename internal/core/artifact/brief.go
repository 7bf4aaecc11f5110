package artifact

import (
	"fmt"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/config"
)

// AgentStep is the step of wf that agent works on: the first whose agent
// it is.
func AgentStep(wf *config.Workflow, agent string) (*config.Step, bool) {
	for i := range wf.Steps {
		if wf.Steps[i].Agent == agent {
			return &wf.Steps[i], true
		}
	}
	return nil, false
}

// upstreamOf are the artifacts of the steps needs names, through steps that
// write none (their own needs stand in for them).
func upstreamOf(wf *config.Workflow, f *File, needs []string) []*Artifact {
	var ups []*Artifact
	seen := map[string]bool{}
	var walk func(needs []string)
	walk = func(needs []string) {
		for _, n := range needs {
			if seen[n] {
				continue
			}
			seen[n] = true
			for i := range f.Artifacts {
				if a := &f.Artifacts[i]; a.Step == n && a.Workflow == wf.Name {
					ups = append(ups, a)
				}
			}
			if up, ok := wf.Step(n); ok && len(up.Output) == 0 {
				walk(up.Needs)
			}
		}
	}
	walk(needs)
	return ups
}

// Brief is what `hook start` tells an agent of its stage: its step, the
// upstream artifacts by path and status with a [STALE] mark (never their
// contents: the agent reads what it needs), its own artifacts and what
// made them stale. ok is false when there is nothing to say (the agent
// has no step, or the step neither needs nor writes an artifact).
func Brief(wf *config.Workflow, f *File, agent string) (text string, ok bool) {
	st, found := AgentStep(wf, agent)
	if !found {
		return "", false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "You are on step %s of workflow %s for #%d.", st.ID, wf.Name, f.IssueNumber)
	if len(st.Output) > 0 {
		paths := make([]string, len(st.Output))
		for i, t := range st.Output {
			paths[i] = config.OutputPath(t, f.IssueNumber)
		}
		fmt.Fprintf(&b, " Your deliverables: %s.", strings.Join(paths, ", "))
	}
	b.WriteString("\n")
	ups := upstreamOf(wf, f, st.Needs)
	said := len(st.Output) > 0
	if len(ups) > 0 {
		said = true
		b.WriteString("Upstream artifacts (read the files; their contents are not included here):\n")
		for _, a := range ups {
			fmt.Fprintf(&b, "- %s (%s, %s): %s, %s%s\n", a.ID, a.Step, a.Agent, a.Path, f.EffectiveStatus(a), staleMark(f, a))
		}
	}
	var mine []Finding
	header := false
	for i := range f.Artifacts {
		a := &f.Artifacts[i]
		if a.Step != st.ID || a.Workflow != wf.Name {
			continue
		}
		if !header {
			b.WriteString("Your artifacts:\n")
			header, said = true, true
		}
		fmt.Fprintf(&b, "- %s: %s, %s%s\n", a.ID, a.Path, f.EffectiveStatus(a), staleMark(f, a))
		mine = append(mine, f.StaleDeps(a)...)
	}
	for _, fd := range mine {
		fmt.Fprintf(&b, "%s. When it still holds: `agentx-hook artifact ack %s`; else rewrite it.\n", fd.String(), fd.Artifact)
	}
	return strings.TrimRight(b.String(), "\n"), said
}

func staleMark(f *File, a *Artifact) string {
	if len(f.StaleDeps(a)) > 0 {
		return " [STALE]"
	}
	return ""
}
