package viewserver

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/monitor"
)

// graphSVG draws the wait-for graph on the server: agents on a circle,
// one curved arrow per waiting clarification (two agents waiting on each
// other get two arcs, not one line), deadlock cycles and stale or stuck
// waits in red, non-blocking waits dashed. Every stored string goes
// through html.EscapeString.
func graphSVG(g *monitor.WaitGraph) string {
	n := len(g.Agents)
	if n == 0 {
		return `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="60" role="img"><text x="10" y="35" font-family="sans-serif">Nobody waits on anybody.</text></svg>`
	}
	const size, margin = 640, 110
	cx, cy, rad := size/2.0, size/2.0, float64(size/2-margin)
	if n == 1 {
		rad = 0
	}
	pos := map[string][2]float64{}
	for i, a := range g.Agents {
		angle := 2*math.Pi*float64(i)/float64(n) - math.Pi/2
		pos[a] = [2]float64{cx + rad*math.Cos(angle), cy + rad*math.Sin(angle)}
	}
	inCycle := map[string]bool{}
	for _, c := range g.Cycles {
		for _, a := range c {
			inCycle[a] = true
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" id="waitgraph" role="img" aria-label="wait-for graph" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`, size, size, size, size)
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#555"/></marker>` +
		`<marker id="arrow-red" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#d32f2f"/></marker></defs>`)
	// Several waits between the same two agents fan out.
	seen := map[[2]string]int{}
	const nodeR = 34.0
	for _, e := range g.Edges {
		k := [2]string{e.From, e.To}
		nth := seen[k]
		seen[k]++
		p, q := pos[e.From], pos[e.To]
		color, marker, dash, width := "#555", "arrow", "", 1.5
		if e.Mark() != "" {
			color, marker, width = "#d32f2f", "arrow-red", 3
		}
		if !e.Blocking {
			dash = ` stroke-dasharray="6 4"`
		}
		cls := "edge"
		if m := e.Mark(); m != "" {
			cls += " " + m
		}
		title := html.EscapeString(e.Label() + " (" + e.From + " waits on " + e.To + ", " + e.Status + ")")
		if e.From == e.To {
			continue // the protocol refuses a request to oneself
		}
		dx, dy := q[0]-p[0], q[1]-p[1]
		dist := math.Hypot(dx, dy)
		ux, uy := dx/dist, dy/dist
		sx, sy := p[0]+ux*nodeR, p[1]+uy*nodeR
		ex, ey := q[0]-ux*(nodeR+4), q[1]-uy*(nodeR+4)
		// Bend to the left of the direction of travel, more for each
		// further wait between the same pair: A->B and B->A never overlap.
		bend := 30.0 + 22*float64(nth)
		mx, my := (sx+ex)/2-uy*bend, (sy+ey)/2+ux*bend
		fmt.Fprintf(&b, `<path class="%s" d="M %.1f %.1f Q %.1f %.1f %.1f %.1f" fill="none" stroke="%s" stroke-width="%.1f"%s marker-end="url(#%s)"><title>%s</title></path>`,
			cls, sx, sy, mx, my, ex, ey, color, width, dash, marker, title)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="%s">%s</text>`, (sx+ex)/2-uy*bend*0.55, (sy+ey)/2+ux*bend*0.55+4, color, html.EscapeString(e.ID))
	}
	for _, a := range g.Agents {
		p := pos[a]
		stroke, fill, w := "#1565c0", "#e3f2fd", 2
		if inCycle[a] {
			stroke, fill, w = "#d32f2f", "#ffebee", 4
		}
		fmt.Fprintf(&b, `<g class="agent" data-agent="%s"><circle cx="%.1f" cy="%.1f" r="%.0f" fill="%s" stroke="%s" stroke-width="%d"/><text x="%.1f" y="%.1f" text-anchor="middle" font-weight="600">%s</text></g>`,
			html.EscapeString(a), p[0], p[1], nodeR, fill, stroke, w, p[0], p[1]+4, html.EscapeString(shortName(a)))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// shortName fits an agent's name in its circle.
func shortName(a string) string {
	if r := []rune(a); len(r) > 11 {
		return string(r[:10]) + "…"
	}
	return a
}
