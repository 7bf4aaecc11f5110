package protocol

import (
	"fmt"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// Who may act on a record (issue 32). The rule lives here, in the pure
// core, so every surface inherits it: the CLI's --as, the MCP server (which
// acts as its own agent), the router's responders and the Action's
// /clarify commands.
//
//   - answer: the record's target;
//   - ask (a follow-up): the requester;
//   - resolve, abandon: the requester or the target;
//   - escalate: the requester, the target or the hub (agent-x: a failed
//     responder, the monitor);
//   - a person may do any of them, explicitly: `--as human:NAME` on the
//     CLI (audited under that name, PersonPrefix kept), or Op.Person when
//     the caller checked the person's permission itself (the Action checks
//     a commenter's association or allow-list first).
//
// An operation naming nobody (By "", or the CLI's "cli" default) is the
// verb's default party, as it always was: the terminal's user. A refusal
// is SCOPE_VIOLATION and says who may act.

// PersonPrefix marks a person acting by name: `--as human:alice`. It is
// the prefix of a record's person target (ledger.PersonTargetPrefix), so
// that the person asked and the person answering read the same.
const PersonPrefix = ledger.PersonTargetPrefix

// CLIActor is who the CLI names when no --as is given (VerbInfo.DefaultBy).
const CLIActor = "cli"

// AsPerson reports whether by names a person (`human:NAME`) and the name.
func AsPerson(by string) (string, bool) {
	if !strings.HasPrefix(by, PersonPrefix) {
		return "", false
	}
	return strings.TrimSpace(by[len(PersonPrefix):]), true
}

// personOp is op with a `human:NAME` By read: By is NAME and Person set.
func personOp(op Op) (Op, error) {
	name, ok := AsPerson(op.By)
	if !ok {
		return op, nil
	}
	if name == "" {
		return op, errcode.New(errcode.InvalidInput, "--as %s needs a name: --as %sNAME", PersonPrefix, PersonPrefix)
	}
	op.By, op.Person = name, true
	return op, nil
}

// Authorize refuses op on rec when op.By may not perform it (see above).
func Authorize(rec *ledger.Record, op Op) error {
	by := op.By
	if op.Person || by == "" || by == CLIActor {
		return nil
	}
	var may []string
	switch op.Verb {
	case Answer:
		may = []string{rec.To}
	case Ask:
		may = []string{rec.From}
	case Resolve, Abandon:
		may = []string{rec.From, rec.To}
	case Escalate:
		may = []string{rec.From, rec.To, ledger.HubName}
	default:
		return nil // the monitor's verbs act as the hub
	}
	for _, m := range may {
		// A person's target is theirs only through --as human:NAME
		// (Person, above): an agent named like the person, or `--as
		// human` read as a name, is not that person.
		if _, person := ledger.PersonTarget(m); by == m && !person {
			return nil
		}
	}
	who := strings.Join(may, " or ")
	if op.Verb == Escalate {
		who = strings.Join(may[:2], " or ") + " (or the hub)"
	}
	hint := fmt.Sprintf("act as %s, or a person decides explicitly: --as %sNAME (audited)", may[0], PersonPrefix)
	if name, person := ledger.PersonTarget(may[0]); person {
		if name == "" {
			name = "NAME"
		}
		hint = fmt.Sprintf("a person answers: --as %s%s (audited)", PersonPrefix, name)
	}
	return errcode.New(errcode.ScopeViolation, "%s may not %s %s: only %s may (%s -> %s)", by, op.Verb, rec.ID, who, rec.From, rec.To).
		WithHint(hint)
}
