package ledger

import (
	"sort"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

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

// PeopleInboxDoc is what waits for people (`clarify inbox --human`): the
// questions addressed to them (Person's, with anyone's, when Person is
// set), blocking first then oldest, and the escalated records a person
// settles.
type PeopleInboxDoc struct {
	Person    string   `json:"person,omitempty"`
	Waiting   []Record `json:"waiting"`
	Escalated []Record `json:"escalated"`
	jsonfile.Versioned
}

// PeopleInbox sorts recs (every record read) into what waits for person
// ("" for every person).
func PeopleInbox(recs []Record, person string) *PeopleInboxDoc {
	d := &PeopleInboxDoc{Person: person, Waiting: []Record{}, Escalated: []Record{}}
	for _, r := range recs {
		switch {
		case r.ForPerson(person):
			d.Waiting = append(d.Waiting, r)
		case r.Status == Escalated:
			d.Escalated = append(d.Escalated, r)
		}
	}
	sort.SliceStable(d.Waiting, func(i, j int) bool {
		a, b := d.Waiting[i], d.Waiting[j]
		if a.Blocking != b.Blocking {
			return a.Blocking
		}
		return a.CreatedTime().Before(b.CreatedTime())
	})
	return d
}
