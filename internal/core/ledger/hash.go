package ledger

import (
	"encoding/json"

	"github.com/agentx-dev/agentx/internal/core/contenthash"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// A thread entry is written once and never changed, so it is the unit that
// carries a content hash (under contenthash.Key among its keys). A record
// is not: its status, round and staleAfter change at every step, so its
// consistency is checked by the protocol's rules instead (verify), and its
// state before and after each step goes to the audit trail (Record.Hash).
//
// The entry hash covers the reference fields round, from, type, body and
// timestamp; keys added later (the GitHub comment id an ingested entry
// carries) are bookkeeping and stay outside it.

// ComputeHash returns the content hash of the entry's reference fields.
func (e *Entry) ComputeHash() string {
	var o contenthash.Object // keys in canonical order: no sort
	o.String("body", e.Body).String("from", e.From).Int("round", e.Round).
		String("timestamp", e.Timestamp).String("type", string(e.Type))
	return o.Sum()
}

// StoredHash returns the hash recorded with the entry; ok is false when it
// has none (written by another tool or before hashes) or it is not a
// string.
func (e *Entry) StoredHash() (hash string, ok bool) {
	for _, f := range e.Extra {
		if f.Key == contenthash.Key {
			if err := json.Unmarshal(f.Value, &hash); err != nil {
				return "", false
			}
			return hash, true
		}
	}
	return "", false
}

// Sealed returns the entry with its content hash recorded: every writer
// that appends an entry stores it sealed.
func (e Entry) Sealed() Entry {
	raw := jsonfile.AppendMarshalString(nil, e.ComputeHash())
	extra := make([]jsonfile.Field, 0, len(e.Extra)+1)
	for _, f := range e.Extra {
		if f.Key != contenthash.Key {
			extra = append(extra, f)
		}
	}
	extra = append(extra, jsonfile.Field{Key: contenthash.Key, Value: raw})
	e.Extra = extra
	return e
}

// Hash returns the content hash of the whole record as the ledger codec
// writes it (canonical form): what the audit trail names as a record's
// state before and after an operation.
//
// It is computed from the fields (recordHash), as decoding the record's
// JSON into a generic value and writing that canonically gave it, which
// it still does for a record the fields cannot vouch for (a number that
// is not an integer, or the same key twice, under an unknown key):
// TestRecordHashMatchesCanonicalJSON.
func (r *Record) Hash() string {
	if h, ok := r.recordHash(); ok {
		return h
	}
	return r.hashOfJSON()
}

// hashOfJSON is Hash by way of the record's JSON.
func (r *Record) hashOfJSON() string {
	data, _ := r.MarshalJSON()
	h, err := contenthash.OfJSON(data)
	if err != nil {
		// Only a non-integer number kept in an unknown key gets here:
		// the bytes as written still identify the state.
		return contenthash.Of(data)
	}
	return h
}

// Integrity checks the entry against its recorded hash: Tampered when its
// text changed since it was written.
func (e *Entry) Integrity() contenthash.Integrity {
	h, ok := e.StoredHash()
	return contenthash.Check(h, ok, e.ComputeHash)
}

// TamperedEntries lists the indexes of the record's thread entries whose
// text changed since they were written.
func (r *Record) TamperedEntries() []int {
	var out []int
	for i := range r.Thread {
		if r.Thread[i].Integrity() == contenthash.Tampered {
			out = append(out, i)
		}
	}
	return out
}

// RecordHashKey is the record's key, of our own, holding the hash of the
// fields a record gets when it is made and keeps for life: id,
// issueNumber, from, to, topic, blocking, maxRounds, created and the SLA
// (slaMinutes). The old tools keep keys they do not know, so their
// rewrites carry it; records they make have none (unhashed). The fields
// every step changes (status, round, staleAfter, resolvedAt) and the
// thread are outside it: the thread's entries carry their own hashes, and
// the rest is checked against the protocol's rules and the last
// checkpoint (verify).
const RecordHashKey = "agentxRecordHash"

// slaMinutesKey is the record key the protocol writes the SLA under.
const slaMinutesKey = "slaMinutes"

// ComputeRecordHash returns the hash of the record's lifelong fields.
func (r *Record) ComputeRecordHash() string {
	var o contenthash.Object // keys in canonical order
	o.Grow(len(r.Created) + len(r.From) + len(r.ID) + len(r.To) + len(r.Topic) + 48)
	o.Bool("blocking", r.Blocking).String("created", r.Created).String("from", r.From).
		String("id", r.ID).Int("issueNumber", r.IssueNumber).Int("maxRounds", r.MaxRounds)
	if raw := r.ExtraValue(slaMinutesKey); raw != nil {
		o.Raw("slaMinutes", raw)
	}
	o.String("to", r.To).String("topic", r.Topic)
	return o.Sum()
}

// StoredRecordHash returns the record's recorded hash; ok is false when
// it has none (made by another tool or before record hashes).
func (r *Record) StoredRecordHash() (hash string, ok bool) {
	raw := r.ExtraValue(RecordHashKey)
	if raw == nil || json.Unmarshal(raw, &hash) != nil {
		return "", false
	}
	return hash, true
}

// Seal records the hash of the record's lifelong fields: done when a
// record is made, and when a merge renames it.
func (r *Record) Seal() {
	r.SetExtra(RecordHashKey, jsonfile.AppendMarshalString(nil, r.ComputeRecordHash()))
}

// RecordIntegrity checks the record's lifelong fields against its
// recorded hash.
func (r *Record) RecordIntegrity() contenthash.Integrity {
	h, ok := r.StoredRecordHash()
	return contenthash.Check(h, ok, r.ComputeRecordHash)
}

// recordHash is the canonical hash of the record's JSON built from its
// fields, without writing and decoding that JSON (the audit trail hashes
// the record before and after every operation); false when an unknown
// key's value has no canonical form or a key repeats.
func (r *Record) recordHash() (string, bool) {
	var o contenthash.Object
	o.Grow(len(r.Created) + len(r.From) + len(r.ID) + len(r.To) + len(r.Topic) + len(r.Status) + len(r.StaleAfter) + 128)
	o.Bool("blocking", r.Blocking).String("created", r.Created).String("from", r.From).String("id", r.ID).
		Int("issueNumber", r.IssueNumber).Int("maxRounds", r.MaxRounds)
	if r.ResolvedAt == nil {
		o.Value("resolvedAt", []byte("null"))
	} else {
		o.String("resolvedAt", *r.ResolvedAt)
	}
	o.Int("round", r.Round).String("staleAfter", r.StaleAfter).String("status", string(r.Status))
	thread := []byte{'['}
	for i := range r.Thread {
		e := &r.Thread[i]
		if i > 0 {
			thread = append(thread, ',')
		}
		var eo contenthash.Object
		eo.String("body", e.Body).String("from", e.From).Int("round", e.Round).
			String("timestamp", e.Timestamp).String("type", string(e.Type))
		if !addExtra(&eo, e.Extra, entryKeys) {
			return "", false
		}
		thread = append(thread, eo.Canonical()...)
	}
	o.Value("thread", append(thread, ']'))
	o.String("to", r.To).String("topic", r.Topic)
	if !addExtra(&o, r.Extra, recordKeys) {
		return "", false
	}
	return o.Sum(), true
}

// addExtra adds the unknown keys of an object whose own keys are known,
// each value in its canonical form; false when one has none, or when a
// key is known or repeats (decoding keeps the last of a repeated key:
// left to the generic path).
func addExtra(o *contenthash.Object, extra []jsonfile.Field, known []string) bool {
	for i, f := range extra {
		if jsonfile.Known(f.Key, known) {
			return false
		}
		for _, g := range extra[:i] {
			if g.Key == f.Key {
				return false
			}
		}
		if v, ok := canonicalPlain(f.Value); ok {
			o.Value(f.Key, v)
			continue
		}
		c, err := contenthash.CanonicalJSON(f.Value)
		if err != nil {
			return false
		}
		o.Value(f.Key, c)
	}
	return true
}

// canonicalPlain returns v when it is already canonical as it stands: a
// non-negative integer without leading zeros, or a string of printable
// ASCII without an escape (the hashes and SLAs agentx keeps).
func canonicalPlain(v []byte) ([]byte, bool) {
	if len(v) == 0 {
		return nil, false
	}
	if v[0] >= '0' && v[0] <= '9' {
		if len(v) > 1 && v[0] == '0' || len(v) > 18 {
			return nil, false
		}
		for _, c := range v {
			if c < '0' || c > '9' {
				return nil, false
			}
		}
		return v, true
	}
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, false
	}
	for _, c := range v[1 : len(v)-1] {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return nil, false
		}
	}
	return v, true
}
