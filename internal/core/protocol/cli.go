package protocol

import (
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

// Args is a verb's arguments after the id, as usage texts show them.
func (v VerbInfo) Args() string {
	text := "--" + v.Flag + " TEXT"
	if !v.NeedsText {
		text = "[" + text + "]"
	}
	return text + " [--as " + v.ByHelp + "]"
}

// CheckID checks the id a verb is given on a command line. With inIssue
// (the ledger was named) any record id of the old tools' shapes is
// accepted; without it the id must name its issue (CLR-<issue>-<NNN>),
// and an id of another shape is refused with the way to name the ledger.
func (v VerbInfo) CheckID(id string, inIssue bool) error {
	if inIssue {
		return validate.RecordID(id)
	}
	if _, err := validate.ClarificationID(id); err != nil {
		if validate.RecordID(id) == nil && !strings.HasPrefix(id, "CLR-") {
			return errcode.New(errcode.InvalidInput, "clarification id %q is not shaped CLR-<issue>-<NNN>: pass --issue N to name the ledger that holds it", id).
				WithHint("ids of other shapes were written by the old tools: `agentx-hook clarify " + string(v.Verb) + " " + id + " --issue N`")
		}
		return err
	}
	return nil
}

// Op is the operation a command line asks of the verb: by is --as (""
// for the verb's default actor), issue the ledger named with --issue
// (inIssue), text the --body or --summary.
func (v VerbInfo) Op(id, by, text string, issue int, inIssue bool) Op {
	if by == "" {
		by = v.DefaultBy
	}
	return Op{Verb: v.Verb, ID: id, By: by, Text: text, Issue: issue, InIssue: inIssue}
}

// Past is what a verb name reads as in "CLR-1-001 answered"; a name that
// is no verb reads as itself.
func Past(name string) string {
	if v, ok := Lookup(name); ok {
		return v.Past
	}
	return name
}
