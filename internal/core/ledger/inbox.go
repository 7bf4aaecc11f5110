package ledger

import "fmt"

// Inbox is what the open records hold for one agent: the ones waiting for
// its answer (it is their target and owes one) and its own requests. A
// session's start (`hook start`) and the MCP server's clarify_inbox show
// these.
func Inbox(open []Record, agent string) (waiting, requests []Record) {
	for _, r := range open {
		if r.To == agent && r.Status.Waiting() {
			waiting = append(waiting, r)
		}
		if r.From == agent {
			requests = append(requests, r)
		}
	}
	return waiting, requests
}

// OpenTexts are the topics and thread entries of the ledger's open
// clarifications: what a recall takes keywords from.
func (l *Ledger) OpenTexts() []string {
	var texts []string
	for _, r := range l.Clarifications {
		if !r.Status.Open() {
			continue
		}
		texts = append(texts, r.Topic)
		for _, t := range r.Thread {
			texts = append(texts, t.Body)
		}
	}
	return texts
}

// TamperedRefs names the thread entries of recs whose text changed since
// they were written ("CLR-42-001#2": the record and the entry's index).
// Entries the old tools wrote carry no hash: they are unhashed, not
// tampered.
func TamperedRefs(recs []Record) []string {
	var out []string
	for i := range recs {
		for _, j := range recs[i].TamperedEntries() {
			out = append(out, fmt.Sprintf("%s#%d", recs[i].ID, j))
		}
	}
	return out
}

// Records reads every ledger of the workspace and keeps the records keep
// accepts. A ledger that does not load is left out and its error returned
// in skipped, for the caller to report; it never stops the others.
func (s *Store) Records(keep func(*Record) bool) (recs []Record, skipped []error, err error) {
	loaded, err := s.LoadAll()
	if err != nil {
		return nil, nil, err
	}
	for _, l := range loaded {
		if l.Err != nil {
			skipped = append(skipped, l.Err)
			continue
		}
		for i := range l.Ledger.Clarifications {
			if keep(&l.Ledger.Clarifications[i]) {
				recs = append(recs, l.Ledger.Clarifications[i])
			}
		}
	}
	return recs, skipped, nil
}
