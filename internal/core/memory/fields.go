package memory

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// Fields the memory pipeline writes beyond the reference ones. They are
// stored among an observation's extra keys, after every reference key and
// in the order they were set, so the files stay byte-for-byte what the
// old tools read and write (they keep keys they do not know); these
// accessors give them a type.
const (
	// FieldSourceBytes is how many bytes of session input an observation
	// stands for (capture sets it, compaction sums it, recall reports the
	// tokens it displaced).
	FieldSourceBytes = "sourceBytes"
	// FieldFiles lists the paths an observation is about (a commit's
	// changed files, a session's edited ones).
	FieldFiles = "files"
	// FieldCompactedFrom lists the ids a compaction summary stands for
	// (its originals, moved to the archive); package compact writes it.
	FieldCompactedFrom = "compactedFrom"
	// FieldLastRecalled is when recall last handed the observation to an
	// agent (the recall fold sets it): retention archives what went
	// unrecalled for [retention] archive_after_days.
	FieldLastRecalled = "lastRecalled"
	// FieldStep is the workflow step the observation was captured in (the
	// agent's step on the issue: prd, architecture, implement), so a
	// search can ask for one stage's decisions (`memory search --step`).
	FieldStep = "step"
)

// Step is the observation's FieldStep ("" when absent).
func (o *Observation) Step() string {
	var s string
	if v, ok := o.extra(FieldStep); ok && json.Unmarshal(v, &s) == nil {
		return s
	}
	return ""
}

// SetStep sets FieldStep; "" removes it.
func (o *Observation) SetStep(step string) {
	if step == "" {
		o.setExtra(FieldStep, nil)
		return
	}
	raw, _ := json.Marshal(step) // a string always marshals
	o.setExtra(FieldStep, raw)
}

// LastUsed is when the observation was last recalled, or else written:
// the time retention ages it from (zero when neither parses).
func (o *Observation) LastUsed() time.Time {
	t, _ := clock.Parse(o.Timestamp)
	var s string
	if v, ok := o.extra(FieldLastRecalled); ok && json.Unmarshal(v, &s) == nil {
		if r, err := clock.Parse(s); err == nil && r.After(t) {
			return r
		}
	}
	return t
}

// SetLastRecalled sets FieldLastRecalled.
func (o *Observation) SetLastRecalled(t time.Time) {
	raw, _ := json.Marshal(clock.Format(t)) // a plain ASCII string always marshals
	o.setExtra(FieldLastRecalled, raw)
}

// SourceBytes is the observation's FieldSourceBytes, 0 when absent or not
// a positive integer.
func (o *Observation) SourceBytes() int {
	var n int
	if v, ok := o.extra(FieldSourceBytes); ok && json.Unmarshal(v, &n) == nil && n > 0 {
		return n
	}
	return 0
}

// SetSourceBytes sets FieldSourceBytes; n <= 0 removes it.
func (o *Observation) SetSourceBytes(n int) {
	if n <= 0 {
		o.setExtra(FieldSourceBytes, nil)
		return
	}
	o.setExtra(FieldSourceBytes, json.RawMessage(strconv.Itoa(n)))
}

// Files is the observation's FieldFiles (nil when absent or not a list of
// strings).
func (o *Observation) Files() []string {
	var files []string
	if v, ok := o.extra(FieldFiles); ok && json.Unmarshal(v, &files) == nil {
		return files
	}
	return nil
}

// SetFiles sets FieldFiles; an empty list removes it.
func (o *Observation) SetFiles(files []string) {
	if len(files) == 0 {
		o.setExtra(FieldFiles, nil)
		return
	}
	raw, _ := json.Marshal(files) // a []string always marshals
	o.setExtra(FieldFiles, raw)
}

func (o *Observation) extra(key string) (json.RawMessage, bool) {
	for _, x := range o.Extra {
		if x.Key == key {
			return x.Value, true
		}
	}
	return nil, false
}

// setExtra replaces key's value in place (keeping the key order), appends
// it when absent, and removes it when value is nil.
func (o *Observation) setExtra(key string, value json.RawMessage) {
	for i, x := range o.Extra {
		if x.Key != key {
			continue
		}
		if value == nil {
			o.Extra = append(o.Extra[:i:i], o.Extra[i+1:]...)
		} else {
			o.Extra[i].Value = value
		}
		return
	}
	if value != nil {
		o.Extra = append(o.Extra, jsonfile.Field{Key: key, Value: value})
	}
}
