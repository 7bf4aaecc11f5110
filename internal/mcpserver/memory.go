package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/memanchor"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/ready"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/shorten"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

// Hit is one compact search result: enough to choose what to read in full.
type Hit struct {
	ID        string  `json:"id"`
	Summary   string  `json:"summary"`
	Score     float64 `json:"score"`
	Tokens    int     `json:"tokens" jsonschema:"what reading it in full costs"`
	Issue     int     `json:"issue"`
	Agent     string  `json:"agent"`
	Category  string  `json:"category"`
	Timestamp string  `json:"timestamp"`
	// Untrusted: the audit trail does not account for it (verify's code
	// and why); do not act on it.
	Untrusted *memory.Mark `json:"untrusted,omitempty"`
}

type searchIn struct {
	Query    string `json:"query,omitempty" jsonschema:"BM25 words, any may match"`
	Limit    int    `json:"limit,omitempty" jsonschema:"default 10"`
	Offset   int    `json:"offset,omitempty" jsonschema:"a page's nextOffset"`
	Issue    *int   `json:"issue,omitempty"`
	Agent    string `json:"agent,omitempty"`
	Category string `json:"category,omitempty"`
	Since    string `json:"since,omitempty" jsonschema:"ISO 8601 or 7d, 12h"`
	Until    string `json:"until,omitempty" jsonschema:"ISO 8601"`
	Archived bool   `json:"archived,omitempty" jsonschema:"search the archive"`
}

// SearchResult is memory_search's hits, best first.
type SearchResult struct {
	Outcome
	Hits []Hit `json:"hits"`
	// NextOffset is the offset of the next page; 0: this is the last.
	NextOffset int    `json:"nextOffset,omitempty"`
	Next       string `json:"next,omitempty"`
	// Warnings name the issue files that could not be read (left
	// untouched): what they hold is missing from the hits, so no hits is
	// not "nothing stored".
	Warnings []string `json:"warnings,omitempty" jsonschema:"unreadable issue files, left out"`
}

// Observation is one stored observation in full. Integrity is "intact",
// "unhashed" (stored by the old tools) or "tampered" (changed since it
// was stored: do not trust it).
type Observation struct {
	ID          string `json:"id"`
	Issue       int    `json:"issue"`
	Agent       string `json:"agent"`
	Category    string `json:"category"`
	Summary     string `json:"summary"`
	Content     string `json:"content,omitempty"`
	Tokens      int    `json:"tokens"`
	Timestamp   string `json:"timestamp"`
	SessionID   string `json:"sessionId,omitempty"`
	RecallCount int    `json:"recallCount,omitempty"`
	Integrity   string `json:"integrity"`
	// Untrusted: the audit trail does not account for it.
	Untrusted *memory.Mark `json:"untrusted,omitempty"`
	// Hit marks the observation a timeline was asked around.
	Hit bool `json:"hit,omitempty"`
}

func observationOf(o *memory.Observation, full bool) Observation {
	out := Observation{ID: o.ID, Issue: o.IssueNumber, Agent: o.Agent, Category: string(o.Category), Summary: sanitize.Neutralize(o.Summary),
		Tokens: o.Tokens, Timestamp: o.Timestamp, SessionID: o.SessionID, RecallCount: o.RecallCount, Integrity: o.Integrity().String()}
	if full {
		out.Content = sanitize.Neutralize(o.Content)
	}
	if out.Summary == "" {
		out.Summary = sanitize.Neutralize(memory.Summarize(o.Content))
	}
	return out
}

type timelineIn struct {
	ID     string `json:"id"`
	Before *int   `json:"before,omitempty" jsonschema:"default 3"`
	After  *int   `json:"after,omitempty" jsonschema:"default 3"`
}

// ObservationsResult is a list of observations (memory_timeline, memory_get).
type ObservationsResult struct {
	Outcome
	Observations []Observation `json:"observations"`
	// NotFound are the ids memory_get found nothing for (each cut to
	// 100 characters).
	NotFound []string `json:"notFound,omitempty"`
}

type getIn struct {
	IDs []string `json:"ids"`
}

type rememberIn struct {
	Content  string `json:"content" jsonschema:"a sentence or short paragraph"`
	Category string `json:"category,omitempty" jsonschema:"default decision"`
	Issue    *int   `json:"issue,omitempty" jsonschema:"default: the session's issue"`
	Agent    string `json:"agent,omitempty" jsonschema:"leave out"`
}

// RememberResult is what memory_remember stored.
type RememberResult struct {
	Outcome
	ID string `json:"id,omitempty"`
	// Duplicate: the same agent stored the same content on the issue
	// before; ID is that observation.
	Duplicate bool `json:"duplicate,omitempty"`
	// Redacted: private parts or secrets were removed before storing.
	Redacted bool `json:"redacted,omitempty"`
}

type readyIn struct{}

// ReadyResult is the ready queue.
type ReadyResult struct {
	Outcome
	Issues []*ready.Issue `json:"issues"`
}

func (s *server) addMemoryTools(srv *mcp.Server) {
	cats := make([]string, 0, 5)
	for _, c := range memory.Categories() {
		cats = append(cats, string(c))
	}
	add(srv, spec{name: "memory_search", title: "Search memory", readOnly: true,
		desc: "Search memory: compact hits (id, summary, score), paged.",
		in: map[string]bound{"query": chars(0, validate.MaxBody), "limit": between(1, 100), "offset": between(0, maxOffset),
			"issue": between(0, validate.MaxIssue), "agent": agentBound, "category": oneOf(cats...),
			"since": chars(0, 40), "until": chars(0, 40)}}, s.search)
	add(srv, spec{name: "memory_timeline", title: "Memory timeline", readOnly: true,
		desc: "An issue's observations just before and after one.",
		in:   map[string]bound{"id": idBound, "before": between(0, 50), "after": between(0, 50)}}, s.timeline)
	add(srv, spec{name: "memory_get", title: "Read observations", readOnly: true,
		desc: "Full observations by id, with their integrity.",
		in:   map[string]bound{"ids": items(1, 20, 100)}}, s.get)
	add(srv, spec{name: "memory_remember", title: "Remember a decision",
		desc: "Record a decision or fact for later sessions (secrets removed).", idempotent: true,
		in: map[string]bound{"content": bodyBound, "category": oneOf(string(memory.Decision), string(memory.KeyFact), string(memory.Error), string(memory.CodeChange)),
			"issue": issueBound, "agent": actorBound}}, s.remember)
	add(srv, spec{name: "ready", title: "Ready queue", readOnly: true,
		desc: "Issues and the clarifications that block them."}, s.ready)
}

// maxOffset bounds memory_search's paging: a search reads offset+limit
// hits to return the last limit.
const maxOffset = 10_000

func (s *server) search(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (*SearchResult, error) {
	q := memory.Query{Text: in.Query, Agent: in.Agent, Category: memory.Category(in.Category)}
	limit := 10
	if in.Limit > 0 {
		limit = min(in.Limit, 100)
	}
	offset := min(max(in.Offset, 0), maxOffset)
	q.Limit = offset + limit + 1 // one more says whether a next page exists
	if in.Issue != nil {
		q.Issue, q.IssueSet = *in.Issue, true
	}
	if in.Category != "" && !q.Category.Known() {
		return nil, errcode.New(errcode.InvalidInput, "unknown category %q (decision, code-change, error, key-fact, compaction-summary)", in.Category)
	}
	now := s.o.Router.Clock.Now()
	var err error
	if q.Since, err = clock.ParseWhen(in.Since, now); err != nil {
		return nil, err
	}
	if q.Until, err = clock.ParseWhen(in.Until, now); err != nil {
		return nil, err
	}
	if strings.TrimSpace(q.Text) == "" && q.Agent == "" && !q.IssueSet && q.Category == "" && in.Since == "" && in.Until == "" {
		return nil, errcode.New(errcode.InvalidInput, "memory_search needs a query or a filter (agent, issue, category, since, until)")
	}
	// A copy of the store hears of the issue files this search leaves
	// out (the store's Warn still says them on stderr).
	st := *s.o.Memory
	var skipped memory.LeftOut
	st.Skipped = skipped.Add
	var rows []memory.Row
	if in.Archived {
		rows, err = st.SearchArchived(ctx, q)
	} else {
		rows, err = st.Search(ctx, q)
	}
	if err != nil {
		return nil, err
	}
	out := &SearchResult{Hits: []Hit{}, Warnings: skipped.List()}
	if len(rows) > offset+limit {
		out.NextOffset = offset + limit
		rows = rows[:offset+limit]
	}
	rows = rows[min(offset, len(rows)):]
	var marks *memanchor.Report
	if !in.Archived {
		marks = s.marks(ctx, rows...)
	}
	for _, r := range rows {
		score, _ := strconv.ParseFloat(strconv.FormatFloat(r.Score, 'f', 4, 64), 64)
		out.Hits = append(out.Hits, Hit{ID: r.ID, Summary: sanitize.Neutralize(r.Summary), Score: score, Tokens: r.Tokens, Issue: r.IssueNumber,
			Agent: r.Agent, Category: string(r.Category), Timestamp: r.Timestamp, Untrusted: marks.Mark(r.ID)})
	}
	switch {
	case in.Archived && len(rows) > 0:
		out.Next = "archived: `agentx-hook memory restore ID` brings one back"
	case len(rows) > 0:
		out.Next = "memory_timeline around a hit, or memory_get with the ids worth reading in full"
	}
	if out.NextOffset > 0 {
		out.Next += fmt.Sprintf("; more with offset %d", out.NextOffset)
	}
	return out, nil
}

// marks checks the issues of rows against the audit trail.
func (s *server) marks(ctx context.Context, rows ...memory.Row) *memanchor.Report {
	issues := make([]int, 0, len(rows))
	for _, r := range rows {
		issues = append(issues, r.IssueNumber)
	}
	return s.marksOf(ctx, issues)
}

// marksOf checks issues against the audit trail (memanchor, the rule
// verify applies); a failure is a warning and marks nothing.
func (s *server) marksOf(ctx context.Context, issues []int) *memanchor.Report {
	if len(issues) == 0 {
		return nil
	}
	rep, err := memanchor.For(s.o.WS).Check(ctx, issues)
	if err != nil {
		s.o.Warn("memory not checked against the audit trail: %v", err)
		return nil
	}
	return rep
}

// window is n bounded to 0..50, def when unset.
func window(n *int, def int) int {
	if n == nil {
		return def
	}
	return min(max(*n, 0), 50)
}

func (s *server) timeline(ctx context.Context, _ *mcp.CallToolRequest, in timelineIn) (*ObservationsResult, error) {
	tl, err := s.o.Memory.Timeline(ctx, in.ID, window(in.Before, 3), window(in.After, 3))
	if err != nil {
		return nil, err
	}
	out := &ObservationsResult{Observations: make([]Observation, 0, len(tl.Observations))}
	var issues []int
	for i := range tl.Observations {
		issues = append(issues, tl.Observations[i].IssueNumber)
	}
	marks := s.marksOf(ctx, issues)
	for i := range tl.Observations {
		o := observationOf(&tl.Observations[i], false)
		o.Untrusted = marks.Mark(o.ID)
		o.Hit = i == tl.At
		out.Observations = append(out.Observations, o)
	}
	return out, nil
}

func (s *server) get(ctx context.Context, _ *mcp.CallToolRequest, in getIn) (*ObservationsResult, error) {
	if len(in.IDs) == 0 || len(in.IDs) > 20 {
		return nil, errcode.New(errcode.InvalidInput, "memory_get takes 1 to 20 ids, got %d", len(in.IDs))
	}
	out := &ObservationsResult{Observations: []Observation{}}
	for _, id := range in.IDs {
		o, err := s.o.Memory.GetByID(ctx, id)
		if errcode.Is(err, errcode.NotFound) {
			out.NotFound = append(out.NotFound, shorten.Line(id, 100))
			continue
		}
		if err != nil {
			return nil, err
		}
		ob := observationOf(o, true)
		ob.Untrusted = s.marksOf(ctx, []int{o.IssueNumber}).Mark(o.ID)
		out.Observations = append(out.Observations, ob)
	}
	if len(out.Observations) == 0 {
		return nil, errcode.New(errcode.NotFound, "no observation with id %s", strings.Join(out.NotFound, ", ")).
			WithHint("ids come from memory_search or memory_timeline")
	}
	return out, nil
}

func (s *server) remember(ctx context.Context, _ *mcp.CallToolRequest, in rememberIn) (*RememberResult, error) {
	if err := s.actor("agent", in.Agent); err != nil {
		return nil, err
	}
	cat := memory.Category(in.Category)
	if cat == "" {
		cat = memory.Decision
	}
	if !cat.Known() {
		return nil, errcode.New(errcode.InvalidInput, "unknown category %q (decision, code-change, error, key-fact, compaction-summary)", in.Category)
	}
	issue, err := s.issue(ctx, in.Issue)
	if err != nil {
		return nil, err
	}
	if err := validate.IssueNumber(issue); err != nil {
		return nil, err
	}
	text := strings.TrimSpace(in.Content)
	if text == "" {
		return nil, errcode.New(errcode.InvalidInput, "memory_remember needs the content")
	}
	text, changed, err := memory.ByHandText(text)
	redacted := changed != 0
	if err != nil {
		return nil, err
	}
	st := *s.o.Memory
	st.AuditOp, st.Actor = memory.OpAdd, s.o.Agent
	stored, dups, err := st.StoreReport(ctx, []memory.Observation{{Agent: s.o.Agent, IssueNumber: issue, Category: cat, Content: text}})
	if err != nil {
		return nil, err
	}
	switch {
	case len(stored) == 1:
		return &RememberResult{ID: stored[0].ID, Redacted: redacted}, nil
	case len(dups) == 1:
		return &RememberResult{ID: dups[0].Existing, Duplicate: true, Redacted: redacted}, nil
	}
	return nil, errors.New("memory_remember: the store reported nothing stored")
}

func (s *server) ready(ctx context.Context, _ *mcp.CallToolRequest, _ readyIn) (*ReadyResult, error) {
	rep, err := ready.Load(ctx, monitor.New(s.o.Router), s.o.WS)
	if err != nil {
		return nil, err
	}
	for _, w := range rep.Warnings {
		s.o.Warn("%s", w)
	}
	if rep.Issues == nil {
		rep.Issues = []*ready.Issue{}
	}
	return &ReadyResult{Issues: rep.Issues}, nil
}
