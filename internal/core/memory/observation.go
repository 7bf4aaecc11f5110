// Package memory owns the observation store of the memory pipeline:
// per-issue files `.agentx/memory/issue-N.json`, the manifest index
// `manifest.json` (both in the reference implementation's exact format),
// locked atomic writes that never hold one lock while waiting for another,
// detection and repair of a crash between the issue write and the manifest
// write, ranked search over a derived on-disk index (package memindex),
// statistics and the hooks compaction needs.
package memory

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/shorten"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

// Category is the kind of an observation.
type Category string

// The reference categories.
const (
	Decision          Category = "decision"
	CodeChange        Category = "code-change"
	Error             Category = "error"
	KeyFact           Category = "key-fact"
	CompactionSummary Category = "compaction-summary"
)

// Categories lists the known categories in reference order.
func Categories() []Category {
	return []Category{Decision, CodeChange, Error, KeyFact, CompactionSummary}
}

// Known reports a reference category.
func (c Category) Known() bool {
	for _, k := range Categories() {
		if c == k {
			return true
		}
	}
	return false
}

// Observation is one stored memory. Fields are in the reference key order;
// RecallCount is the first later addition; Extra keeps keys written by other
// tools (relevanceScore, archived, ...) so a rewrite never drops them.
type Observation struct {
	ID          string
	Agent       string
	IssueNumber int
	Category    Category
	Content     string
	Summary     string
	Tokens      int
	Timestamp   string
	SessionID   string
	RecallCount int
	Extra       []jsonfile.Field
	// sessionRaw is sessionId as the file had it, written back while
	// SessionID is "" (an empty string or null another tool wrote); with
	// neither, sessionId is omitted rather than written as "".
	sessionRaw json.RawMessage
}

// Entry is a manifest row: the compact index form of an observation
// (SPEC ObservationIndex).
type Entry struct {
	ID          string
	Agent       string
	IssueNumber int
	Category    Category
	Summary     string
	Tokens      int
	Timestamp   string
	Extra       []jsonfile.Field
}

// Entry returns o's manifest row.
func (o *Observation) Entry() Entry {
	return Entry{ID: o.ID, Agent: o.Agent, IssueNumber: o.IssueNumber, Category: o.Category,
		Summary: o.Summary, Tokens: o.Tokens, Timestamp: o.Timestamp}
}

// EstimateTokens is the reference estimate: ceil(length / 4), where the
// length is JavaScript's (UTF-16 code units), so both implementations agree.
func EstimateTokens(content string) int {
	n := 0
	for _, r := range content {
		n += utf16.RuneLen(r)
	}
	return (n + 3) / 4
}

// MaxSummary is the reference summary length in characters.
const MaxSummary = 240

// Summarize is the reference summary: the content cut to 240 characters
// (237 and "...").
func Summarize(content string) string {
	return shorten.Text(strings.TrimSpace(content), MaxSummary)
}

// NewID returns a reference observation ID:
// obs-{agent: [a-z0-9] only, max 20}-{issue}-{epoch ms}-{6 chars [a-z0-9]}.
func NewID(agent string, issue int, t time.Time) string {
	var b strings.Builder
	for _, c := range strings.ToLower(agent) {
		if ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') {
			b.WriteRune(c)
			if b.Len() == 20 {
				break
			}
		}
	}
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	for i := range rnd {
		rnd[i] = alphabet[int(rnd[i])%len(alphabet)]
	}
	return fmt.Sprintf("obs-%s-%d-%d-%s", b.String(), issue, t.UnixMilli(), rnd[:])
}

// IssueOfID extracts the issue number from a reference-format ID. Readers
// accept any ID; for others ok is false and callers look the ID up.
func IssueOfID(id string) (issue int, ok bool) {
	parts := strings.Split(id, "-")
	if len(parts) != 5 || parts[0] != "obs" {
		return 0, false
	}
	n, err := strconv.Atoi(parts[2])
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// validate checks an observation about to be stored.
func (o *Observation) validate() error { return o.check(1) }

// validateKept checks an observation rewritten in the issue file it came
// from (compaction): issue 0, where the old chat integration stored
// everything, is maintained although nothing new is stored under it.
func (o *Observation) validateKept() error { return o.check(0) }

func (o *Observation) check(minIssue int) error {
	switch {
	case strings.TrimSpace(o.Agent) == "":
		return errcode.New(errcode.InvalidInput, "observation has no agent")
	case o.IssueNumber < minIssue:
		return errcode.New(errcode.InvalidInput, "observation %q: issue number must be positive, got %d", o.ID, o.IssueNumber)
	case !o.Category.Known():
		return errcode.New(errcode.InvalidInput, "observation %q: unknown category %q (want decision, code-change, error, key-fact or compaction-summary)", o.ID, o.Category)
	case strings.TrimSpace(o.Content) == "":
		return errcode.New(errcode.InvalidInput, "observation %q has no content", o.ID)
	}
	return nil
}

// sessionValue is the JSON of sessionId, or nil to omit it: no session is
// known and the file did not have the key.
func (o *Observation) sessionValue() []byte {
	if o.SessionID != "" {
		return jsonfile.AppendString(nil, o.SessionID)
	}
	return o.sessionRaw
}

// appendJSON renders o compactly in the reference key order.
func (o *Observation) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = jsonfile.AppendString(b, o.ID)
	b = append(b, `,"agent":`...)
	b = jsonfile.AppendString(b, o.Agent)
	b = append(b, `,"issueNumber":`...)
	b = strconv.AppendInt(b, int64(o.IssueNumber), 10)
	b = append(b, `,"category":`...)
	b = jsonfile.AppendString(b, string(o.Category))
	b = append(b, `,"content":`...)
	b = jsonfile.AppendString(b, o.Content)
	b = append(b, `,"summary":`...)
	b = jsonfile.AppendString(b, o.Summary)
	b = append(b, `,"tokens":`...)
	b = strconv.AppendInt(b, int64(o.Tokens), 10)
	b = append(b, `,"timestamp":`...)
	b = jsonfile.AppendString(b, o.Timestamp)
	if raw := o.sessionValue(); raw != nil {
		b = append(b, `,"sessionId":`...)
		b = append(b, raw...)
	}
	if o.RecallCount != 0 {
		b = append(b, `,"recallCount":`...)
		b = strconv.AppendInt(b, int64(o.RecallCount), 10)
	}
	for _, f := range o.Extra {
		b = append(b, ',')
		b = jsonfile.AppendString(b, f.Key)
		b = append(b, ':')
		b = append(b, f.Value...)
	}
	return append(b, '}')
}

// appendIndented renders o as an element of an issue file's
// observations array (6-space fields, as JSON.stringify(x, null, 2) nests).
func (o *Observation) appendIndented(b []byte) []byte {
	field := func(key string) { b = append(b, ",\n      \""+key+"\": "...) }
	b = append(b, "{\n      \"id\": "...)
	b = jsonfile.AppendString(b, o.ID)
	field("agent")
	b = jsonfile.AppendString(b, o.Agent)
	field("issueNumber")
	b = strconv.AppendInt(b, int64(o.IssueNumber), 10)
	field("category")
	b = jsonfile.AppendString(b, string(o.Category))
	field("content")
	b = jsonfile.AppendString(b, o.Content)
	field("summary")
	b = jsonfile.AppendString(b, o.Summary)
	field("tokens")
	b = strconv.AppendInt(b, int64(o.Tokens), 10)
	field("timestamp")
	b = jsonfile.AppendString(b, o.Timestamp)
	if raw := o.sessionValue(); raw != nil {
		field("sessionId")
		b = append(b, raw...)
	}
	if o.RecallCount != 0 {
		field("recallCount")
		b = strconv.AppendInt(b, int64(o.RecallCount), 10)
	}
	b = appendExtras(b, o.Extra, "      ")
	return append(b, "\n    }"...)
}

// MarshalJSON renders o in the reference key order (for --json output).
func (o Observation) MarshalJSON() ([]byte, error) { return o.appendJSON(nil), nil }

// The keys of the memory files, for jsonfile.Object (the field decoder the
// ledger shares), built on first use (jsonfile.Lazy). Other tools' keys
// are copied: an observation outlives the buffer it was read from.
var (
	issueFileFields = jsonfile.Lazy[IssueFile]{Build: func() *jsonfile.Object[IssueFile] {
		return &jsonfile.Object[IssueFile]{
			Fields: []jsonfile.FieldDecoder[IssueFile]{
				jsonfile.Int("version", func(f *IssueFile) *int { return &f.Version }),
				jsonfile.Int("issueNumber", func(f *IssueFile) *int { return &f.IssueNumber }),
				jsonfile.String("updatedAt", func(f *IssueFile) *string { return &f.UpdatedAt }),
				{Key: "observations", Decode: func(f *IssueFile, v []byte) error {
					return jsonfile.EachElement(v, func(raw []byte) error {
						f.Observations = append(f.Observations, Observation{})
						return decodeObservationInto(raw, &f.Observations[len(f.Observations)-1])
					})
				}},
			},
			Extra: jsonfile.CopyExtra(func(f *IssueFile) *[]jsonfile.Field { return &f.Extra }),
		}
	}}
	manifestFields = jsonfile.Lazy[Manifest]{Build: func() *jsonfile.Object[Manifest] {
		return &jsonfile.Object[Manifest]{
			Fields: []jsonfile.FieldDecoder[Manifest]{
				jsonfile.Int("version", func(m *Manifest) *int { return &m.Version }),
				jsonfile.String("updatedAt", func(m *Manifest) *string { return &m.UpdatedAt }),
				{Key: "entries", Decode: func(m *Manifest, v []byte) error {
					return jsonfile.EachElement(v, func(raw []byte) error {
						m.Entries = append(m.Entries, Entry{})
						return decodeEntryInto(raw, &m.Entries[len(m.Entries)-1])
					})
				}},
				{Key: stampKey, Decode: func(*Manifest, []byte) error { return nil }}, // rewritten, never kept
			},
			Extra: jsonfile.CopyExtra(func(m *Manifest) *[]jsonfile.Field { return &m.Extra }),
		}
	}}
	observationFields = jsonfile.Lazy[Observation]{Build: func() *jsonfile.Object[Observation] {
		return &jsonfile.Object[Observation]{
			Fields: []jsonfile.FieldDecoder[Observation]{
				jsonfile.String("id", func(o *Observation) *string { return &o.ID }),
				jsonfile.String("agent", func(o *Observation) *string { return &o.Agent }),
				jsonfile.Int("issueNumber", func(o *Observation) *int { return &o.IssueNumber }),
				jsonfile.String("category", func(o *Observation) *Category { return &o.Category }),
				jsonfile.String("content", func(o *Observation) *string { return &o.Content }),
				jsonfile.String("summary", func(o *Observation) *string { return &o.Summary }),
				jsonfile.Int("tokens", func(o *Observation) *int { return &o.Tokens }),
				jsonfile.String("timestamp", func(o *Observation) *string { return &o.Timestamp }),
				{Key: "sessionId", Decode: func(o *Observation, v []byte) (err error) {
					o.SessionID, err = jsonfile.DecodeString(v)
					o.sessionRaw = append(json.RawMessage(nil), v...)
					return err
				}},
				jsonfile.Int("recallCount", func(o *Observation) *int { return &o.RecallCount }),
			},
			Extra: jsonfile.CopyExtra(func(o *Observation) *[]jsonfile.Field { return &o.Extra }),
		}
	}}
	entryFields = jsonfile.Lazy[Entry]{Build: func() *jsonfile.Object[Entry] {
		return &jsonfile.Object[Entry]{
			Fields: []jsonfile.FieldDecoder[Entry]{
				jsonfile.String("id", func(e *Entry) *string { return &e.ID }),
				jsonfile.String("agent", func(e *Entry) *string { return &e.Agent }),
				jsonfile.Int("issueNumber", func(e *Entry) *int { return &e.IssueNumber }),
				jsonfile.String("category", func(e *Entry) *Category { return &e.Category }),
				jsonfile.String("summary", func(e *Entry) *string { return &e.Summary }),
				jsonfile.Int("tokens", func(e *Entry) *int { return &e.Tokens }),
				jsonfile.String("timestamp", func(e *Entry) *string { return &e.Timestamp }),
			},
			Extra: jsonfile.CopyExtra(func(e *Entry) *[]jsonfile.Field { return &e.Extra }),
		}
	}}
)

func decodeObservation(data []byte) (Observation, error) {
	var o Observation
	err := decodeObservationInto(data, &o)
	return o, err
}

// decodeObservationInto decodes in place (an Observation of its own
// passed to the decoder would escape to the heap).
func decodeObservationInto(data []byte, o *Observation) error {
	return observationFields.Decode(data, o)
}

func decodeEntry(data []byte) (Entry, error) {
	var e Entry
	err := decodeEntryInto(data, &e)
	return e, err
}

func decodeEntryInto(data []byte, e *Entry) error { return entryFields.Decode(data, e) }

// rowFields are entryFields for a row shown and dropped: the keys a row
// has no field for (the content above all) are stepped over, not copied
// into Extra.
var rowFields = jsonfile.Lazy[Entry]{Build: func() *jsonfile.Object[Entry] {
	o := *entryFields.Build()
	o.Extra = nil
	return &o
}}

// decodeRow is decodeEntry without Extra (nil): a file base's row.
func decodeRow(data []byte) (Entry, error) {
	var e Entry
	err := rowFields.Decode(data, &e)
	return e, err
}

// CheckInput validates an observation that came from outside (a file given
// to `memory add --file`) as strictly as the command line validates its
// arguments: an agent name of [a-z0-9-], an issue in range, a known
// category, some content, a reference timestamp, no negative count. The
// error names the JSON field. Content is sanitised, and cut, by the caller.
func CheckInput(o Observation) error {
	field := func(name string, err error) error {
		return errcode.Wrap(errcode.InvalidInput, err, "field %q", name)
	}
	if err := validate.Agent("agent", o.Agent); err != nil {
		return field("agent", errors.New(strings.TrimPrefix(err.Error(), "agent: ")))
	}
	if err := validate.IssueNumber(o.IssueNumber); err != nil {
		return field("issueNumber", err)
	}
	if !o.Category.Known() {
		return field("category", fmt.Errorf("unknown category %q (want decision, code-change, error, key-fact or compaction-summary)", o.Category))
	}
	if strings.TrimSpace(o.Content) == "" {
		return field("content", errors.New("content is empty"))
	}
	// As memory add TEXT: cut to the limit, the rest would be lost unsaid.
	if n := utf8.RuneCountInString(o.Content); n > sanitize.MaxChars {
		return field("content", fmt.Errorf("content is %d characters, the limit is %d", n, sanitize.MaxChars))
	}
	if o.Timestamp != "" {
		if _, err := clock.Parse(o.Timestamp); err != nil {
			return field("timestamp", err)
		}
	}
	if o.Tokens < 0 {
		return field("tokens", fmt.Errorf("%d is negative", o.Tokens))
	}
	if o.RecallCount < 0 {
		return field("recallCount", fmt.Errorf("%d is negative", o.RecallCount))
	}
	if o.ID != "" {
		if err := validate.RecordID(o.ID); err != nil {
			// RecordID words a clarification's id; this is an observation's.
			return field("id", errors.New(strings.Replace(err.Error(), "clarification id", "observation id", 1)))
		}
	}
	if err := validate.Session("sessionId", o.SessionID); err != nil {
		return field("sessionId", errors.New(strings.TrimPrefix(err.Error(), "sessionId: ")))
	}
	return nil
}
