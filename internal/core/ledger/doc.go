package ledger

import "github.com/agentx-dev/agentx/internal/core/jsonfile"

// ListDoc is `clarify --json`: the records listed; IssueNumber is set
// when one issue's were asked for.
type ListDoc struct {
	Clarifications []Record `json:"clarifications"`
	IssueNumber    *int     `json:"issueNumber,omitempty"`
	// Tampered names the thread entries whose text changed since they
	// were written ("CLR-42-001#2": the record and the entry's index).
	Tampered []string `json:"tampered,omitempty"`
	jsonfile.Versioned
}

// NewListDoc lists recs (of one issue when issue is not nil) with the
// entries TamperedRefs found.
func NewListDoc(issue *int, recs []Record, tampered []string) *ListDoc {
	return &ListDoc{IssueNumber: issue, Clarifications: jsonfile.List(recs), Tampered: tampered}
}
