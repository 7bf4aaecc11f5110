package memory

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/shorten"
)

// What the memory commands take in and give out besides the store's own
// calls: a batch file checked before anything is stored, and the store's
// results as documents and lines. Values only; the commands print them.

// PrepareBatch reads a batch of observations a person hands in (a JSON
// array with the reference fields, or an issue file), named what in
// errors: all or nothing, every record is checked before any is stored,
// then sanitised like any outside input. A file that does not parse is the
// caller's mistake (INVALID_INPUT), not a store that needs repair.
func PrepareBatch(what, path string, data []byte) ([]Observation, error) {
	obs, err := ParseObservations(path, data)
	if err != nil {
		if errcode.Is(err, errcode.CorruptState) {
			return nil, errcode.Wrap(errcode.InvalidInput, err, "%s", what)
		}
		return nil, err
	}
	for i, o := range obs {
		if err := CheckInput(o); err != nil {
			return nil, errcode.Wrap(errcode.InvalidInput, err, "%s: %s: record [%d]", what, path, i)
		}
	}
	for i := range obs {
		obs[i].Content = sanitize.Text(obs[i].Content)
		if obs[i].Summary != "" {
			obs[i].Summary = sanitize.Text(obs[i].Summary)
		}
	}
	return obs, nil
}

// DuplicateDoc is a skipped duplicate as the JSON documents list it.
type DuplicateDoc struct {
	Agent    string `json:"agent"`
	Issue    int    `json:"issueNumber"`
	Existing string `json:"existing"`
}

// DuplicateDocs lists dups for a document (never null).
func DuplicateDocs(dups []Duplicate) []DuplicateDoc {
	return docs(dups, func(d Duplicate) DuplicateDoc { return DuplicateDoc(d) })
}

// docs lists xs as documents by doc, never null (an empty list reads []).
func docs[T, D any](xs []T, doc func(T) D) []D {
	out := make([]D, 0, len(xs))
	for _, x := range xs {
		out = append(out, doc(x))
	}
	return out
}

// RoundScore keeps four decimals of a ranking score: documents stay
// stable across platforms' last-bit differences.
func RoundScore(s float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(s, 'f', 4, 64), 64)
	return v
}

// RowDoc is a search row as `memory search --json` lists it.
type RowDoc struct {
	Agent       string   `json:"agent"`
	Category    Category `json:"category"`
	ID          string   `json:"id"`
	IssueNumber int      `json:"issueNumber"`
	Score       float64  `json:"score"`
	Summary     string   `json:"summary"`
	Timestamp   string   `json:"timestamp"`
	Tokens      int      `json:"tokens"`
	// Untrusted is set when the audit trail does not account for the
	// observation (package memanchor): do not believe it.
	Untrusted *Mark `json:"untrusted,omitempty"`
}

// Mark says why an observation shown is not to be believed: a code of
// verify's (OBSERVATION_REHASHED, OBSERVATION_UNANCHORED,
// OBSERVATION_HASH_MISMATCH) and one line of reason.
type Mark struct {
	Code   string `json:"code"`
	Reason string `json:"reason"`
}

// RowDocs lists rows for a document (never null).
func RowDocs(rows []Row) []RowDoc {
	return docs(rows, func(r Row) RowDoc {
		return RowDoc{ID: r.ID, Agent: r.Agent, IssueNumber: r.IssueNumber, Category: r.Category,
			Summary: r.Summary, Tokens: r.Tokens, Timestamp: r.Timestamp, Score: RoundScore(r.Score)}
	})
}

// Date is the day of the row's timestamp (its first ten characters).
func (r *Row) Date() string {
	if len(r.Timestamp) >= 10 {
		return r.Timestamp[:10]
	}
	return r.Timestamp
}

// Text is the store's figures for people: counts, disk, time span, and
// the observations by category and by agent. Warnings are left to the
// caller (they go to stderr).
func (s *Stats) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Observations: %d  Tokens: %d  Issues: %d  Disk: %s\n", s.TotalObservations, s.TotalTokens, s.IssueCount, shorten.Bytes(s.DiskBytes))
	if s.OldestTimestamp != nil && s.NewestTimestamp != nil {
		fmt.Fprintf(&b, "Oldest: %s  Newest: %s\n", *s.OldestTimestamp, *s.NewestTimestamp)
	}
	for _, part := range []struct {
		name string
		m    map[string]int
	}{{"By category", s.ByCategory}, {"By agent", s.ByAgent}} {
		if len(part.m) == 0 {
			continue
		}
		var items []string
		for _, k := range SortedKeys(part.m) {
			items = append(items, fmt.Sprintf("%s %d", k, part.m[k]))
		}
		fmt.Fprintf(&b, "%s: %s\n", part.name, strings.Join(items, ", "))
	}
	return b.String()
}

// Text is a rebuild for people: what was indexed, and the corrupt issue
// files it left untouched.
func (r *RebuildReport) Text() string {
	var b strings.Builder
	what := "Manifest"
	if r.IndexOnly {
		what = "Search index" // a file base: no manifest.json
	}
	fmt.Fprintf(&b, "%s rebuilt: %d observations from %d issue files in %s.\n", what, r.Entries, r.IssueFiles, r.Duration.Round(time.Millisecond))
	for _, f := range r.Skipped {
		fmt.Fprintf(&b, "skipped (corrupt, left untouched): %s\n", f)
	}
	return b.String()
}

// Header is the observation's facts as `memory get` shows them under its
// id: issue, agent, category, tokens, then time, session and recalls.
func (o *Observation) Header() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Issue: #%d  Agent: %s  Category: %s  Tokens: %d\n", o.IssueNumber, o.Agent, o.Category, o.Tokens)
	fmt.Fprintf(&b, "Time: %s", o.Timestamp)
	if o.SessionID != "" { // hand-added and generated observations have none
		fmt.Fprintf(&b, "  Session: %s", o.SessionID)
	}
	if o.RecallCount > 0 {
		fmt.Fprintf(&b, "  Recalled: %d", o.RecallCount)
	}
	return b.String()
}
