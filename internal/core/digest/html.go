package digest

import (
	"fmt"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/lazy"
)

// htmlEscaper is html.EscapeString's: the html package's initialiser
// builds its replacer and entity tables at every agentx-hook start, for
// the one command that writes HTML.
var htmlEscaper = lazy.Value[*strings.Replacer]{New: func() *strings.Replacer {
	return strings.NewReplacer(`&`, "&amp;", `'`, "&#39;", `<`, "&lt;", `>`, "&gt;", `"`, "&#34;")
}}

// escapeHTML escapes s as html.EscapeString does.
func escapeHTML(s string) string { return htmlEscaper.Get().Replace(s) }

// Chart is one of the digest's charts drawn as inline SVG: a page shows
// it without a script or a renderer from elsewhere (the Markdown's mermaid
// draws only on GitHub).
type Chart struct {
	Title string
	SVG   string
}

// chartColors are the series colours, picked to read apart in grey too.
var chartColors = []string{"#2e7d32", "#1565c0", "#ef6c00", "#6a1b9a", "#757575"}

// Charts are the report's charts: outcomes this window, rounds per settled
// clarification and the weekly trend, each when it has data.
func Charts(rep *Report) []Chart {
	cur := &rep.Current
	var out []Chart
	if cur.Settled+cur.StillOpen > 0 {
		out = append(out, Chart{"Outcomes this window", barsSVG([]bar{
			{"Resolved without a person", cur.AutoResolved}, {"Resolved with a person", cur.ResolvedWithPerson},
			{"Escalated", cur.Escalated}, {"Abandoned", cur.Abandoned}, {"Still open", cur.StillOpen},
		})})
	}
	if cur.Settled > 0 {
		labels := []string{"1 round", "2 rounds", "3 rounds", "4 rounds", "5+ rounds"}
		var bars []bar
		for i, n := range cur.Rounds {
			bars = append(bars, bar{labels[i], n})
		}
		out = append(out, Chart{"Rounds per settled clarification", barsSVG(bars)})
	}
	if len(rep.Trend) > 0 {
		out = append(out, Chart{"Opened and settled by week", trendSVG(rep)})
	}
	return out
}

// bar is one labelled count.
type bar struct {
	label string
	n     int
}

// barsSVG draws horizontal bars, one a row, the count at each bar's end.
func barsSVG(bars []bar) string {
	const rowH, labelW, plotW = 26, 200, 300
	top := 1
	for _, b := range bars {
		top = max(top, b.n)
	}
	h := rowH*len(bars) + 8
	var s strings.Builder
	fmt.Fprintf(&s, `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="13">`, labelW+plotW+50, h, labelW+plotW+50, h)
	for i, b := range bars {
		y := 4 + i*rowH
		w := b.n * plotW / top
		fmt.Fprintf(&s, `<text x="%d" y="%d" text-anchor="end">%s</text>`, labelW-8, y+17, escapeHTML(b.label))
		fmt.Fprintf(&s, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"><title>%s: %d</title></rect>`, labelW, y+3, w, rowH-8, chartColors[i%len(chartColors)], escapeHTML(b.label), b.n)
		fmt.Fprintf(&s, `<text x="%d" y="%d">%d</text>`, labelW+w+6, y+17, b.n)
	}
	s.WriteString(`</svg>`)
	return s.String()
}

// trendSVG draws opened and settled per week as paired columns, the
// current window last.
func trendSVG(rep *Report) string {
	type week struct {
		name            string
		opened, settled int
	}
	var weeks []week
	for _, p := range rep.Trend {
		weeks = append(weeks, week{p.Week, p.Opened, p.Settled})
	}
	weeks = append(weeks, week{rep.Week, rep.Current.Opened, rep.Current.Settled})
	const colW, plotH, left = 56, 160, 30
	top := 1
	for _, w := range weeks {
		top = max(top, w.opened, w.settled)
	}
	width, height := left+colW*len(weeks)+10, plotH+60
	var s strings.Builder
	fmt.Fprintf(&s, `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`, width, height, width, height)
	fmt.Fprintf(&s, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#999"/>`, left, plotH+10, width-5, plotH+10)
	fmt.Fprintf(&s, `<text x="2" y="18">%d</text><text x="2" y="%d">0</text>`, top, plotH+10)
	for i, w := range weeks {
		x := left + i*colW + 6
		for j, v := range []int{w.opened, w.settled} {
			bh := v * plotH / top
			fmt.Fprintf(&s, `<rect x="%d" y="%d" width="20" height="%d" fill="%s"><title>%s %s: %d</title></rect>`,
				x+j*22, plotH+10-bh, bh, chartColors[j+1], escapeHTML(w.name), []string{"opened", "settled"}[j], v)
		}
		name := w.name
		if k := strings.LastIndex(name, "-"); k >= 0 {
			name = name[k+1:] // the week ("W47"): the year is in the title
		}
		fmt.Fprintf(&s, `<text x="%d" y="%d">%s</text>`, x, plotH+26, escapeHTML(name))
	}
	fmt.Fprintf(&s, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">opened</text>`, left, plotH+38, chartColors[1], left+14, plotH+47)
	fmt.Fprintf(&s, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">settled</text>`, left+70, plotH+38, chartColors[2], left+84, plotH+47)
	s.WriteString(`</svg>`)
	return s.String()
}

// HTMLStyle is the stylesheet of the digest page and of the web view,
// one look for both.
const HTMLStyle = `body{font-family:system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:0 1em 2em;color:#1b1b1b;background:#fff}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.25em .6em;text-align:left;vertical-align:top}
td.n,th.n{text-align:right}.met{color:#2e7d32}.missed{color:#c62828;font-weight:600}.muted{color:#666}
.charts{display:flex;flex-wrap:wrap;gap:2em}figure{margin:0}figcaption{font-weight:600;margin-bottom:.3em}`

// HTML renders the report as one self-contained page (`digest --format
// html`): the same figures as the Markdown and --json, the charts as
// inline SVG, every text from a ledger escaped, nothing loaded from
// anywhere.
func HTML(rep *Report) string {
	var b strings.Builder
	title := escapeHTML(Title(rep.Window))
	fmt.Fprintf(&b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title>\n<style>%s</style></head><body>\n", title, HTMLStyle)
	fmt.Fprintf(&b, "<h1>%s</h1>\n", title)
	b.WriteString(HTMLBody(rep))
	b.WriteString("</body></html>\n")
	return b.String()
}

// HTMLBody is the report's figures, tables and charts without the page
// around them (the web view puts its own around them).
func HTMLBody(rep *Report) string {
	var b strings.Builder
	e := escapeHTML
	cur, prev := &rep.Current, &rep.Prior
	fmt.Fprintf(&b, "<p class=\"muted\">Window: %s to %s (%s), beside the previous %s.</p>\n", e(day(rep.Window.Since)), e(day(rep.Window.Until)), e(span(rep.Window)), e(span(rep.Previous)))

	b.WriteString("<h2>Targets</h2>\n<table><tr><th>Figure</th><th class=n>This window</th><th class=n>Previous</th><th>Target</th><th>Met</th></tr>\n")
	prevChecks := checks(*prev)
	for i, c := range rep.Checks {
		cls, word := "muted", "no data"
		if c.Met != nil {
			cls, word = "missed", "missed"
			if *c.Met {
				cls, word = "met", "met"
			}
		}
		fmt.Fprintf(&b, "<tr><td>%s</td><td class=n>%s</td><td class=n>%s</td><td>%s</td><td class=%s>%s</td></tr>\n",
			e(checkName(c.Name)), e(checkValue(c)), e(checkValue(prevChecks[i])), e(c.Target), cls, word)
	}
	b.WriteString("</table>\n<h2>Clarifications</h2>\n<table><tr><th>Figure</th><th class=n>This window</th><th class=n>Previous</th><th class=n>Change</th></tr>\n")
	for _, r := range []struct {
		name string
		a, b int
	}{
		{"Opened", cur.Opened, prev.Opened}, {"Settled", cur.Settled, prev.Settled},
		{"Resolved without a person", cur.AutoResolved, prev.AutoResolved}, {"Resolved with a person", cur.ResolvedWithPerson, prev.ResolvedWithPerson},
		{"Escalated", cur.Escalated, prev.Escalated}, {"Abandoned", cur.Abandoned, prev.Abandoned},
		{"Still open at the end", cur.StillOpen, prev.StillOpen}, {"Stale (missed the SLA)", cur.Stale, prev.Stale},
		{"Stuck", cur.Stuck, prev.Stuck}, {"Deadlocks broken", cur.Deadlocks, prev.Deadlocks},
	} {
		fmt.Fprintf(&b, "<tr><td>%s</td><td class=n>%d</td><td class=n>%d</td><td class=n>%s</td></tr>\n", r.name, r.a, r.b, e(delta(r.a, r.b)))
	}
	fmt.Fprintf(&b, "<tr><td>Median time to answer</td><td class=n>%s</td><td class=n>%s</td><td></td></tr>\n", e(dur(cur.MedianAnswerSeconds)), e(dur(prev.MedianAnswerSeconds)))
	b.WriteString("</table>\n")
	if charts := Charts(rep); len(charts) > 0 {
		b.WriteString("<div class=charts>\n")
		for _, c := range charts {
			fmt.Fprintf(&b, "<figure><figcaption>%s</figcaption>%s</figure>\n", e(c.Title), c.SVG)
		}
		b.WriteString("</div>\n")
	} else {
		b.WriteString("<p>No clarification was opened, settled or open in this window.</p>\n")
	}
	if len(rep.Pairs) > 0 {
		b.WriteString("<h2>By agent pair</h2>\n<table><tr><th>From → To</th><th class=n>Opened</th><th class=n>Settled</th><th class=n>Resolved without a person</th><th class=n>Escalated</th><th class=n>Average rounds</th></tr>\n")
		for _, p := range rep.Pairs {
			fmt.Fprintf(&b, "<tr><td>%s → %s</td><td class=n>%d</td><td class=n>%d</td><td class=n>%d</td><td class=n>%d</td><td class=n>%s</td></tr>\n",
				e(p.From), e(p.To), p.Opened, p.Settled, p.AutoResolved, p.Escalated, e(num(p.AverageRounds)))
		}
		b.WriteString("</table>\n")
	}
	if len(rep.Issues) > 0 {
		b.WriteString("<h2>By issue</h2>\n<table><tr><th>Issue</th><th class=n>Opened</th><th class=n>Settled</th><th class=n>Escalated</th><th class=n>Still open</th></tr>\n")
		for _, r := range rep.Issues {
			fmt.Fprintf(&b, "<tr><td>#%d</td><td class=n>%d</td><td class=n>%d</td><td class=n>%d</td><td class=n>%d</td></tr>\n", r.Issue, r.Opened, r.Settled, r.Escalated, r.StillOpen)
		}
		b.WriteString("</table>\n")
	}
	if len(rep.Escalations) > 0 {
		b.WriteString("<h2>Waiting for a person</h2>\n<ul>\n")
		for _, w := range rep.Escalations {
			fmt.Fprintf(&b, "<li>%s (#%d, %s → %s): %s</li>\n", e(w.ID), w.Issue, e(w.From), e(w.To), e(w.Topic))
		}
		b.WriteString("</ul>\n")
	}
	m := &cur.Memory
	fmt.Fprintf(&b, "<h2>Memory</h2>\n<p>%d observation(s) stored, %d recalled over %d session start(s); %d in the store.</p>\n", m.Stored, m.Recalled, m.RecallEvents, m.StoreSize)
	return b.String()
}
