package recall

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/contenthash"
	"github.com/agentx-dev/agentx/internal/core/gitcmd"
	"github.com/agentx-dev/agentx/internal/core/memory"
)

// Bounds of the candidates Gather takes from other issues.
const (
	// RelatedLimit: observations of other issues matching the keywords.
	RelatedLimit = 30
	// RecentLimit: the agent's own recent work.
	RecentLimit = 20
	// HydrateIssues is how many of those issues' files are read for full
	// content and recall counts; the rest stay index rows (summaries).
	HydrateIssues = 4
	// MaxKeywords bounds the keyword set (query first).
	MaxKeywords = 40
	// CommitSubjects is how many recent commit subjects feed the keywords.
	CommitSubjects = 20
)

// Source is the store recall reads (memory.Store).
type Source interface {
	GetByIssue(ctx context.Context, issue int) ([]memory.Observation, error)
	Search(ctx context.Context, q memory.Query) ([]memory.Row, error)
}

// GatherOptions describe whose session a recall is for.
type GatherOptions struct {
	Agent    string
	Issue    int
	HasIssue bool
	// Keywords rank the other issues' rows (Keywords).
	Keywords []string
	Now      time.Time
	// Pending are recall counts not yet folded into the store
	// (recalljournal.Journal.Pending); they count as if they were.
	Pending map[string]int
	// Tampered, when set, is told of each observation read in full whose
	// content changed since it was stored: it is left out of the recall
	// (what an agent reads must be what was stored). Observations the old
	// tools stored carry no hash and are recalled as they are.
	Tampered func(memory.Observation)
}

// Gather collects the candidates of a recall: every observation of the
// agent's issue, then other issues' rows related by keyword and the
// agent's recent work. The issue files behind the best of those rows are
// read (at most HydrateIssues), so they can be shown in full; a file that
// cannot be read only loses its rows' detail.
func Gather(ctx context.Context, src Source, opt GatherOptions) ([]Candidate, error) {
	var cands []Candidate
	if opt.HasIssue {
		obs, err := src.GetByIssue(ctx, opt.Issue)
		if err != nil {
			return nil, err
		}
		for _, o := range obs {
			if tampered(&o, opt) {
				continue
			}
			cands = append(cands, Candidate{Obs: o, Origin: FromIssue})
		}
	}
	rows, err := otherRows(ctx, src, opt)
	if err != nil {
		return nil, err
	}
	full := hydrate(ctx, src, rows, opt)
	for _, c := range rows {
		if o, ok := full[c.Obs.ID]; ok {
			if tampered(&o, opt) {
				continue
			}
			c.Obs = o
		}
		cands = append(cands, c)
	}
	if len(opt.Pending) > 0 {
		for i := range cands {
			cands[i].Obs.RecallCount += opt.Pending[cands[i].Obs.ID]
		}
	}
	return cands, nil
}

// otherRows are the index rows of other issues: related by keyword, then
// the agent's recent work.
func otherRows(ctx context.Context, src Source, opt GatherOptions) ([]Candidate, error) {
	var rows []Candidate
	add := func(found []memory.Row, origin Origin) {
		for _, r := range found {
			if opt.HasIssue && r.IssueNumber == opt.Issue {
				continue
			}
			rows = append(rows, Candidate{Origin: origin, Obs: memory.Observation{ID: r.ID, Agent: r.Agent,
				IssueNumber: r.IssueNumber, Category: r.Category, Summary: r.Summary, Tokens: r.Tokens, Timestamp: r.Timestamp}})
		}
	}
	if len(opt.Keywords) > 0 {
		found, err := src.Search(ctx, memory.Query{Text: strings.Join(opt.Keywords, " "), Limit: RelatedLimit})
		if err != nil {
			return nil, err
		}
		add(found, FromRelated)
	}
	mine, err := src.Search(ctx, memory.Query{Agent: opt.Agent, Limit: RecentLimit})
	if err != nil {
		return nil, err
	}
	add(mine, FromRecent)
	return rows, nil
}

// hydrate reads the full observations of the issues holding the best rows.
func hydrate(ctx context.Context, src Source, rows []Candidate, opt GatherOptions) map[string]memory.Observation {
	full := map[string]memory.Observation{}
	read := map[int]bool{}
	for _, s := range Rank(rows, opt.Keywords, opt.Now) {
		n := s.Obs.IssueNumber
		if read[n] {
			continue
		}
		if len(read) == HydrateIssues {
			break
		}
		read[n] = true
		obs, err := src.GetByIssue(ctx, n)
		if err != nil {
			continue // a corrupt issue file only loses its own rows' detail
		}
		for _, o := range obs {
			full[o.ID] = o
		}
	}
	return full
}

// RecentSubjects returns the last n commit subjects of the repository git
// runs in; nothing when git fails (no repository, no git).
func RecentSubjects(ctx context.Context, git gitcmd.Runner, n int) []string {
	// git log -n N --format=%s
	out, err := git.Git(ctx, "log", "-n", strconv.Itoa(n), "--format=%s")
	if err != nil {
		return nil
	}
	return gitcmd.Lines(out)
}

// tampered reports (and tells opt.Tampered of) an observation whose
// content changed since it was stored.
func tampered(o *memory.Observation, opt GatherOptions) bool {
	if o.Integrity() != contenthash.Tampered {
		return false
	}
	if opt.Tampered != nil {
		opt.Tampered(*o)
	}
	return true
}
