// Package ledger owns the clarification ledger: the per-issue JSON file of
// clarification records and their threads, in the exact shape the
// TypeScript and PowerShell implementations read and write, with unknown
// keys kept on rewrite. It knows nothing of routing rules; the router
// package decides what may change.
package ledger

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// Status of a clarification record.
type Status string

const (
	Pending   Status = "pending"
	Answered  Status = "answered"
	Resolved  Status = "resolved"
	Stale     Status = "stale"
	Escalated Status = "escalated"
	Abandoned Status = "abandoned"
)

// Open reports whether the record still needs someone to act: pending or
// stale (the target owes an answer) or answered (the requester owes a
// follow-up or a resolution).
func (s Status) Open() bool { return s == Pending || s == Answered || s == Stale }

// Waiting reports whether the target owes an answer.
func (s Status) Waiting() bool { return s == Pending || s == Stale }

// Active is what `clarify` lists by default: open, or escalated (waiting
// for a person).
func (s Status) Active() bool { return s.Open() || s == Escalated }

// IsActive is Active on a record, the filter of Store.Records.
func IsActive(r *Record) bool { return r.Status.Active() }

// Known reports whether s is one of the six statuses.
func (s Status) Known() bool {
	switch s {
	case Pending, Answered, Resolved, Stale, Escalated, Abandoned:
		return true
	}
	return false
}

// EntryType of a thread entry.
type EntryType string

const (
	Question   EntryType = "question"
	Answer     EntryType = "answer"
	Resolution EntryType = "resolution"
	Escalation EntryType = "escalation"
)

// HubName is the `from` of entries the hub itself writes.
const HubName = "agent-x"

// Entry is one message in a record's thread.
type Entry struct {
	Round     int       `json:"round"`
	From      string    `json:"from"`
	Type      EntryType `json:"type"`
	Body      string    `json:"body"`
	Timestamp string    `json:"timestamp"`
	Extra     []jsonfile.Field
}

// Record is one clarification between two agents.
type Record struct {
	ID          string  `json:"id"`
	IssueNumber int     `json:"issueNumber"`
	From        string  `json:"from"`
	To          string  `json:"to"`
	Topic       string  `json:"topic"`
	Blocking    bool    `json:"blocking"`
	Status      Status  `json:"status"`
	Round       int     `json:"round"`
	MaxRounds   int     `json:"maxRounds"`
	Created     string  `json:"created"`
	StaleAfter  string  `json:"staleAfter"`
	ResolvedAt  *string `json:"resolvedAt"`
	Thread      []Entry `json:"thread"`
	Extra       []jsonfile.Field
}

// Ledger is the content of one issue's ledger file.
type Ledger struct {
	IssueNumber    int      `json:"issueNumber"`
	Clarifications []Record `json:"clarifications"`
	Extra          []jsonfile.Field
}

// Find returns the record with id, or nil.
func (l *Ledger) Find(id string) *Record {
	for i := range l.Clarifications {
		if l.Clarifications[i].ID == id {
			return &l.Clarifications[i]
		}
	}
	return nil
}

// NextID returns the id for a new record. It is the highest sequence number
// among this issue's `CLR-N-seq` ids plus one, so an id is never reused even
// after a record was deleted by hand (the old code used count+1).
//
// It is also above the ledger's HighWaterKey: the highest sequence number
// ever handed out here, kept by a checkpoint restore that rolls records
// back, so an id an agent was told is never given to another record.
func (l *Ledger) NextID() string {
	return fmt.Sprintf("CLR-%d-%03d", l.IssueNumber, l.MaxSeq()+1)
}

// HighWaterKey is the ledger key, of our own, holding the highest sequence
// number ever handed out on the issue when it is above every record's (a
// restore removed the newest records). Merges take the larger value.
const HighWaterKey = "agentxIdHighWater"

// MaxSeq is the highest sequence number of the issue's ids, counting the
// high-water mark.
func (l *Ledger) MaxSeq() int {
	prefix := "CLR-" + strconv.Itoa(l.IssueNumber) + "-"
	maxSeq := 0
	for _, r := range l.Clarifications {
		if rest, ok := strings.CutPrefix(r.ID, prefix); ok {
			if n, err := strconv.Atoi(rest); err == nil && n > maxSeq {
				maxSeq = n
			}
		}
	}
	for _, f := range l.Extra {
		var n int
		if f.Key == HighWaterKey && json.Unmarshal(f.Value, &n) == nil && n > maxSeq {
			maxSeq = n
		}
	}
	return maxSeq
}

// SetHighWater records n as the highest sequence number handed out, when
// it is above what the records and the mark say.
func (l *Ledger) SetHighWater(n int) {
	if n <= l.MaxSeq() {
		return
	}
	raw := json.RawMessage(strconv.Itoa(n))
	for i := range l.Extra {
		if l.Extra[i].Key == HighWaterKey {
			l.Extra[i].Value = raw
			return
		}
	}
	l.Extra = append(l.Extra, jsonfile.Field{Key: HighWaterKey, Value: raw})
}

// LastOf returns the latest thread entry of type t, or nil.
func (r *Record) LastOf(t EntryType) *Entry {
	for i := len(r.Thread) - 1; i >= 0; i-- {
		if r.Thread[i].Type == t {
			return &r.Thread[i]
		}
	}
	return nil
}

// CreatedTime parses Created (zero time when unreadable).
func (r *Record) CreatedTime() time.Time { t, _ := clock.Parse(r.Created); return t }

// StaleAfterTime parses StaleAfter (zero time when unreadable).
func (r *Record) StaleAfterTime() time.Time { t, _ := clock.Parse(r.StaleAfter); return t }

// ExtraValue returns the raw value of an unknown key, or nil.
func (r *Record) ExtraValue(key string) json.RawMessage {
	for _, f := range r.Extra {
		if f.Key == key {
			return f.Value
		}
	}
	return nil
}

// SetExtra sets (or with a nil value removes) a key outside the reference
// schema: bookkeeping the old tools ignore and keep (the SLA a request
// was made under, the monitor's stale round and reason).
func (r *Record) SetExtra(key string, value json.RawMessage) {
	for i, f := range r.Extra {
		if f.Key == key {
			if value == nil {
				r.Extra = append(r.Extra[:i], r.Extra[i+1:]...)
			} else {
				r.Extra[i].Value = value
			}
			return
		}
	}
	if value != nil {
		r.Extra = append(r.Extra, jsonfile.Field{Key: key, Value: value})
	}
}
