package mcpserver

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/ready"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
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
}

type searchIn struct {
	Query    string `json:"query,omitempty" jsonschema:"words to rank by (BM25 over summary and content; any word may match)"`
	Limit    int    `json:"limit,omitempty" jsonschema:"at most this many hits (default 10, at most 100)"`
	Issue    *int   `json:"issue,omitempty" jsonschema:"only observations of this issue"`
	Agent    string `json:"agent,omitempty" jsonschema:"only observations by this agent"`
	Category string `json:"category,omitempty" jsonschema:"only this category: decision, code-change, error, key-fact, compaction-summary"`
}

// SearchResult is memory_search's hits, best first.
type SearchResult struct {
	Outcome
	Hits []Hit  `json:"hits,omitempty"`
	Next string `json:"next,omitempty"`
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
	ID     string `json:"id" jsonschema:"an observation id from memory_search"`
	Before *int   `json:"before,omitempty" jsonschema:"observations before it (default 3, at most 50)"`
	After  *int   `json:"after,omitempty" jsonschema:"observations after it (default 3, at most 50)"`
}

// ObservationsResult is a list of observations (memory_timeline, memory_get).
type ObservationsResult struct {
	Outcome
	Observations []Observation `json:"observations,omitempty"`
	// NotFound are the ids memory_get found nothing for.
	NotFound []string `json:"notFound,omitempty"`
}

type getIn struct {
	IDs []string `json:"ids" jsonschema:"observation ids from memory_search or memory_timeline (at most 20)"`
}

type rememberIn struct {
	Content  string `json:"content" jsonschema:"the decision or fact, in a sentence or a short paragraph (at most 2000 characters; secrets and <private> parts are removed)"`
	Category string `json:"category,omitempty" jsonschema:"decision (default), key-fact, error or code-change"`
	Issue    *int   `json:"issue,omitempty" jsonschema:"the issue (default: $AGENTX_ISSUE, else the branch's issue)"`
	Agent    string `json:"agent,omitempty" jsonschema:"who observed it; only this server's own agent is accepted"`
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
	Issues []*ready.Issue `json:"issues,omitempty"`
}

func (s *server) addMemoryTools(srv *mcp.Server) {
	add(srv, "memory_search", "Search the team's memory; returns compact hits (id, summary, score, tokens) to pick from.", s.search)
	add(srv, "memory_timeline", "What happened around one observation: its issue's observations just before and after it.", s.timeline)
	add(srv, "memory_get", "Full observations by id, each with its integrity (intact, unhashed or tampered).", s.get)
	add(srv, "memory_remember", "Record a decision or fact now, so later sessions and other agents recall it (sanitised before storing).", s.remember)
	add(srv, "ready", "Issues known locally and whether a blocking clarification holds them up, and for whom.", s.ready)
}

func (s *server) search(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (*SearchResult, error) {
	q := memory.Query{Text: in.Query, Agent: in.Agent, Category: memory.Category(in.Category), Limit: 10}
	if in.Limit > 0 {
		q.Limit = min(in.Limit, 100)
	}
	if in.Issue != nil {
		q.Issue, q.IssueSet = *in.Issue, true
	}
	if in.Category != "" && !q.Category.Known() {
		return nil, errcode.New(errcode.InvalidInput, "unknown category %q (decision, code-change, error, key-fact, compaction-summary)", in.Category)
	}
	if strings.TrimSpace(q.Text) == "" && q.Agent == "" && !q.IssueSet && q.Category == "" {
		return nil, errcode.New(errcode.InvalidInput, "memory_search needs a query or a filter (agent, issue, category)")
	}
	rows, err := s.o.Memory.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	out := &SearchResult{Hits: make([]Hit, 0, len(rows))}
	for _, r := range rows {
		score, _ := strconv.ParseFloat(strconv.FormatFloat(r.Score, 'f', 4, 64), 64)
		out.Hits = append(out.Hits, Hit{ID: r.ID, Summary: sanitize.Neutralize(r.Summary), Score: score, Tokens: r.Tokens, Issue: r.IssueNumber,
			Agent: r.Agent, Category: string(r.Category), Timestamp: r.Timestamp})
	}
	if len(rows) > 0 {
		out.Next = "memory_timeline around a hit, or memory_get with the ids worth reading in full"
	}
	return out, nil
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
	for i := range tl.Observations {
		o := observationOf(&tl.Observations[i], false)
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
			out.NotFound = append(out.NotFound, id)
			continue
		}
		if err != nil {
			return nil, err
		}
		out.Observations = append(out.Observations, observationOf(o, true))
	}
	if len(out.Observations) == 0 {
		return nil, errcode.New(errcode.NotFound, "no observation %s", strings.Join(in.IDs, ", ")).
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
	text, redacted, err := memory.ByHandText(text)
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
	return &ReadyResult{Issues: rep.Issues}, nil
}
