package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

// The values a file may hold but must not: a negative duration, count or
// SLA, an agent name that is not one (`../../etc` would become a path in
// the status file and a lock name), an empty responder command, steps
// that need each other in a circle. Each is CORRUPT_STATE naming the file,
// the key and what was wrong, so a mistake is reported where it was made
// instead of misbehaving later.

func invalid(path, key, format string, args ...any) error {
	return errcode.New(errcode.CorruptState, "%s: %s %s", path, key, fmt.Sprintf(format, args...)).
		WithHint("fix the value in the file; `agentx-hook verify` checks the configuration")
}

func checkAgent(path, key, name string) error {
	if err := validate.Agent(key, name); err != nil {
		return errcode.New(errcode.CorruptState, "%s: %v", path, err).
			WithHint("agent names are [a-z0-9][a-z0-9-]*, as in the workflows")
	}
	return nil
}

// checkConfig validates agentx.toml's values.
func checkConfig(path string, c *Config) error {
	for i, a := range c.Agents {
		if err := checkAgent(path, fmt.Sprintf("agents[%d]", i), a); err != nil {
			return err
		}
	}
	for i, a := range c.Priority {
		if err := checkAgent(path, fmt.Sprintf("priority[%d]", i), a); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(c.Responders))
	for n := range c.Responders {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		r := c.Responders[n]
		if err := checkAgent(path, "[responders."+n+"]", n); err != nil {
			return err
		}
		if len(r.Command) == 0 || strings.TrimSpace(r.Command[0]) == "" {
			return invalid(path, "[responders."+n+"] command", "is empty: it needs the program to run, e.g. [\"claude\", \"-p\"]")
		}
		if r.Timeout.Duration < 0 {
			return invalid(path, "[responders."+n+"] timeout", "is negative (%s)", r.Timeout.Duration)
		}
	}
	if c.Clarify.LockStaleSeconds < 0 {
		return invalid(path, "[clarify] lock_stale_seconds", "is negative (%d)", c.Clarify.LockStaleSeconds)
	}
	if c.Memory.MaxTokens != nil && *c.Memory.MaxTokens < 0 {
		return invalid(path, "[memory] max_tokens", "is negative (%d); 0 turns recall off", *c.Memory.MaxTokens)
	}
	if m := c.Memory.Manifest; m != "" && m != ManifestIndex && m != ManifestDelta && m != ManifestReference {
		return invalid(path, "[memory] manifest", "is %q; it is %q (the default), %q or %q", m, ManifestIndex, ManifestDelta, ManifestReference)
	}
	if err := checkRetention(path, c.Retention); err != nil {
		return err
	}
	if err := checkDurations(path, c); err != nil {
		return err
	}
	if c.Hooks.DefaultAgent != "" {
		if err := checkAgent(path, "[hooks] default_agent", c.Hooks.DefaultAgent); err != nil {
			return err
		}
	}
	if err := checkPeople(path, c); err != nil {
		return err
	}
	if k := c.Checkpoints.Keep; k != nil && *k < 0 {
		return invalid(path, "[checkpoints] keep", "is negative (%d); 0 means the default", *k)
	}
	return nil
}

// checkDurations bounds the durations of [github] and [hooks].
func checkDurations(path string, c *Config) error {
	for key, d := range map[string]Duration{"[github] sync_budget": c.GitHub.SyncBudget,
		"[github] sync_timeout": c.GitHub.SyncTimeout, "[hooks] deadline": c.Hooks.Deadline} {
		if d.Duration < 0 {
			return invalid(path, key, "is negative (%s)", d.Duration)
		}
	}
	if d := c.Hooks.Deadline.Duration; d > MaxHookDeadline {
		// What hook --deadline refuses: a hook runs while its host waits.
		return invalid(path, "[hooks] deadline", "is %s; it is at most %s (a hook runs while its host waits)", d, MaxHookDeadline)
	}
	return nil
}

// checkRetention bounds [retention].
func checkRetention(path string, r RetentionSettings) error {
	if d := r.ArchiveAfterDays; d != nil && (*d < 0 || *d > MaxArchiveAfterDays) {
		return invalid(path, "[retention] archive_after_days", "is %d; it is 0 (never archive) to %d days", *d, MaxArchiveAfterDays)
	}
	if n := r.CompactOver; n != nil && (*n < 0 || *n > 0 && *n < MinCompactOver) {
		return invalid(path, "[retention] compact_over", "is %d; it is 0 (never compact) or at least %d observations", *n, MinCompactOver)
	}
	return nil
}

// checkWorkflow validates a workflow's steps.
func checkWorkflow(path string, w *Workflow) error {
	ids := map[string]int{}
	for i, st := range w.Steps {
		at := fmt.Sprintf("steps[%d]", i)
		if st.ID != "" {
			at = fmt.Sprintf("step %q", st.ID)
			ids[st.ID] = i
		}
		if err := checkStep(path, at, &st); err != nil {
			return err
		}
	}
	return checkNeeds(path, w, ids)
}

// checkStep validates one step's agents and limits.
func checkStep(path, at string, st *Step) error {
	if st.Agent != "" {
		if err := checkAgent(path, at+" agent", st.Agent); err != nil {
			return err
		}
	}
	for _, t := range st.CanClarify {
		if err := checkAgent(path, at+" can_clarify", t); err != nil {
			return err
		}
	}
	if r := st.ClarifyMaxRounds; r != nil && *r < 1 {
		return invalid(path, at+" clarify_max_rounds", "is %d; a clarification needs at least 1 round", *r)
	}
	if m := st.ClarifySLAMinutes; m != nil && *m < 1 {
		return invalid(path, at+" clarify_sla_minutes", "is %d; the SLA is at least 1 minute", *m)
	}
	// Past the limit is refused as below it is (Step.Scope still clamps,
	// for a Step that did not come through here): cut without a word, the
	// value asked for was not the one used.
	if r := st.ClarifyMaxRounds; r != nil && *r > MaxRoundsLimit {
		return invalid(path, at+" clarify_max_rounds", "is %d; it is 1 to %d", *r, MaxRoundsLimit)
	}
	if m := st.ClarifySLAMinutes; m != nil && *m > MaxSLAMinutes {
		return invalid(path, at+" clarify_sla_minutes", "is %d; it is 1 to %d minutes", *m, MaxSLAMinutes)
	}
	return checkOutputs(path, at, st)
}

// checkNeeds refuses steps that (transitively) need themselves.
func checkNeeds(path string, w *Workflow, ids map[string]int) error {
	state := make([]int, len(w.Steps)) // 0 new, 1 on the path, 2 done
	var visit func(i int, trail []string) error
	visit = func(i int, trail []string) error {
		switch state[i] {
		case 1:
			return invalid(path, "needs", "form a cycle: %s", strings.Join(append(trail, w.Steps[i].ID), " -> "))
		case 2:
			return nil
		}
		state[i] = 1
		for _, n := range w.Steps[i].Needs {
			if j, ok := ids[n]; ok {
				if err := visit(j, append(trail, w.Steps[i].ID)); err != nil {
					return err
				}
			}
		}
		state[i] = 2
		return nil
	}
	for i := range w.Steps {
		if err := visit(i, nil); err != nil {
			return err
		}
	}
	return nil
}
