package statemerge

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// compactFields rewrites raw values in their compact form, so equal values
// compare equal however their file was indented, and the values no longer
// alias the input.
func compactFields(fs []jsonfile.Field) []jsonfile.Field {
	if len(fs) == 0 {
		return nil
	}
	out := make([]jsonfile.Field, len(fs))
	for i, f := range fs {
		var b bytes.Buffer
		if err := json.Compact(&b, f.Value); err != nil {
			b.Reset()
			b.Write(f.Value)
		}
		out[i] = jsonfile.Field{Key: f.Key, Value: b.Bytes()}
	}
	return out
}

// resolver picks the value of key where both sides changed it to different
// values (neither nil). It must be symmetric in ours and theirs. arbitrary
// reports a pick by a fixed rule rather than by meaning (a conflict).
type resolver func(key string, ours, theirs json.RawMessage) (v json.RawMessage, arbitrary bool)

// largerValue is the resolver for keys without a meaning of their own: the
// byte-wise larger value, a conflict.
func largerValue(_ string, ours, theirs json.RawMessage) (json.RawMessage, bool) {
	if bytes.Compare(ours, theirs) >= 0 {
		return ours, true
	}
	return theirs, true
}

// mergeFields merges three versions of a set of unknown keys, key by key:
// the side that changed a key (added, changed or removed it) wins; where
// both changed it differently a removal loses to a change, and two changes
// go to resolve. Values must be compact (compactFields).
func mergeFields(base, ours, theirs []jsonfile.Field, resolve resolver, rep *Report, where string) []jsonfile.Field {
	if fieldsEqual(ours, theirs) {
		return ours
	}
	b, o, t := fieldMap(base), fieldMap(ours), fieldMap(theirs)
	var out []jsonfile.Field
	for _, key := range keyOrder(ours, theirs) {
		bv, ov, tv := b[key], o[key], t[key]
		var v json.RawMessage
		switch {
		case rawEqual(ov, tv), rawEqual(tv, bv):
			v = ov
		case rawEqual(ov, bv):
			v = tv
		case ov == nil:
			v = tv
		case tv == nil:
			v = ov
		default:
			var arbitrary bool
			v, arbitrary = resolve(key, ov, tv)
			if arbitrary {
				rep.conflict("%s: %q changed on both sides; kept %s", where, key, v)
			}
		}
		if v != nil {
			out = append(out, jsonfile.Field{Key: key, Value: v})
		}
	}
	return out
}

// rawEqual compares two values where nil is absence.
func rawEqual(a, b json.RawMessage) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

func fieldsEqual(a, b []jsonfile.Field) bool {
	return slices.EqualFunc(a, b, func(x, y jsonfile.Field) bool { return x.Key == y.Key && bytes.Equal(x.Value, y.Value) })
}

// fieldMap indexes fields by key; the first occurrence of a key counts.
func fieldMap(fs []jsonfile.Field) map[string]json.RawMessage {
	m := make(map[string]json.RawMessage, len(fs))
	for _, f := range fs {
		if _, dup := m[f.Key]; !dup {
			m[f.Key] = f.Value
		}
	}
	return m
}

// keyOrder is the order of the merged keys: one side's order followed by
// the other side's new keys. Of the two ways to do that, the one that
// sorts first is taken, so the order does not depend on which side is ours.
func keyOrder(ours, theirs []jsonfile.Field) []string {
	a, b := appendNew(nil, ours, theirs), appendNew(nil, theirs, ours)
	if slices.Compare(a, b) <= 0 {
		return a
	}
	return b
}

func appendNew(dst []string, first, then []jsonfile.Field) []string {
	seen := map[string]bool{}
	for _, group := range [][]jsonfile.Field{first, then} {
		for _, f := range group {
			if !seen[f.Key] {
				seen[f.Key] = true
				dst = append(dst, f.Key)
			}
		}
	}
	return dst
}

// pick3 merges one value three ways: the side that changed it wins; where
// both changed it differently, resolve decides (it must be symmetric).
// hasBase is false when the base has no version of the value's owner.
func pick3[T comparable](hasBase bool, b, o, t T, resolve func(o, t T) T) (v T, both bool) {
	switch {
	case o == t:
		return o, false
	case hasBase && o == b:
		return t, false
	case hasBase && t == b:
		return o, false
	}
	return resolve(o, t), true
}

func maxInt(a, b int) int { return max(a, b) }

func maxString(a, b string) string { return max(a, b) }

// laterTime returns the later of two timestamps (unreadable ones sort
// first; ties are broken by the text, so the choice is symmetric).
func laterTime(a, b string) string {
	if timeLess(a, b) {
		return b
	}
	return a
}

// earlierTime is the counterpart of laterTime.
func earlierTime(a, b string) string {
	if timeLess(a, b) {
		return a
	}
	return b
}

// timeLess orders timestamps by instant, then by text.
func timeLess(a, b string) bool {
	ta, erra := clock.Parse(a)
	tb, errb := clock.Parse(b)
	switch {
	case erra != nil && errb == nil:
		return true
	case erra == nil && errb != nil:
		return false
	case erra == nil && errb == nil && !ta.Equal(tb):
		return ta.Before(tb)
	}
	return a < b
}

// maxIntValue is the resolver for counters and marks stored as JSON
// integers: the larger (a value that is not an integer loses).
func maxIntValue(_ string, ours, theirs json.RawMessage) (json.RawMessage, bool) {
	o, oerr := strconv.Atoi(string(ours))
	t, terr := strconv.Atoi(string(theirs))
	switch {
	case oerr != nil && terr != nil:
		return largerValue("", ours, theirs)
	case terr != nil || (oerr == nil && o >= t):
		return ours, false
	}
	return theirs, false
}
