package monitor

import (
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/ledger"
)

func TestWaitGraph(t *testing.T) {
	t.Parallel()
	recs := []ledger.Record{
		rec(1, 1, "engineer", "architect", true, ledger.Pending),
		rec(2, 2, "architect", "engineer", true, ledger.Pending),
		rec(3, 3, "reviewer", "engineer", false, ledger.Pending),
		rec(4, 4, "pm", "architect", true, ledger.Answered),
		rec(5, 5, "pm", "reviewer", true, ledger.Resolved),
	}
	g := NewWaitGraph(recs, t0, nil)
	if got := strings.Join(g.Agents, ","); got != "architect,engineer,reviewer" {
		t.Errorf("agents = %s, want architect,engineer,reviewer (answered and resolved records wait on nobody)", got)
	}
	if len(g.Edges) != 3 {
		t.Fatalf("edges = %+v, want the 3 waiting records", g.Edges)
	}
	plan := Detect(recs, t0, nil)
	if len(g.Cycles) != 1 || len(plan.Deadlocks) != 1 || strings.Join(g.Cycles[0], ">") != strings.Join(plan.Deadlocks[0].Agents, ">") {
		t.Errorf("cycles = %v, want the one Detect finds, %v", g.Cycles, plan.Deadlocks)
	}
	for _, e := range g.Edges {
		if want := e.Issue <= 2; e.Deadlock != want {
			t.Errorf("%s deadlock = %v, want %v", e.ID, e.Deadlock, want)
		}
	}
	mm, dot := g.Mermaid(), g.DOT()
	for _, want := range []string{"flowchart LR", "a_engineer -->|", "a_reviewer -.->|", "[DEADLOCK]", "style a_architect stroke:#d32f2f"} {
		if !strings.Contains(mm, want) {
			t.Errorf("Mermaid lacks %q:\n%s", want, mm)
		}
	}
	for _, want := range []string{"digraph waits {", "a_reviewer -> a_engineer", "style=dashed", "a_architect [label=\"architect\", color=red"} {
		if !strings.Contains(dot, want) {
			t.Errorf("DOT lacks %q:\n%s", want, dot)
		}
	}
}

// A stored topic is data: whatever it holds, it stays inside its label
// and cannot add a statement to either language.
func TestWaitGraphLabelsStayQuoted(t *testing.T) {
	t.Parallel()
	r := rec(7, 1, "engineer", "architect", true, ledger.Pending)
	r.Topic = "x\"] ; click a_engineer \"javascript:alert(1)\"\n}| <script>"
	g := NewWaitGraph([]ledger.Record{r}, t0, nil)
	for name, out := range map[string]string{"mermaid": g.Mermaid(), "dot": g.DOT()} {
		lines := strings.Split(strings.TrimSpace(out), "\n")
		for _, l := range lines {
			if strings.Contains(l, "click") && strings.Count(l, `"`) != 2 {
				t.Errorf("%s: the topic escaped its quotes: %s", name, l)
			}
			if strings.Contains(l, "<script>") {
				t.Errorf("%s: raw tag kept: %s", name, l)
			}
		}
		if name == "dot" && strings.Count(out, "}") != 1 {
			t.Errorf("dot: a brace in the topic closed the graph:\n%s", out)
		}
	}
}
