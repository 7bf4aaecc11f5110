package monitor

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// WaitGraph is who waits on whom: one edge per open clarification, from
// the agent that asked to the agent that owes the next word, marked with
// what the monitor would find (Detect). `monitor --graph` prints it as
// Mermaid or DOT and the web view draws it; all three read this one value,
// so a cycle the monitor breaks is the cycle every picture shows.
type WaitGraph struct {
	// Agents are the agents on some edge, sorted.
	Agents []string `json:"agents"`
	Edges  []Edge   `json:"edges"`
	// Cycles are the deadlocks, each in wait order (Deadlock.Agents).
	Cycles [][]string `json:"cycles"`
}

// Edge is one open clarification as a wait.
type Edge struct {
	From     string `json:"from"`
	To       string `json:"to"`
	ID       string `json:"id"`
	Issue    int    `json:"issue"`
	Topic    string `json:"topic"`
	Status   string `json:"status"`
	Blocking bool   `json:"blocking"`
	// Stale: past its SLA; Stuck: asking in circles; Deadlock: one of the
	// waits of a cycle.
	Stale    bool `json:"stale"`
	Stuck    bool `json:"stuck"`
	Deadlock bool `json:"deadlock"`
}

// NewWaitGraph builds the graph of recs (any records: closed and answered
// ones are left out) at now, with the findings Detect gives for them.
func NewWaitGraph(recs []ledger.Record, now time.Time, priority []string) *WaitGraph {
	plan := Detect(recs, now, priority)
	stale, stuck, dead := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, f := range plan.Stale {
		stale[f.Record.ID] = true
	}
	for _, f := range plan.Stuck {
		stuck[f.Record.ID] = true
	}
	g := &WaitGraph{Edges: []Edge{}, Cycles: [][]string{}}
	for _, d := range plan.Deadlocks {
		g.Cycles = append(g.Cycles, append([]string(nil), d.Agents...))
		for _, r := range append(append([]ledger.Record(nil), d.Continue...), d.Escalate...) {
			dead[r.ID] = true
		}
	}
	agents := map[string]bool{}
	for _, r := range recs {
		// An answered record waits on nobody: the asker owes the next
		// word, and may take its time (Detect sees it the same way).
		if !r.Status.Open() || r.Status == ledger.Answered {
			continue
		}
		g.Edges = append(g.Edges, Edge{
			From: r.From, To: r.To, ID: r.ID, Issue: r.IssueNumber, Topic: r.Topic,
			Status: string(r.Status), Blocking: r.Blocking,
			Stale: stale[r.ID] || r.Status == ledger.Stale, Stuck: stuck[r.ID], Deadlock: dead[r.ID],
		})
		agents[r.From], agents[r.To] = true, true
	}
	sort.Slice(g.Edges, func(i, j int) bool {
		a, b := g.Edges[i], g.Edges[j]
		if a.Issue != b.Issue {
			return a.Issue < b.Issue
		}
		return a.ID < b.ID
	})
	for a := range agents {
		g.Agents = append(g.Agents, a)
	}
	sort.Strings(g.Agents)
	return g
}

// Mark is the one-word finding of an edge ("" for a plain wait), the
// order of precedence every picture uses.
func (e *Edge) Mark() string {
	switch {
	case e.Deadlock:
		return "deadlock"
	case e.Stuck:
		return "stuck"
	case e.Stale:
		return "stale"
	}
	return ""
}

// Label is the edge's caption: id, topic (shortened) and finding.
func (e *Edge) Label() string {
	topic := e.Topic
	if r := []rune(topic); len(r) > 40 {
		topic = string(r[:39]) + "…"
	}
	s := e.ID + ": " + topic
	if m := e.Mark(); m != "" {
		s += " [" + strings.ToUpper(m) + "]"
	}
	return s
}

// graphID is an agent name as a node id both Mermaid and DOT accept:
// agent names are [a-z0-9-] (validate), and a prefix keeps one that
// starts with a digit or is a keyword ("graph", "end") a plain id.
func graphID(agent string) string {
	return "a_" + strings.ReplaceAll(agent, "-", "_")
}

// quoteLabel keeps a label inside its quotes in both languages: stored
// text (a topic) must not end the label or start a new statement.
func quoteLabel(s string) string {
	r := strings.NewReplacer(`"`, "'", "\\", "/", "\n", " ", "\r", " ", "<", "‹", ">", "›", "{", "(", "}", ")", "|", "/", ";", ",", "`", "'", "#", "no.")
	return r.Replace(s)
}

// Mermaid is the graph as a Mermaid flowchart (GitHub renders it in
// Markdown): blocking waits solid, others dotted, findings in red.
func (g *WaitGraph) Mermaid() string {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	for _, a := range g.Agents {
		fmt.Fprintf(&b, "  %s[\"%s\"]\n", graphID(a), quoteLabel(a))
	}
	for i, e := range g.Edges {
		arrow := "-.->"
		if e.Blocking {
			arrow = "-->"
		}
		fmt.Fprintf(&b, "  %s %s|\"%s\"| %s\n", graphID(e.From), arrow, quoteLabel(e.Label()), graphID(e.To))
		if e.Mark() != "" {
			fmt.Fprintf(&b, "  linkStyle %d stroke:#d32f2f,stroke-width:3px\n", i)
		}
	}
	for _, c := range g.Cycles {
		for _, a := range c {
			fmt.Fprintf(&b, "  style %s stroke:#d32f2f,stroke-width:3px\n", graphID(a))
		}
	}
	return b.String()
}

// DOT is the graph in Graphviz's language.
func (g *WaitGraph) DOT() string {
	var b strings.Builder
	b.WriteString("digraph waits {\n  rankdir=LR;\n  node [shape=box];\n")
	inCycle := map[string]bool{}
	for _, c := range g.Cycles {
		for _, a := range c {
			inCycle[a] = true
		}
	}
	for _, a := range g.Agents {
		attrs := `label="` + quoteLabel(a) + `"`
		if inCycle[a] {
			attrs += ", color=red, penwidth=2"
		}
		fmt.Fprintf(&b, "  %s [%s];\n", graphID(a), attrs)
	}
	for _, e := range g.Edges {
		attrs := `label="` + quoteLabel(e.Label()) + `"`
		if !e.Blocking {
			attrs += ", style=dashed"
		}
		if e.Mark() != "" {
			attrs += ", color=red, penwidth=2"
		}
		fmt.Fprintf(&b, "  %s -> %s [%s];\n", graphID(e.From), graphID(e.To), attrs)
	}
	b.WriteString("}\n")
	return b.String()
}
