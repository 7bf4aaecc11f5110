package monitor

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/protocol"
)

// UndeliveredItem is an answer (resolution, escalation) that no session
// of the requester has received past the record's SLA (issue 34): the
// agent that asked may never learn it.
type UndeliveredItem struct {
	ID    string           `json:"id"`
	Issue int              `json:"issueNumber"`
	From  string           `json:"from"`
	To    string           `json:"to"`
	Topic string           `json:"topic"`
	Type  ledger.EntryType `json:"type"`
	By    string           `json:"by"`
	At    string           `json:"at"`
}

// Undelivered lists, of the records still open, the news for their
// requester with no delivery receipt written longer than the record's SLA
// ago. A record settled since is not listed: nobody waits on it.
func Undelivered(open []ledger.Record, now time.Time) []UndeliveredItem {
	var out []UndeliveredItem
	for i := range open {
		rec := &open[i]
		if !rec.Status.Open() {
			continue
		}
		sla := protocol.SLA(rec)
		for _, j := range rec.Undelivered() {
			e := &rec.Thread[j]
			at, err := clock.Parse(e.Timestamp)
			if err != nil || now.Sub(at) <= sla {
				continue
			}
			out = append(out, UndeliveredItem{ID: rec.ID, Issue: rec.IssueNumber, From: rec.From, To: rec.To,
				Topic: rec.Topic, Type: e.Type, By: e.From, At: e.Timestamp})
		}
	}
	return out
}

// UndeliveredLines is the finding as text, one line per entry.
func UndeliveredLines(items []UndeliveredItem) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, fmt.Sprintf("%s %s by %s at %s never reached a session of %s: %s", it.ID, it.Type, it.By,
			it.At, it.From, strings.Join(strings.Fields(it.Topic), " ")))
	}
	return out
}
