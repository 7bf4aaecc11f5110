package digest

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/shorten"
)

// MaxIssueRows caps the by-issue table of the Markdown (the JSON has all).
const MaxIssueRows = 15

// Markdown renders the report for people: GitHub-flavoured tables and
// mermaid charts GitHub draws natively. clean (nil: none) is applied to
// every text that came from a ledger (topics, agent names) before it is
// escaped, so the Action can strip secrets and neutralise @mentions.
func Markdown(rep *Report, clean func(string) string) string {
	m := &md{clean: clean}
	cur, prev := &rep.Current, &rep.Prior
	m.p("# AgentX digest %s\n\n", rep.Week)
	m.p("Window: %s to %s (%s), beside the previous %s. Figures count clarifications by when they were opened and when they settled (resolved, escalated or abandoned).\n\n",
		day(rep.Window.Since), day(rep.Window.Until), span(rep.Window), span(rep.Previous))

	m.p("## Targets\n\n| Figure | This window | Previous | Target | Met |\n|---|---:|---:|---|:---:|\n")
	prevChecks := checks(*prev)
	for i, c := range rep.Checks {
		m.p("| %s | %s | %s | %s | %s |\n", checkName(c.Name), checkValue(c), checkValue(prevChecks[i]), c.Target, met(c))
	}

	m.p("\n## Clarifications\n\n| Figure | This window | Previous | Change |\n|---|---:|---:|---:|\n")
	row := func(name string, a, b int) { m.p("| %s | %d | %d | %s |\n", name, a, b, delta(a, b)) }
	row("Opened", cur.Opened, prev.Opened)
	row("Settled", cur.Settled, prev.Settled)
	row("Resolved without a person", cur.AutoResolved, prev.AutoResolved)
	row("Resolved with a person", cur.ResolvedWithPerson, prev.ResolvedWithPerson)
	row("Escalated", cur.Escalated, prev.Escalated)
	row("&nbsp;&nbsp;by the monitor or hub", cur.EscalatedByMonitor, prev.EscalatedByMonitor)
	row("&nbsp;&nbsp;by an agent", cur.EscalatedByAgent, prev.EscalatedByAgent)
	row("&nbsp;&nbsp;by a person", cur.EscalatedByPerson, prev.EscalatedByPerson)
	row("Abandoned", cur.Abandoned, prev.Abandoned)
	row("Still open at the end", cur.StillOpen, prev.StillOpen)
	m.p("| Median time to answer | %s | %s | |\n", dur(cur.MedianAnswerSeconds), dur(prev.MedianAnswerSeconds))
	m.p("| Median time to resolve | %s | %s | |\n", dur(cur.MedianResolveSeconds), dur(prev.MedianResolveSeconds))
	row("Stale (missed the SLA)", cur.Stale, prev.Stale)
	row("Stuck (escalated by the monitor)", cur.Stuck, prev.Stuck)
	row("Deadlocks broken", cur.Deadlocks, prev.Deadlocks)
	if cur.Artifacts != nil {
		pa := prev.Artifacts
		if pa == nil {
			pa = &ArtifactFigures{}
		}
		m.p("\n## Stage artifacts\n\nUpstream changes that made a stage artifact stale (a SPEC written against a PRD that changed since): caught before the artifact was approved, or after.\n\n| Figure | This window | Previous | Change |\n|---|---:|---:|---:|\n")
		row("Stale found before review", cur.Artifacts.StaleBeforeReview, pa.StaleBeforeReview)
		row("Stale found after review", cur.Artifacts.StaleAfterReview, pa.StaleAfterReview)
	}

	m.stages(rep)
	m.charts(cur)
	m.breakdowns(rep)
	m.memory(rep)
	m.reviews(rep)
	m.trend(rep)
	m.needsPerson(rep)
	return m.b.String()
}

// charts draws the window's outcomes and rounds for GitHub's mermaid, or
// says the window had no clarification.
func (m *md) charts(cur *Figures) {
	if cur.Settled+cur.StillOpen > 0 {
		m.p("\n```mermaid\npie showData title Outcomes this window\n")
		for _, s := range []struct {
			name string
			n    int
		}{
			{"Resolved without a person", cur.AutoResolved}, {"Resolved with a person", cur.ResolvedWithPerson},
			{"Escalated", cur.Escalated}, {"Abandoned", cur.Abandoned}, {"Still open", cur.StillOpen},
		} {
			if s.n > 0 {
				m.p("    %q : %d\n", s.name, s.n)
			}
		}
		m.p("```\n")
	}
	if cur.Settled > 0 {
		top := 0
		for _, n := range cur.Rounds {
			top = max(top, n)
		}
		m.p("\n```mermaid\nxychart-beta\n    title \"Rounds per settled clarification\"\n    x-axis [\"1\", \"2\", \"3\", \"4\", \"5+\"]\n")
		m.p("    y-axis \"Clarifications\" 0 --> %d\n    bar [%s]\n```\n", top+1, ints(cur.Rounds[:]))
	}
	if cur.Opened+cur.Settled+cur.StillOpen == 0 {
		m.p("\nNo clarification was opened, settled or open in this window.\n")
	}
}

// breakdowns are the tables by agent pair, by issue and by topic.
func (m *md) breakdowns(rep *Report) {
	if len(rep.Pairs) > 0 {
		m.p("\n## By agent pair\n\n| From → To | Opened | Settled | Resolved without a person | Escalated | Average rounds |\n|---|---:|---:|---:|---:|---:|\n")
		for _, p := range rep.Pairs {
			m.p("| %s → %s | %d | %d | %d | %d | %s |\n", m.text(p.From), m.text(p.To), p.Opened, p.Settled, p.AutoResolved, p.Escalated, num(p.AverageRounds))
		}
	}
	if len(rep.Issues) > 0 {
		m.p("\n## By issue\n\n| Issue | Opened | Settled | Escalated | Still open |\n|---|---:|---:|---:|---:|\n")
		for i, r := range rep.Issues {
			if i == MaxIssueRows {
				m.p("\n%d more issues in the JSON form (`--format json`).\n", len(rep.Issues)-MaxIssueRows)
				break
			}
			m.p("| %s | %d | %d | %d | %d |\n", issueLink(r.Issue, r.URL), r.Opened, r.Settled, r.Escalated, r.StillOpen)
		}
	}
	if len(rep.Topics) > 0 {
		m.p("\n## Recurring topics\n\n| Topic | Times asked | Issues |\n|---|---:|---|\n")
		for _, t := range rep.Topics {
			links := make([]string, 0, len(t.Issues))
			for _, n := range t.Issues {
				links = append(links, issueLink(n, urlOf(rep, n)))
			}
			m.p("| %s | %d | %s |\n", m.text(t.Topic), t.Count, strings.Join(links, ", "))
		}
	}
}

func (m *md) memory(rep *Report) {
	cur, prev := &rep.Current, &rep.Prior
	m.p("\n## Memory\n\n")
	cm, pm := cur.Memory, prev.Memory
	m.p("| Figure | This window | Previous | Change |\n|---|---:|---:|---:|\n")
	m.p("| Observations stored | %d | %d | %s |\n", cm.Stored, pm.Stored, delta(cm.Stored, pm.Stored))
	m.p("| Observations recalled at session start | %d | %d | %s |\n", cm.Recalled, pm.Recalled, delta(cm.Recalled, pm.Recalled))
	m.p("| Sessions that recalled any | %d | %d | %s |\n", cm.RecallEvents, pm.RecallEvents, delta(cm.RecallEvents, pm.RecallEvents))
	m.p("| Store size at the end (observations) | %d | %d | %s |\n", cm.StoreSize, pm.StoreSize, delta(cm.StoreSize, pm.StoreSize))
	m.p("| Recall hit rate | %s | %s | |\n", pctOr(cm.RecallHitRate, "not logged"), pctOr(pm.RecallHitRate, "not logged"))
	if rep.MemoryTokens > 0 {
		m.p("\nThe store holds about %d tokens.\n", rep.MemoryTokens)
	}
	m.metrics(rep)
}

// metrics is the measured figures of seed 000 §12, this window beside the
// previous one.
func (m *md) metrics(rep *Report) {
	c, p := rep.Current.Memory.Metrics, rep.Prior.Memory.Metrics
	m.p("\n### Hooks and memory, measured\n\n")
	if c.Writers > 0 {
		m.p("Summed over %d machine(s)' weekly files on the state branch.\n\n", c.Writers)
	}
	m.p("| Figure | This window | Previous |\n|---|---:|---:|\n")
	rows := []struct {
		name   string
		cv, pv string
	}{
		{"Captures (observations captured)", fmt.Sprintf("%d (%d)", c.CaptureRuns, c.Captured), fmt.Sprintf("%d (%d)", p.CaptureRuns, p.Captured)},
		{"Capture errors", fmt.Sprint(c.CaptureErrors), fmt.Sprint(p.CaptureErrors)},
		{"Capture latency (average)", msOr(c.CaptureAvgMS), msOr(p.CaptureAvgMS)},
		{"Recalls at session start (observations recalled)", fmt.Sprintf("%d (%d)", c.RecallRuns, c.Recalled), fmt.Sprintf("%d (%d)", p.RecallRuns, p.Recalled)},
		{"Injection latency (average)", msOr(c.RecallAvgMS), msOr(p.RecallAvgMS)},
		{"Memory tokens injected", fmt.Sprint(c.RecallTokens), fmt.Sprint(p.RecallTokens)},
		{"Token displacement (re-read avoided, estimate)", fmt.Sprint(c.Displaced), fmt.Sprint(p.Displaced)},
		{"Searches (results)", fmt.Sprintf("%d (%d)", c.Searches, c.SearchResults), fmt.Sprintf("%d (%d)", p.Searches, p.SearchResults)},
		{"Search latency (average)", msOr(c.SearchAvgMS), msOr(p.SearchAvgMS)},
		{"Lock wait (total) / timeouts", fmt.Sprintf("%d ms / %d", c.LockWaitMS, c.LockTimeouts), fmt.Sprintf("%d ms / %d", p.LockWaitMS, p.LockTimeouts)},
		{"Compactions (observations before → after)", fmt.Sprintf("%d (%d → %d)", c.Compactions, c.CompactBefore, c.CompactAfter), fmt.Sprintf("%d (%d → %d)", p.Compactions, p.CompactBefore, p.CompactAfter)},
	}
	for _, r := range rows {
		m.p("| %s | %s | %s |\n", r.name, r.cv, r.pv)
	}
}

// reviews is the review-rejection section (the Action only), saying what
// the figure measures and what it cannot.
func (m *md) reviews(rep *Report) {
	f := rep.Reviews
	if f == nil {
		return
	}
	m.p("\n## Review rejections (target: under 15%% rejected for misunderstanding)\n\n")
	if !f.Available {
		m.p("Not available: %s.\n", m.text(f.Reason))
		return
	}
	m.p("Pull requests closed in this window whose description closes an issue (\"Closes #N\"), and the share on which a reviewer requested changes, split by whether the issue had clarification rounds.\n\n")
	m.p("| Pull requests | Closing an issue | Changes requested | Share |\n|---|---:|---:|---:|\n")
	for _, g := range []struct {
		name string
		g    ReviewGroup
	}{{"Issue had clarification rounds", f.With}, {"Issue had none", f.Without}, {"All", f.All}} {
		m.p("| %s | %d | %d | %s |\n", g.name, g.g.Pulls, g.g.ChangesRequested, pctOr(g.g.Rate, "–"))
	}
	m.p("\nWhat this measures: how often review asked for changes before an issue's pull request closed. What it cannot: why. GitHub does not record whether a rejection was due to a misunderstanding, so this is not the figure the target names, only the closest GitHub can show (a \"changes requested\" review for style or a missed test counts too; a rejection that was a misunderstanding but only commented does not). Pull requests that do not name their issue are not counted.")
	if f.Unexamined > 0 {
		m.p(" %d more pull requests closing an issue were not examined (the digest bounds its API calls).", f.Unexamined)
	}
	if f.Truncated {
		m.p(" The oldest pull requests closed in the window were not listed (the digest bounds its API calls).")
	}
	m.p("\n")
}

func msOr(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.0f ms", *v)
}

func (m *md) trend(rep *Report) {
	if len(rep.Trend) >= 3 {
		m.p("\n## Trend\n\n```mermaid\nxychart-beta\n    title \"Auto-resolution and escalation rates (%%)\"\n    x-axis [")
		for i, t := range rep.Trend {
			if i > 0 {
				m.p(", ")
			}
			m.p("%q", t.Week)
		}
		m.p("]\n    y-axis \"Percent\" 0 --> 100\n    line [%s]\n    line [%s]\n```\n\n", rates(rep.Trend, true), rates(rep.Trend, false))
		m.p("| Window | Opened | Settled | Auto-resolution | Escalation |\n|---|---:|---:|---:|---:|\n")
		for _, t := range rep.Trend {
			m.p("| %s | %d | %d | %s | %s |\n", t.Week, t.Opened, t.Settled, pctOr(t.AutoResolutionRate, "–"), pctOr(t.EscalationRate, "–"))
		}
	}
}

func (m *md) needsPerson(rep *Report) {
	m.p("\n## Needs a person\n\n")
	if len(rep.Escalations)+len(rep.Longest) == 0 {
		m.p("Nothing is escalated or waiting.\n")
	}
	if len(rep.Escalations) > 0 {
		m.p("Escalations waiting for a decision (settle with `/clarify resolve ID text` on the issue, or `agentx-hook clarify resolve ID --body TEXT`):\n\n")
		for _, w := range rep.Escalations {
			m.waiting(w, "escalated")
		}
	}
	if len(rep.Longest) > 0 {
		if len(rep.Escalations) > 0 {
			m.p("\n")
		}
		m.p("Longest waits:\n\n")
		for _, w := range rep.Longest {
			m.waiting(w, "waiting")
		}
	}
}

type md struct {
	b     strings.Builder
	clean func(string) string
}

func (m *md) p(format string, args ...any) { fmt.Fprintf(&m.b, format, args...) }

// text makes ledger text safe in a table cell or list item: cleaned, on one
// line, with Markdown's active characters escaped.
func (m *md) text(s string) string {
	if m.clean != nil {
		s = m.clean(s)
	}
	s = shorten.Flatten(s)
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>|#~!", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (m *md) waiting(w Waiting, verb string) {
	block := ""
	if w.Blocking {
		block = ", blocking"
	}
	m.p("- %s %s (%s → %s%s): %s %s, since %s\n", issueLink(w.Issue, w.URL), m.text(w.ID), m.text(w.From), m.text(w.To), block,
		m.text(w.Topic), verb+" "+durSeconds(float64(w.WaitSeconds)), w.Since[:10])
}

func urlOf(rep *Report, n int) string {
	for _, r := range rep.Issues {
		if r.Issue == n {
			return r.URL
		}
	}
	return ""
}

func issueLink(n int, url string) string {
	if url == "" {
		return "#" + strconv.Itoa(n)
	}
	return fmt.Sprintf("[#%d](%s)", n, url)
}

func checkName(n string) string {
	return map[string]string{"autoResolutionRate": "Auto-resolution rate", "escalationRate": "Escalation rate",
		"averageRounds": "Average rounds", "stale": "Stale", "deadlocks": "Deadlocks"}[n]
}

func checkValue(c Check) string {
	switch {
	case c.Value == nil:
		return "–"
	case strings.HasSuffix(c.Name, "Rate"):
		return pct(*c.Value)
	case c.Name == "averageRounds":
		return num(c.Value)
	}
	return strconv.Itoa(int(*c.Value))
}

func met(c Check) string {
	switch {
	case c.Met == nil:
		return "no data"
	case *c.Met:
		return "✅"
	}
	return "❌"
}

func delta(a, b int) string {
	switch {
	case a > b:
		return fmt.Sprintf("+%d", a-b)
	case a < b:
		return fmt.Sprintf("−%d", b-a)
	}
	return "="
}

func pct(v float64) string { return strconv.FormatFloat(math.Round(v*1000)/10, 'f', -1, 64) + "%" }

func pctOr(v *float64, none string) string {
	if v == nil {
		return none
	}
	return pct(*v)
}

func num(v *float64) string {
	if v == nil {
		return "–"
	}
	return strconv.FormatFloat(math.Round(*v*100)/100, 'f', -1, 64)
}

func ints(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// rates lists a trend's rates in percent; a window with nothing settled
// plots as 0 (mermaid has no gaps).
func rates(tr []TrendPoint, auto bool) string {
	s := make([]string, len(tr))
	for i, t := range tr {
		v := t.EscalationRate
		if auto {
			v = t.AutoResolutionRate
		}
		s[i] = "0"
		if v != nil {
			s[i] = strconv.FormatFloat(math.Round(*v*1000)/10, 'f', -1, 64)
		}
	}
	return strings.Join(s, ", ")
}

func dur(v *float64) string {
	if v == nil {
		return "–"
	}
	return durSeconds(*v)
}

func durSeconds(s float64) string {
	d := time.Duration(s) * time.Second
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh %dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd %dh", int(d.Hours())/24, int(d.Hours())%24)
}

func day(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

func span(w Window) string {
	d := w.Until.Sub(w.Since)
	if d%(24*time.Hour) == 0 {
		if d == 24*time.Hour {
			return "1 day"
		}
		return fmt.Sprintf("%d days", int(d.Hours())/24)
	}
	return durSeconds(d.Seconds())
}
