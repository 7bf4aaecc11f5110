package ledger

import (
	"fmt"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// ListDoc is `clarify --json`: the records listed; IssueNumber is set
// when one issue's were asked for.
type ListDoc struct {
	Clarifications []Record `json:"clarifications"`
	IssueNumber    *int     `json:"issueNumber,omitempty"`
	// Tampered names the thread entries whose text changed since they
	// were written ("CLR-42-001#2": the record and the entry's index).
	Tampered []string `json:"tampered,omitempty"`
	// Untrusted marks the records verify's checks find rewritten past
	// agentx (record id -> why; issue 32).
	Untrusted map[string]string `json:"untrusted,omitempty"`
	jsonfile.Versioned
}

// NewListDoc lists recs (of one issue when issue is not nil) with the
// entries TamperedRefs finds in them.
func NewListDoc(issue *int, recs []Record) *ListDoc {
	return &ListDoc{IssueNumber: issue, Clarifications: jsonfile.List(recs), Tampered: TamperedRefs(recs)}
}

// TamperedWarning is the one warning naming the tampered entries ("" for
// none): they are shown marked, and the commands that explain and undo it.
func (d *ListDoc) TamperedWarning() string {
	n := len(d.Tampered)
	if n == 0 {
		return ""
	}
	y := "ies"
	if n == 1 {
		y = "y"
	}
	return fmt.Sprintf("%d thread entr%s changed since written (%s): shown marked [TAMPERED]; `agentx-hook verify` says what changed, `agentx-hook checkpoint restore ID` brings back the stored text",
		n, y, strings.Join(d.Tampered, ", "))
}
