package audit

import "github.com/agentx-dev/agentx/internal/core/jsonfile"

// ListingDoc is `audit --json`: the listing, its entries never null.
type ListingDoc struct {
	*Listing
	jsonfile.Versioned
}

// Doc is l as `audit --json` prints it.
func (l *Listing) Doc() *ListingDoc {
	if l.Entries == nil {
		l.Entries = []TrailEntry{}
	}
	return &ListingDoc{Listing: l}
}
