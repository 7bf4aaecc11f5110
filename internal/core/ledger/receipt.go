package ledger

import (
	"encoding/json"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// DeliveredKey is the thread entry key, of our own, holding the receipt of
// an answer, resolution or escalation delivered into a running session of
// the agent that asked (issue 34). The reference tools keep it as an
// unknown key; it stays outside the entry's content hash, like every key
// added after the entry was written.
const DeliveredKey = "delivered"

// Receipt says when and into which session an entry reached the agent
// that asked.
type Receipt struct {
	At      string `json:"at"`
	Session string `json:"session"`
	Host    string `json:"host,omitempty"`
	Agent   string `json:"agent,omitempty"`
}

// Receipt returns the entry's delivery receipt; ok is false when it has
// none (not delivered, or delivered before receipts existed) or the value
// is not one.
func (e *Entry) Receipt() (r Receipt, ok bool) {
	for _, f := range e.Extra {
		if f.Key == DeliveredKey {
			if json.Unmarshal(f.Value, &r) != nil || r.At == "" {
				return Receipt{}, false
			}
			return r, true
		}
	}
	return Receipt{}, false
}

// SetReceipt records r on the entry, replacing any receipt it held.
func (e *Entry) SetReceipt(r Receipt) {
	raw, _ := json.Marshal(r) // strings only: always marshals
	for i := range e.Extra {
		if e.Extra[i].Key == DeliveredKey {
			e.Extra[i].Value = raw
			return
		}
	}
	e.Extra = append(e.Extra, jsonfile.Field{Key: DeliveredKey, Value: raw})
}

// ForRequester reports whether the entry is news for the record's
// requester: an answer, a resolution or an escalation someone else wrote.
func (r *Record) ForRequester(e *Entry) bool {
	switch e.Type {
	case Answer, Resolution, Escalation:
		return e.From != r.From
	}
	return false
}

// Undelivered lists the indexes of the record's thread entries that are
// news for its requester and carry no receipt.
func (r *Record) Undelivered() []int {
	var out []int
	for i := range r.Thread {
		e := &r.Thread[i]
		if r.ForRequester(e) {
			if _, ok := e.Receipt(); !ok {
				out = append(out, i)
			}
		}
	}
	return out
}
