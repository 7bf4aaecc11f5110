package recall

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/gitcmd"
	"github.com/agentx-dev/agentx/internal/core/memanchor"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/recalljournal"
	"github.com/agentx-dev/agentx/internal/core/shorten"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Service is one recall end to end, as `hook start`, `memory recall` and
// the MCP server run it: keywords from the context, candidates gathered
// from the store, ranked and selected within the host's room, and the
// recall recorded (journal and event) unless it is a preview. The
// decisions stay in the pure functions above; Service only wires them to
// the store, the journal, the event log and git.
type Service struct {
	Store   *memory.Store
	Journal *recalljournal.Journal
	Events  *events.Log
	Clock   clock.Clock
	// Root is the work tree whose branch and recent commits feed keywords.
	Root string
	// MaxTokens is [memory] max_tokens (a Request's Budget overrides it).
	MaxTokens int
	// CLI is the command named in the recall's footer.
	CLI string
	// IssueTexts returns the texts of an issue's open clarifications (their
	// topics and threads), which feed keywords. The clarification ledgers
	// are the other half of the core: the caller reads them.
	IssueTexts func(issue int) []string
	// Warn receives what a recall could not do but went on without.
	Warn func(format string, args ...any)
	// Anchors, when set, checks every issue a recall draws from against
	// the audit trail (memanchor): what it finds wanting is withheld,
	// with one notice line saying how many and why. Nil only in
	// benchmarks (AGENTX_BENCH_NO_ANCHORS) and tests.
	Anchors *memanchor.Index
}

// Request is one recall.
type Request struct {
	Agent    string
	Issue    int
	HasIssue bool
	Query    string
	// Budget overrides [memory] max_tokens when positive.
	Budget int
	// Host is the output form: text, json, claude, codex or copilot.
	Host string
	// InHook leaves room for the rest of `hook start`'s output: Used
	// characters, measured by the caller.
	InHook bool
	Used   int
	// NoIndex recalls from the issue's own file alone: the search index is
	// being rebuilt, and searching would rebuild it in memory.
	NoIndex bool
	// FavorSteps are the workflow steps whose decisions rank higher: the
	// steps the agent's step needs (Favor).
	FavorSteps []string
	// Preview shows what a recall would inject without it counting as
	// one: no recall counts, no memory-recalled event (`memory recall`
	// printing text or JSON for a person or a script).
	Preview bool
}

// Budget is the characters the section body of req may take.
func (s *Service) Budget(req Request) int {
	maxTokens := s.MaxTokens
	if req.Budget > 0 {
		maxTokens = req.Budget
	}
	return SectionBudget(req.Host, maxTokens, req.InHook, req.Used)
}

// issueOnly is a recall source without the search index: the issue files
// are read directly, and searches find nothing.
type issueOnly struct{ Source }

func (issueOnly) Search(context.Context, memory.Query) ([]memory.Row, error) { return nil, nil }

// Recall gathers candidates (the agent's issue, related issues, the
// agent's recent work), ranks and selects them, and records the recall.
func (s *Service) Recall(ctx context.Context, req Request) (Result, error) {
	budget := s.Budget(req)
	if budget <= 0 {
		return Result{}, nil
	}
	now := s.Clock.Now()
	kw := Keywords(MaxKeywords, s.context(ctx, req)...)
	var src Source = s.Store
	if req.NoIndex {
		src = issueOnly{src}
	}
	timed := &timedSource{Source: src}
	src = timed
	var tampered []string
	cands, err := Gather(ctx, src, GatherOptions{Agent: req.Agent, Issue: req.Issue,
		HasIssue: req.HasIssue, Keywords: kw, Now: now, Pending: s.Journal.Pending(),
		Tampered: func(o memory.Observation) { tampered = append(tampered, o.ID) }})
	if err != nil {
		return Result{}, err
	}
	cands, notice := s.anchored(ctx, cands, &tampered, req)
	if len(tampered) > 0 {
		s.warn("agentx memory: %s changed since stored and left out of recall (%s): `agentx-hook verify` says what changed, `agentx-hook checkpoint restore ID` brings back the stored version",
			countNoun(len(tampered), "observation"), listSome(tampered, 5))
	}
	favor := map[string]bool{}
	for _, st := range req.FavorSteps {
		favor[st] = true
	}
	if notice != "" {
		budget -= len(notice) + 1
	}
	res := Select(Favor(Rank(cands, kw, now), favor), Options{
		Agent: req.Agent, Issue: req.Issue, HasIssue: req.HasIssue, Query: req.Query,
		MaxChars: budget, CLI: s.CLI})
	if notice != "" {
		res.Body = notice + "\n" + res.Body
		res.Withheld = notice
	}
	res.Searches, res.SearchTime, res.SearchResults = timed.searches, timed.took, timed.results
	if len(res.Shown) == 0 || req.Preview {
		return res, nil
	}
	if err := s.Journal.Append(res.IDs()); err != nil {
		s.warn("agentx memory: recall counts not recorded: %v", err)
	}
	issue := 0
	if req.HasIssue {
		issue = req.Issue
	}
	if err := s.Events.Append(ctx, events.MemoryRecalled, events.MemoryPayload{Agent: req.Agent, IssueNumber: issue,
		Count: len(res.Shown), TotalTokens: res.Tokens, ObservationIDs: res.IDs(), Timestamp: now.UnixMilli()}); err != nil {
		s.warn("agentx memory: memory-recalled event not logged: %v", err)
	}
	return res, nil
}

// anchored withholds the candidates the audit trail does not account for
// (memanchor: re-hashed, planted, edited), checking every issue the
// candidates come from, and returns the notice that says so ("" when
// nothing is withheld or missing). The ids withheld are added to
// tampered, which the warning lists.
func (s *Service) anchored(ctx context.Context, cands []Candidate, tampered *[]string, req Request) ([]Candidate, string) {
	codes := map[string]bool{}
	withheld := map[string]bool{}
	for _, id := range *tampered {
		// Left out by Gather already: their content hash.
		withheld[id], codes[memanchor.CodeHash] = true, true
	}
	issues := make([]int, 0, 8)
	if req.HasIssue {
		issues = append(issues, req.Issue) // what it lacks is said too
	}
	for _, c := range cands {
		issues = append(issues, c.Obs.IssueNumber)
	}
	missing, unchecked := 0, ""
	if s.Anchors != nil && len(issues) > 0 {
		x := *s.Anchors
		x.Write = x.Write && !req.Preview // a preview writes nothing
		rep, err := x.Check(ctx, issues)
		if err != nil {
			// An unreadable trail (a FIFO or a link put in its place) must
			// not pass for a clean one: the agent is told too.
			s.warn("agentx memory: recall not checked against the audit trail: %v (`agentx-hook verify` checks it)", err)
			unchecked = fmt.Sprintf("[agentx: these notes were not checked against the audit trail (%s); `%s verify` says why]", shorten.Line(err.Error(), 160), cliName(s.CLI))
		} else {
			kept := cands[:0]
			for _, c := range cands {
				if f, ok := rep.Of(c.Obs.ID); ok {
					codes[f.Code] = true
					if !withheld[c.Obs.ID] {
						withheld[c.Obs.ID] = true
						*tampered = append(*tampered, c.Obs.ID)
					}
					continue
				}
				kept = append(kept, c)
			}
			cands, missing = kept, len(rep.Deleted)
		}
	}
	if len(withheld) == 0 && missing == 0 {
		return cands, unchecked
	}
	return cands, Notice(len(withheld), codes, missing, s.CLI)
}

// Notice is the one line a recall shows when it withheld observations or
// the trail names some that are missing.
func Notice(withheld int, codes map[string]bool, missing int, cli string) string {
	cli = cliName(cli)
	var parts []string
	if withheld > 0 {
		list := make([]string, 0, len(codes))
		for c := range codes {
			list = append(list, c)
		}
		sort.Strings(list)
		parts = append(parts, fmt.Sprintf("%s withheld: not what the audit trail recorded (%s)", countNoun(withheld, "observation"), strings.Join(list, ", ")))
	}
	if missing > 0 {
		parts = append(parts, fmt.Sprintf("%s the audit trail recorded %s missing (%s)", countNoun(missing, "observation"), map[bool]string{true: "is", false: "are"}[missing == 1], memanchor.CodeDeleted))
	}
	return fmt.Sprintf("[agentx: %s; `%s verify` names them]", strings.Join(parts, "; "), cli)
}

func cliName(cli string) string {
	if cli == "" {
		return "agentx-hook"
	}
	return cli
}

// Fold folds the recall journal into the store's recall counts; a failure
// keeps the journal for later and is only a warning.
func (s *Service) Fold(ctx context.Context) {
	if err := s.Journal.Fold(ctx, s.Store); err != nil {
		s.warn("agentx memory: recall counts not updated (kept for later): %v", err)
	}
}

// context is the text keywords come from: the query, the branch name, the
// issue's open clarifications and recent commit subjects.
func (s *Service) context(ctx context.Context, req Request) []string {
	texts := []string{req.Query, workspace.GitBranch(ctx, s.Root)}
	if req.HasIssue && s.IssueTexts != nil {
		texts = append(texts, s.IssueTexts(req.Issue)...)
	}
	// Outside a repository git is not even started: the hook path must not
	// pay for a process that can only fail.
	if _, err := os.Stat(filepath.Join(s.Root, ".git")); err != nil {
		return texts
	}
	return append(texts, RecentSubjects(ctx, gitcmd.Exec{Dir: s.Root}, CommitSubjects)...)
}

func (s *Service) warn(format string, args ...any) {
	if s.Warn != nil {
		s.Warn(format, args...)
	}
}

func countNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// listSome lists the first n of ids, and how many more there are.
func listSome(ids []string, n int) string {
	if len(ids) <= n {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:n], ", "), len(ids)-n)
}

// timedSource measures the index searches a recall makes (the metrics'
// search latency and result count).
type timedSource struct {
	Source
	searches, results int
	took              time.Duration
}

func (t *timedSource) Search(ctx context.Context, q memory.Query) ([]memory.Row, error) {
	began := time.Now()
	rows, err := t.Source.Search(ctx, q)
	t.took += time.Since(began)
	t.searches++
	t.results += len(rows)
	return rows, err
}

// Section is one recall as `memory recall` runs it: off says why none ran
// (memory or recall switched off in m, or a zero budget), else text is the
// section of res.
func (s *Service) Section(ctx context.Context, m config.MemorySettings, req Request) (res Result, off, text string, err error) {
	if off = Off(m, req.Budget); off != "" {
		return res, off, "", nil
	}
	if res, err = s.Recall(ctx, req); err != nil {
		return res, "", "", err
	}
	return res, "", res.Section(), nil
}
