// The canonical layout's fast path: on every ledger shape it accepts, it
// gives what Parse gives and the splice point after the last record (also
// fuzzed, and on the ways another writer's file differs); Record.Hash is the
// hash of the record's canonical JSON; a splice leaves the decoded strings
// as they were. Append against Update is tested in append_test.go.

package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// canonLedgers are ledgers in every shape the canonical layout has: none
// or many records, threads empty or long, closed records, unknown keys of
// every scalar kind at each level (the high-water mark among them),
// non-ASCII text; and some it leaves to the general decoder (escapes,
// U+2028, an object under an unknown key).
func canonLedgers() []*Ledger {
	resolved := "2026-03-01T17:06:02.020Z"
	out := []*Ledger{{IssueNumber: 1}}
	for _, n := range []int{1, 3, 40} {
		l := &Ledger{IssueNumber: 42}
		for i := 0; i < n; i++ {
			r := Record{ID: l.NextID(), IssueNumber: 42, From: "engineer", To: "architect", Topic: fmt.Sprintf("topic %d", i),
				Blocking: i%2 == 0, Status: Pending, Round: 1 + i%3, MaxRounds: 5, Created: "2026-03-01T17:04:15.123Z",
				StaleAfter: "2026-03-01T17:34:15.123Z"}
			for j := 0; j < i%4; j++ {
				r.Thread = append(r.Thread, Entry{Round: 1 + j, From: "engineer", Type: Question,
					Body: fmt.Sprintf("Question %d, round %d: é ü 日本 <a> & {x} [y]?", i, j), Timestamp: "2026-03-01T17:04:15.123Z"}.Sealed())
			}
			switch i % 5 {
			case 1:
				r.Status, r.ResolvedAt = Resolved, &resolved
			case 2:
				r.SetExtra("slaMinutes", json.RawMessage("30"))
				r.Seal()
			case 3:
				r.SetExtra("n", json.RawMessage("-1.5e3"))
				r.SetExtra("t", json.RawMessage("true"))
				r.SetExtra("f", json.RawMessage("false"))
				r.SetExtra("z", json.RawMessage("null"))
				r.SetExtra("s", json.RawMessage(`"x y"`))
			case 4:
				r.Status = Escalated
				r.Round = -3
			}
			l.Clarifications = append(l.Clarifications, r)
		}
		out = append(out, l)
	}
	hw := &Ledger{IssueNumber: 9, Clarifications: cloneOpen(out[2].Clarifications[:1])}
	hw.Clarifications[0].IssueNumber = 9
	hw.SetHighWater(12)
	hw.Extra = append(hw.Extra, jsonfile.Field{Key: "other", Value: json.RawMessage(`"kept"`)})
	out = append(out, hw)
	// Left to the general decoder.
	esc := &Ledger{IssueNumber: 5, Clarifications: []Record{{ID: "CLR-5-001", IssueNumber: 5, Topic: "a \"quoted\" topic\n"}}}
	sep := &Ledger{IssueNumber: 5, Clarifications: []Record{{ID: "CLR-5-001", IssueNumber: 5, Topic: "line\u2028separator"}}}
	obj := &Ledger{IssueNumber: 5, Clarifications: []Record{{ID: "CLR-5-001", IssueNumber: 5,
		Extra: []jsonfile.Field{{Key: "o", Value: json.RawMessage(`{"a":[1]}`)}}}}}
	return append(out, esc, sep, obj)
}

// checkCanonical requires of data what the fast path promises: when it
// accepts data for issue, the ledger is the one Parse gives and lays out
// to data again, and the splice point is the end of the last record.
func checkCanonical(t *testing.T, data []byte, issue int) bool {
	t.Helper()
	l, c, ok := decodeCanonical(data, issue)
	if !ok {
		return false
	}
	want, err := Parse("ledger", data, issue)
	if err != nil {
		t.Fatalf("fast path accepted what Parse refuses (%v):\n%s", err, data)
	}
	if !reflect.DeepEqual(l, want) {
		t.Fatalf("fast path decoded\n%+v\nParse\n%+v\nfrom\n%s", l, want, data)
	}
	out, err := jsonfile.Marshal(l)
	if err != nil || !bytes.Equal(out, data) {
		t.Fatalf("fast path accepted bytes that do not lay out again (%v):\n%s\nlaid out:\n%s", err, data, out)
	}
	if c.n != len(l.Clarifications) || (c.n > 0) != (c.tail >= 0) || (c.tail >= 0 && !bytes.HasPrefix(data[c.tail:], []byte("\n  ]"))) {
		t.Fatalf("splice point %d of %d records wrong in\n%s", c.tail, c.n, data)
	}
	return true
}

func TestCanonicalMatchesParse(t *testing.T) {
	t.Parallel()
	ls := canonLedgers()
	for i, l := range ls {
		data, err := jsonfile.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		fallback := i >= len(ls)-3
		if got := checkCanonical(t, data, l.IssueNumber); got == fallback {
			t.Errorf("ledger %d: fast path %v, want %v:\n%s", i, got, !fallback, data)
		}
		// Another issue's file, or bytes that are not the layout: the
		// general decoder's.
		if checkCanonical(t, data, l.IssueNumber+1) {
			t.Errorf("ledger %d accepted as another issue's", i)
		}
		for _, variant := range canonVariants(data) {
			checkCanonical(t, variant, l.IssueNumber)
		}
	}
	for _, p := range []string{"testdata/reference.json", "testdata/typescript-no-record-issue.json"} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for issue := 0; issue < 100; issue++ {
			checkCanonical(t, data, issue)
		}
	}
}

// canonVariants are data changed in the ways another writer differs: no
// final newline, CRLF, compact, one byte dropped or doubled here and
// there, a known key repeated, a record's issue left out.
func canonVariants(data []byte) [][]byte {
	s := string(data)
	out := [][]byte{
		bytes.TrimSuffix(data, []byte("\n")),
		[]byte(strings.ReplaceAll(s, "\n", "\r\n")),
		[]byte(s + " "),
		[]byte(strings.Replace(s, `"id": `, `"id": "dup", "id": `, 1)),
		[]byte(strings.Replace(s, "\n      \"issueNumber\": 42,", "", 1)),
		[]byte(strings.Replace(s, "\"issueNumber\": 42,\n      \"from\"", "\"issueNumber\": 0,\n      \"from\"", 1)),
		[]byte(strings.Replace(s, `"round": 1,`, `"round": 1.0,`, 1)),
		[]byte(strings.Replace(s, `"round": 1,`, `"round": 01,`, 1)),
		[]byte(strings.Replace(s, `"blocking": false`, `"blocking": null`, 1)),
		[]byte(strings.Replace(s, `"thread": []`, `"thread": null`, 1)),
		[]byte(strings.Replace(s, "\n      \"slaMinutes\"", "\n      \"status\": \"x\",\n      \"slaMinutes\"", 1)),
	}
	if compact, err := Decode(data); err == nil {
		raw, _ := compact.MarshalJSON()
		out = append(out, raw)
	}
	for i := 0; i < len(data); i += 1 + len(data)/97 {
		out = append(out, append(append([]byte(nil), data[:i]...), data[i+1:]...))
		out = append(out, append(append([]byte(nil), data[:i+1]...), data[i:]...))
	}
	return out
}

func FuzzCanonicalMatchesParse(f *testing.F) {
	for _, l := range canonLedgers() {
		data, _ := jsonfile.Marshal(l)
		f.Add(data, l.IssueNumber)
	}
	f.Fuzz(func(t *testing.T, data []byte, issue int) { checkCanonical(t, data, issue) })
}

// Record.Hash from the fields is the hash of the record's JSON decoded and
// written canonically, for every record shape, unknown keys of any kind
// included (those it cannot vouch for go the JSON way).
func TestRecordHashMatchesCanonicalJSON(t *testing.T) {
	t.Parallel()
	var recs []Record
	for _, l := range canonLedgers() {
		recs = append(recs, l.Clarifications...)
	}
	for _, p := range []string{"testdata/reference.json", "testdata/typescript-no-record-issue.json"} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		l, err := Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, l.Clarifications...)
	}
	odd := []string{`1.5`, `-3`, `007`, `1e2`, `{"b":1,"a":[true,null,"\u00e9"]}`, `"tab\there"`, `"é"`, `"\u2028<>&"`, `[]`, `"x\\y"`,
		`12345678901234567890`, `"dup"`}
	for i, v := range odd {
		r := recs[i%len(recs)]
		r.Extra = append(append([]jsonfile.Field(nil), r.Extra...), jsonfile.Field{Key: fmt.Sprintf("k%d", i), Value: json.RawMessage(v)})
		if v == `"dup"` {
			r.Extra = append(r.Extra, jsonfile.Field{Key: fmt.Sprintf("k%d", i), Value: json.RawMessage(`2`)},
				jsonfile.Field{Key: "status", Value: json.RawMessage(`"x"`)})
		}
		recs = append(recs, r)
	}
	weird := recs[0]
	weird.Topic, weird.From = "ctl\x01 \"q\" \\ é \u2028 \xff", "ü"
	recs = append(recs, weird)
	fast := 0
	for i := range recs {
		if _, ok := recs[i].recordHash(); ok {
			fast++
		}
		if got, want := recs[i].Hash(), recs[i].hashOfJSON(); got != want {
			t.Errorf("record %d (%s): Hash %s, from its JSON %s", i, recs[i].ID, got, want)
		}
	}
	if fast < len(recs)/2 {
		t.Errorf("%d of %d records hashed from their fields", fast, len(recs))
	}
}

// cloneOpen copies the open records of recs (a test's own copy) (nil when there is none, as
// decoding gives), each with its own thread and keys: three allocations
// in all, every slice capped so that an append to it copies.
func cloneOpen(recs []Record) []Record {
	n, ne, nf := 0, 0, 0
	for i := range recs {
		r := &recs[i]
		if !r.Status.Open() {
			continue
		}
		n++
		ne += len(r.Thread)
		nf += len(r.Extra)
		for j := range r.Thread {
			nf += len(r.Thread[j].Extra)
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]Record, 0, n)
	entries := make([]Entry, 0, ne)
	fields := make([]jsonfile.Field, 0, nf)
	carve := func(extra []jsonfile.Field) []jsonfile.Field {
		if len(extra) == 0 {
			return extra[:0:0]
		}
		first := len(fields)
		fields = append(fields, extra...)
		return fields[first:len(fields):len(fields)]
	}
	for i := range recs {
		if !recs[i].Status.Open() {
			continue
		}
		r := recs[i]
		if len(r.Thread) > 0 {
			first := len(entries)
			entries = append(entries, r.Thread...)
			r.Thread = entries[first:len(entries):len(entries)]
			for j := range r.Thread {
				r.Thread[j].Extra = carve(r.Thread[j].Extra)
			}
		} else {
			r.Thread = r.Thread[:0:0]
		}
		r.Extra = carve(r.Extra)
		if r.ResolvedAt != nil {
			v := *r.ResolvedAt
			r.ResolvedAt = &v
		}
		out = append(out, r)
	}
	return out
}

// The fast path's strings are the bytes the file was read into
// (canonReader): a splice into that buffer must leave every one of them,
// and the ledger's own unknown keys, as they were decoded.
func TestSpliceLeavesDecodedStrings(t *testing.T) {
	t.Parallel()
	spliced := 0
	for i, l := range canonLedgers() {
		data, err := jsonfile.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		// Read as loadLocked reads it: with the room to splice in place.
		buf := append(make([]byte, 0, len(data)+spliceRoom), data...)
		got, c, ok := decodeCanonical(buf, l.IssueNumber)
		if !ok || len(got.Clarifications) == 0 {
			continue
		}
		b := c.base(got)
		got.Clarifications = append(got.Clarifications, newRecord(got, strings.Repeat("overwrite ", 20)))
		if _, ok := b.splice(got); !ok {
			t.Fatalf("ledger %d: not spliced", i)
		}
		spliced++
		want, err := Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Clarifications[:len(want.Clarifications)], want.Clarifications) {
			t.Errorf("ledger %d: records after the splice\n%+v\nwant\n%+v", i, got.Clarifications[:len(want.Clarifications)], want.Clarifications)
		}
		if !reflect.DeepEqual(got.Extra, want.Extra) {
			t.Errorf("ledger %d: keys after the splice %q, want %q", i, got.Extra, want.Extra)
		}
	}
	if spliced < 3 {
		t.Errorf("%d ledgers spliced, want 3", spliced)
	}
}
