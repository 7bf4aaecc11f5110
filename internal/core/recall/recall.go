// Package recall owns what a session is reminded of at its start: which
// stored observations are relevant (the SPEC's Phase 3 relevance score),
// which of them fit the budget (the smaller of `[memory] max_tokens` and the
// host's own ceiling), and the `## Memory Recall` text that states them.
//
// Ranking, budgets and rendering are pure functions of their input and a
// time, so they are table-tested without a store. Gather reads the
// candidates through a small interface to the store (gather.go); the CLI
// wires it and records what was recalled (package recalljournal).
package recall

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/capture"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/shorten"
	"github.com/agentx-dev/agentx/internal/core/wordset"
)

// Weights of the SPEC's Phase 3 relevance score (5.2).
const (
	WeightRecency = 0.4
	WeightRecall  = 0.2
	WeightKeyword = 0.4
	// RecencyHalfLifeDays: recency is 1/(1+days/30), one half at 30 days.
	RecencyHalfLifeDays = 30.0
	// RecallSaturation is the recall count at which the recall factor is 1.
	RecallSaturation = 10.0
)

// Host ceilings: what a host shows of a hook's context. Claude Code shows at
// most 10,000 characters of additionalContext (more becomes a 2,000-character
// preview, which would hide the recall behind a file reference); Codex shows
// about 2,500 tokens.
const (
	ClaudeMaxChars = 10000
	CodexMaxTokens = 2500
	// CharsPerToken is the reference token estimate (memory.EstimateTokens).
	CharsPerToken = 4
)

// Origin says why an observation is a candidate. Candidates are gathered in
// this order (the agent's issue first) and ties in score keep it.
type Origin int

const (
	// FromIssue: an observation of the issue the session works on.
	FromIssue Origin = iota
	// FromRelated: an observation of another issue that matches the keywords.
	FromRelated
	// FromRecent: the agent's own recent work on other issues.
	FromRecent
)

// Candidate is one observation that may be recalled. Content may be empty
// (only the index row was read); then only its summary can be shown.
type Candidate struct {
	Obs    memory.Observation
	Origin Origin
}

// Keywords normalises the words recall ranks by (the query, the branch
// name, open clarifications, commit subjects): lower-cased words of two
// characters or more without stop words, in first-seen order, at most limit
// (0: no limit). Issue-number-only words and the branch's separators carry
// nothing and drop out with the normalisation.
func Keywords(limit int, texts ...string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range texts {
		// Keep the text's own order: the query comes first and should
		// survive the cap.
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
		}) {
			if seen[w] || !wordset.Of(w)[w] || isNumber(w) {
				continue
			}
			seen[w] = true
			out = append(out, w)
			if limit > 0 && len(out) == limit {
				return out
			}
		}
	}
	return out
}

func isNumber(w string) bool {
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// Recency is 1/(1+days/30) for an observation stamped ts; an unreadable or
// future stamp counts as now.
func Recency(ts string, now time.Time) float64 {
	t, err := clock.Parse(ts)
	if err != nil {
		return 1
	}
	days := now.Sub(t).Hours() / 24
	if days < 0 {
		days = 0
	}
	return 1 / (1 + days/RecencyHalfLifeDays)
}

// RecallFactor is min(count/10, 1).
func RecallFactor(count int) float64 {
	return math.Min(float64(max(count, 0))/RecallSaturation, 1)
}

// Overlap is the share of keywords found among the observation's words
// (summary and content): matching / total, 0 without keywords.
func Overlap(o *memory.Observation, keywords []string) float64 {
	if len(keywords) == 0 {
		return 0
	}
	words := wordset.Of(o.Summary + " " + o.Content)
	n := 0
	for _, k := range keywords {
		if words[k] {
			n++
		}
	}
	return float64(n) / float64(len(keywords))
}

// Score is the SPEC's Phase 3 relevance: 0.4 recency + 0.2 recall + 0.4
// keyword overlap, in [0, 1].
func Score(o *memory.Observation, keywords []string, now time.Time) float64 {
	return WeightRecency*Recency(o.Timestamp, now) + WeightRecall*RecallFactor(o.RecallCount) + WeightKeyword*Overlap(o, keywords)
}

// Scored is a candidate with its relevance.
type Scored struct {
	Candidate
	Score float64
	// Full reports that the rendered statement carries the full content.
	Full bool
}

// Rank scores candidates and sorts them by score, then origin (the agent's
// issue first), then newest. A candidate whose ID was already seen is
// dropped (the same observation can be found by several routes).
func Rank(cands []Candidate, keywords []string, now time.Time) []Scored {
	out := make([]Scored, 0, len(cands))
	seen := map[string]bool{}
	for _, c := range cands {
		if c.Obs.ID != "" {
			if seen[c.Obs.ID] {
				continue
			}
			seen[c.Obs.ID] = true
		}
		out = append(out, Scored{Candidate: c, Score: Score(&c.Obs, keywords, now)})
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		// Scores within rounding noise are equal, so ties fall to origin.
		if d := a.Score - b.Score; math.Abs(d) > 1e-9 {
			return d > 0
		}
		if a.Origin != b.Origin {
			return a.Origin < b.Origin
		}
		return a.Obs.Timestamp > b.Obs.Timestamp
	})
	return out
}

// StepBoost is added to the score of a decision captured in a step the
// agent's step needs (the architect recalls the PRD step's decisions
// before other work of the same age and words).
const StepBoost = 0.2

// Favor raises the decisions captured in the favoured steps by StepBoost
// and sorts again as Rank does; without steps, ranked is returned as is.
func Favor(ranked []Scored, steps map[string]bool) []Scored {
	if len(steps) == 0 {
		return ranked
	}
	boosted := false
	for i := range ranked {
		if o := &ranked[i].Obs; o.Category == memory.Decision && steps[o.Step()] {
			ranked[i].Score += StepBoost
			boosted = true
		}
	}
	if boosted {
		sort.SliceStable(ranked, func(i, j int) bool {
			a, b := ranked[i], ranked[j]
			if d := a.Score - b.Score; math.Abs(d) > 1e-9 {
				return d > 0
			}
			if a.Origin != b.Origin {
				return a.Origin < b.Origin
			}
			return a.Obs.Timestamp > b.Obs.Timestamp
		})
	}
	return ranked
}

// Budget is the character budget of a recall: the smaller of maxTokens
// (`[memory] max_tokens`, in tokens) and the host's ceilings (characters
// and tokens; 0 means none). 0 means recall is off.
func Budget(maxTokens, hostChars, hostTokens int) int {
	if maxTokens <= 0 {
		return 0
	}
	chars := maxTokens * CharsPerToken
	if hostChars > 0 && hostChars < chars {
		chars = hostChars
	}
	if hostTokens > 0 && hostTokens*CharsPerToken < chars {
		chars = hostTokens * CharsPerToken
	}
	return chars
}

// Options describe one recall.
type Options struct {
	Agent    string
	Issue    int
	HasIssue bool
	// Query is the --query text, repeated in the search hint.
	Query string
	// MaxChars is the budget of the section body in characters (Budget).
	MaxChars int
	// CLI is the command name the search hint uses.
	CLI string
	// Stored is how many observations exist beyond the candidates (for the
	// "more exist" line); the candidates not shown are added to it.
	Stored int
}

// Result is a rendered recall.
type Result struct {
	// Shown are the recalled observations, best first.
	Shown []Scored
	// More is how many relevant observations were not shown.
	More int
	// Body is the section's text without its `## Memory Recall` title.
	Body string
	// Tokens is the estimated tokens of Body.
	Tokens int
	// Displaced is the estimated tokens an agent would have re-read to learn
	// what was recalled: the recalled observations' source size.
	Displaced int
	// Searches are the index searches the recall made, their time and the
	// rows they returned (Service.Recall's metrics; zero from Select).
	Searches      int
	SearchTime    time.Duration
	SearchResults int
	// Withheld is the notice of what the audit trail does not account
	// for, left out of the recall ("" when nothing was); Body begins with
	// it.
	Withheld string
}

// IDs returns the recalled observation IDs in order.
func (r Result) IDs() []string {
	ids := make([]string, 0, len(r.Shown))
	for _, s := range r.Shown {
		ids = append(ids, s.Obs.ID)
	}
	return ids
}

// footerReserve keeps room for the "more" and displacement lines, which are
// written after the statements but must fit the same budget.
const footerReserve = 260

// Select takes ranked candidates greedily within opt.MaxChars: the best
// ones with their full content while that fits, then one line each; a
// candidate that does not fit is skipped and counted, so a smaller one
// after it can still be shown. It renders the section body.
func Select(ranked []Scored, opt Options) Result {
	var res Result
	var b strings.Builder
	// Stored text is data (issue 32): one line frames it, and every line
	// of it is quoted (sanitize.Quote), so nothing stored can close the
	// frame or pose as the host's own tags or a role.
	limit := opt.MaxChars - footerReserve - len(sanitize.NotesLine) - 1
	full := true
	for _, s := range ranked {
		// Stored text comes from other tools too; hosts read UTF-8 only
		// (Quote makes it valid).
		head := sanitize.Quote(strings.TrimSuffix(statement(&s.Obs), "\n")) + "\n"
		body := ""
		if full {
			if d := detail(&s.Obs); d != "" {
				body = sanitize.Quote(strings.TrimSuffix(d, "\n")) + "\n"
			}
		}
		switch {
		case body != "" && b.Len()+len(head)+len(body) <= limit:
			s.Full = true
			b.WriteString(head)
			b.WriteString(body)
		case b.Len()+len(head) <= limit:
			// From the first one shown without its content on, the rest are
			// lines: full content goes to the highest-ranked only.
			full = full && body == ""
			b.WriteString(head)
		default:
			full = false
			res.More++
			continue
		}
		res.Shown = append(res.Shown, s)
		res.Displaced += displaced(s.Candidate)
	}
	res.More += opt.Stored
	if len(res.Shown) > 0 {
		notes := b.String()
		b.Reset()
		b.WriteString(sanitize.NotesLine + "\n")
		b.WriteString(notes)
	}
	if len(res.Shown) == 0 && res.More == 0 {
		who := opt.Agent
		if opt.HasIssue {
			who += fmt.Sprintf(" on issue #%d", opt.Issue)
		}
		b.WriteString(fmt.Sprintf("No stored observations for %s yet; `hook finish` captures them at session end.\n", who))
	} else {
		if res.More > 0 {
			b.WriteString(moreLine(res.More, opt))
		}
		b.WriteString(fmt.Sprintf("Memory recall displaced %d tokens of manual re-read.\n", res.Displaced))
	}
	res.Body = strings.TrimRight(b.String(), "\n")
	res.Body = strings.ToValidUTF8(res.Body, "\uFFFD") // the query is repeated in the footer
	if opt.MaxChars > 0 && len(res.Body) > opt.MaxChars {
		// Only reachable with a budget smaller than the footer itself:
		// end on a whole line, never mid-word ("Memory recall di").
		res.Body = cut(res.Body, opt.MaxChars)
		if i := strings.LastIndexByte(res.Body, '\n'); i > 0 {
			res.Body = res.Body[:i]
		}
	}
	res.Tokens = memory.EstimateTokens(res.Body)
	return res
}

// statement is one recalled observation as a fact: id, date, agent, issue,
// category and summary, on one line.
func statement(o *memory.Observation) string {
	date := o.Timestamp
	if len(date) > 10 {
		date = date[:10]
	}
	// Neutralised before it is flattened: a role label must be seen at the
	// start of its own line.
	return fmt.Sprintf("- %s (%s, %s, #%d, %s): %s\n", o.ID, date, o.Agent, o.IssueNumber, o.Category, shorten.Flatten(sanitize.Neutralize(o.Summary)))
}

// detail is the full content under a statement, indented, when it says more
// than the summary; a first line that is the summary is on the statement's
// line already.
func detail(o *memory.Observation) string {
	c := strings.TrimSpace(o.Content)
	summary := strings.TrimSpace(o.Summary)
	if first, rest, ok := strings.Cut(c, "\n"); ok && summary != "" && strings.TrimSpace(first) == summary {
		c = strings.TrimSpace(rest)
	}
	if c == "" || c == summary {
		return ""
	}
	var b strings.Builder
	for _, line := range strings.Split(c, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if line == "" {
			continue
		}
		b.WriteString("  ")
		b.WriteString(line)
		b.WriteString("\n")
	}
	return b.String()
}

func moreLine(n int, opt Options) string {
	cli := opt.CLI
	if cli == "" {
		cli = "agentx-hook"
	}
	q := strings.Join(strings.Fields(opt.Query), " ")
	if q == "" {
		q = "<words>"
	}
	if len(q) > 80 {
		// The line must fit the footer's reserve whatever was asked.
		q = cut(q, 80)
	}
	where := ""
	if opt.HasIssue {
		where = fmt.Sprintf(" --issue %d", opt.Issue)
	}
	return fmt.Sprintf("%d more observation(s) not shown; search them: %s memory search %q%s (then %s memory get ID)\n", n, cli, q, where, cli)
}

// displaced is the tokens one recalled observation saves: its source size
// when capture recorded it, else its own content (what would be re-read).
func displaced(c Candidate) int {
	if n := c.Obs.SourceBytes(); n > 0 {
		return capture.SourceTokens(n)
	}
	if c.Obs.Tokens > 0 {
		return c.Obs.Tokens
	}
	return memory.EstimateTokens(c.Obs.Content)
}

// cut shortens s to at most n bytes on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
