package protocol

import (
	"strings"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

// personTarget reads a request's --to (issue 34): "human" asks anyone,
// "human:NAME" the configured person NAME, and a bare NAME the person
// when no agent has that name (an agent keeps its name; config warns).
// It returns the target as the record stores it and whether it is a
// person; anything else is left to the agent checks.
func personTarget(to string, cfg *config.Set) (string, bool, error) {
	if to == ledger.AnyPerson {
		return to, true, nil
	}
	if name, ok := strings.CutPrefix(to, PersonPrefix); ok {
		if err := validate.Person("--to "+PersonPrefix+"NAME", name); err != nil {
			return "", false, err
		}
		if _, known := cfg.Person(name); !known {
			return "", false, errcode.New(errcode.InvalidInput, "--to: unknown person %q (configured: %s)", name, PeopleList(cfg)).
				WithHint("name people in [people] of .agentx/agentx.toml (lead = \"@their-handle\"), or ask anyone: --to human")
		}
		return ledger.PersonTargetPrefix + name, true, nil
	}
	if _, known := cfg.Person(to); known && !cfg.KnownAgents()[to] {
		return ledger.PersonTargetPrefix + to, true, nil
	}
	return to, false, nil
}

// PeopleList names the configured people for a message about an unknown
// one ("none" when [people] is empty).
func PeopleList(cfg *config.Set) string {
	if names := cfg.PersonNames(); len(names) > 0 {
		return strings.Join(names, ", ")
	}
	return "none"
}

// peopleHint is the hint of an unknown target: a person may be meant.
func peopleHint(cfg *config.Set, isTarget bool) string {
	if !isTarget {
		return ""
	}
	if names := cfg.PersonNames(); len(names) > 0 {
		return "to ask a person: --to human (anyone) or --to one of " + strings.Join(names, ", ")
	}
	return "to ask a person: --to human, or name them in [people] of .agentx/agentx.toml"
}
