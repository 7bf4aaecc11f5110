package recall

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/memory"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func ago(days float64) string {
	return clock.Format(now.Add(-time.Duration(days * 24 * float64(time.Hour))))
}

func obs(id string, days float64, recalls int, content string) memory.Observation {
	return memory.Observation{ID: id, Agent: "engineer", IssueNumber: 42, Category: memory.Decision,
		Content: content, Summary: memory.Summarize(content), Timestamp: ago(days), RecallCount: recalls}
}

func TestScoreFormula(t *testing.T) {
	t.Parallel()
	kw := []string{"token", "refresh", "middleware", "redis"}
	cases := []struct {
		name    string
		o       memory.Observation
		kw      []string
		recency float64
		recall  float64
		overlap float64
	}{
		{"fresh, never recalled, no keywords", obs("a", 0, 0, "Use middleware."), nil, 1, 0, 0},
		{"30 days halves recency", obs("b", 30, 0, "x"), nil, 0.5, 0, 0},
		{"90 days is a quarter", obs("c", 90, 0, "x"), nil, 0.25, 0, 0},
		{"recall count 5 is half", obs("d", 0, 5, "x"), nil, 1, 0.5, 0},
		{"recall count saturates at 10", obs("e", 0, 25, "x"), nil, 1, 1, 0},
		{"half the keywords match", obs("f", 0, 0, "Token refresh happens in one place."), kw, 1, 0, 0.5},
		{"all keywords, case-insensitive", obs("g", 0, 0, "TOKEN Refresh in middleware, sessions in Redis"), kw, 1, 0, 1},
		{"future timestamp counts as now", obs("h", -3, 0, "x"), nil, 1, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := 0.4*tc.recency + 0.2*tc.recall + 0.4*tc.overlap
			if got := Score(&tc.o, tc.kw, now); math.Abs(got-want) > 1e-9 {
				t.Fatalf("Score = %v, want %v", got, want)
			}
		})
	}
}

func TestRankRecencyOverStaleAndKeywords(t *testing.T) {
	t.Parallel()
	kw := Keywords(0, "session store redis")
	cands := []Candidate{
		{Obs: obs("old-unrelated", 200, 0, "Picked tabs for indentation.")},
		{Obs: obs("new-unrelated", 1, 0, "Renamed the login handler.")},
		{Obs: obs("old-relevant", 60, 0, "The session store is Redis; it must be up for login.")},
		{Obs: obs("dup", 1, 0, "Renamed the login handler."), Origin: FromRecent},
		{Obs: obs("related-tie", 1, 0, "Renamed the login handler!"), Origin: FromRelated},
	}
	cands[3].Obs.ID = "new-unrelated" // found twice: kept once
	got := Rank(cands, kw, now)
	var ids []string
	for _, s := range got {
		ids = append(ids, s.Obs.ID)
	}
	want := "old-relevant new-unrelated related-tie old-unrelated"
	if strings.Join(ids, " ") != want {
		t.Fatalf("order = %v, want %s", ids, want)
	}
}

func TestKeywords(t *testing.T) {
	t.Parallel()
	got := Keywords(0, "Token refresh", "feat/42-token-refresh-middleware", "The session store and 42 the Redis")
	want := "token refresh feat middleware session store redis"
	if strings.Join(got, " ") != want {
		t.Fatalf("Keywords = %q, want %q", strings.Join(got, " "), want)
	}
	if got := Keywords(2, "one two three"); len(got) != 2 || got[0] != "one" {
		t.Fatalf("cap: %v", got)
	}
}

func TestBudget(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                  string
		maxTokens, hostChars  int
		hostTokens, wantChars int
	}{
		{"default 20K tokens, no host", 20000, 0, 0, 80000},
		{"claude: 10,000 characters", 20000, ClaudeMaxChars, 0, 10000},
		{"codex: about 2,500 tokens", 20000, 0, CodexMaxTokens, 10000},
		{"max_tokens smaller than the host", 500, ClaudeMaxChars, 0, 2000},
		{"max_tokens = 0 disables recall", 0, ClaudeMaxChars, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Budget(tc.maxTokens, tc.hostChars, tc.hostTokens); got != tc.wantChars {
				t.Fatalf("Budget = %d, want %d", got, tc.wantChars)
			}
		})
	}
}

// corpus is n decisions, newest first, each about 400 characters.
func corpus(n int) []Scored {
	var cands []Candidate
	for i := range n {
		content := fmt.Sprintf("Decision %d: keep token validation in one middleware. ", i) + strings.Repeat("Because controllers must never parse JWTs themselves. ", 7)
		o := obs(fmt.Sprintf("obs-engineer-42-%013d-abc%03d", 1772000000000+i, i), float64(i), 0, content)
		o.SetSourceBytes(4000)
		cands = append(cands, Candidate{Obs: o})
	}
	return Rank(cands, nil, now)
}

func TestSelectWithinEachHostBudget(t *testing.T) {
	t.Parallel()
	ranked := corpus(300)
	cases := []struct {
		name     string
		maxChars int
	}{
		{"claude", Budget(20000, ClaudeMaxChars, 0)},
		{"codex", Budget(20000, 0, CodexMaxTokens)},
		{"text, default max_tokens", Budget(20000, 0, 0)},
		{"small max_tokens", Budget(400, 0, 0)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := Select(ranked, Options{Agent: "engineer", Issue: 42, HasIssue: true, MaxChars: tc.maxChars})
			if len(res.Body) > tc.maxChars {
				t.Fatalf("body is %d characters, budget %d", len(res.Body), tc.maxChars)
			}
			if len(res.Shown)+res.More != len(ranked) {
				t.Fatalf("shown %d + more %d != %d candidates", len(res.Shown), res.More, len(ranked))
			}
			if len(res.Shown) == 0 {
				t.Fatalf("nothing shown in %d characters", tc.maxChars)
			}
			// The best one comes first, with its full content.
			if res.Shown[0].Obs.ID != ranked[0].Obs.ID || !res.Shown[0].Full {
				t.Fatalf("first shown %s (full %v), want %s with content", res.Shown[0].Obs.ID, res.Shown[0].Full, ranked[0].Obs.ID)
			}
			// Full content only for a prefix of the ranking.
			seenLine := false
			for _, s := range res.Shown {
				if !s.Full {
					seenLine = true
				} else if seenLine {
					t.Fatalf("%s has full content after a one-line statement", s.Obs.ID)
				}
			}
			if !strings.Contains(res.Body, fmt.Sprintf("%d more observation(s) not shown", res.More)) ||
				!strings.Contains(res.Body, "memory search") {
				t.Fatalf("no more/search line:\n%s", res.Body)
			}
			want := fmt.Sprintf("Memory recall displaced %d tokens of manual re-read.", len(res.Shown)*1000)
			if !strings.Contains(res.Body, want) {
				t.Fatalf("missing %q in:\n%s", want, res.Body)
			}
			if res.Tokens != memory.EstimateTokens(res.Body) {
				t.Fatalf("tokens %d", res.Tokens)
			}
		})
	}
}

func TestSelectSkipsWhatDoesNotFitAndKeepsSmallerOnes(t *testing.T) {
	t.Parallel()
	big := obs("big", 0, 9, strings.Repeat("huge ", 400))
	big.Summary = strings.Repeat("s", 240)
	small := obs("small", 1, 0, "Small fact here.")
	ranked := Rank([]Candidate{{Obs: big}, {Obs: small}}, nil, now)
	res := Select(ranked, Options{Agent: "engineer", MaxChars: 420})
	if len(res.Shown) != 1 || res.Shown[0].Obs.ID != "small" || res.More != 1 {
		t.Fatalf("shown %v more %d:\n%s", res.IDs(), res.More, res.Body)
	}
}

func TestSelectEmpty(t *testing.T) {
	t.Parallel()
	res := Select(nil, Options{Agent: "engineer", Issue: 7, HasIssue: true, MaxChars: 10000})
	if !strings.Contains(res.Body, "No stored observations for engineer on issue #7") || len(res.Shown) != 0 {
		t.Fatalf("body:\n%s", res.Body)
	}
}

func TestSelectDisplacementFallsBackToTokens(t *testing.T) {
	t.Parallel()
	o := obs("a", 0, 0, strings.Repeat("x", 400))
	o.Tokens = 100
	res := Select(Rank([]Candidate{{Obs: o}}, nil, now), Options{MaxChars: 10000})
	if res.Displaced != 100 {
		t.Fatalf("displaced %d", res.Displaced)
	}
}

func BenchmarkRankSelect(b *testing.B) {
	var cands []Candidate
	for i := range 400 {
		cands = append(cands, Candidate{Obs: obs(fmt.Sprintf("id-%d", i), float64(i%90), i%12, fmt.Sprintf("Decision %d about token refresh, the session store and login lockout.", i))})
	}
	kw := Keywords(40, "token refresh", "42-login-lockout", "fix session store")
	b.ResetTimer()
	for range b.N {
		Select(Rank(cands, kw, now), Options{MaxChars: ClaudeMaxChars})
	}
}

// A decision of a step the agent's step needs outranks an equal one of
// another step; other categories are not moved.
func TestFavorRaisesDecisionsOfNeededSteps(t *testing.T) {
	t.Parallel()
	mk := func(id, step string, cat memory.Category) Scored {
		o := memory.Observation{ID: id, Category: cat, Timestamp: "2026-01-01T00:00:00.000Z"}
		o.SetStep(step)
		return Scored{Candidate: Candidate{Obs: o}, Score: 0.5}
	}
	ranked := []Scored{mk("a", "implement", memory.Decision), mk("b", "prd", memory.CodeChange), mk("c", "prd", memory.Decision)}
	got := Favor(ranked, map[string]bool{"prd": true})
	if got[0].Obs.ID != "c" || got[0].Score != 0.5+StepBoost || got[1].Score != 0.5 || got[2].Score != 0.5 {
		t.Fatalf("favoured = %+v", got)
	}
	if same := Favor([]Scored{mk("x", "prd", memory.Decision)}, nil); same[0].Score != 0.5 {
		t.Fatalf("no steps, still boosted: %+v", same)
	}
}
