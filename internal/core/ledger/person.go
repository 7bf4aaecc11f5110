package ledger

import "strings"

// A record's target may be a person rather than an agent (issue 34): `to`
// is then "human" (anyone) or "human:NAME" (a person of [people]). The
// prefix is the one `--as human:NAME` uses, so the hint "act as
// human:lead" is a command line that works. Old tools see an agent name
// they have no responder for, and leave the record waiting.
const (
	// AnyPerson is the target of a question any person may answer.
	AnyPerson = "human"
	// PersonTargetPrefix starts the target naming one person.
	PersonTargetPrefix = "human:"
)

// PersonTarget reports whether to names a person, and which ("" for
// anyone).
func PersonTarget(to string) (name string, ok bool) {
	if to == AnyPerson {
		return "", true
	}
	if rest, found := strings.CutPrefix(to, PersonTargetPrefix); found && rest != "" {
		return rest, true
	}
	return "", false
}

// ForPerson reports whether the record waits for a person: its target is
// a person (name "" lists every person's) and it owes an answer. Anyone's
// questions are everyone's.
func (r *Record) ForPerson(name string) bool {
	who, ok := PersonTarget(r.To)
	return ok && r.Status.Waiting() && (name == "" || who == "" || who == name)
}
