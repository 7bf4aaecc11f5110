package monitor

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// bruteCycles lists every elementary cycle by plain DFS from each start
// vertex, keeping only paths whose other vertices are larger than the start
// (so each cycle is rooted once at its smallest vertex).
func bruteCycles(n int, adj [][]int) []string {
	var out []string
	var path []int
	on := make([]bool, n)
	var dfs func(s, v int)
	dfs = func(s, v int) {
		for _, w := range adj[v] {
			if w == s && len(path) > 1 {
				out = append(out, fmt.Sprint(path))
			} else if w > s && !on[w] {
				on[w] = true
				path = append(path, w)
				dfs(s, w)
				path = path[:len(path)-1]
				on[w] = false
			}
		}
	}
	for s := 0; s < n; s++ {
		path = []int{s}
		on[s] = true
		dfs(s, s)
		on[s] = false
	}
	sort.Strings(out)
	return out
}

func TestElementaryCyclesMatchBruteForce(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 300; trial++ {
		n := 2 + rng.IntN(5)
		adj := make([][]int, n)
		for v := 0; v < n; v++ {
			for w := 0; w < n; w++ {
				if v != w && rng.IntN(3) == 0 {
					adj[v] = append(adj[v], w)
				}
			}
		}
		var got []string
		for _, c := range elementaryCycles(n, adj) {
			got = append(got, fmt.Sprint(c))
		}
		sort.Strings(got)
		want := bruteCycles(n, adj)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("graph %v:\n got %v\nwant %v", adj, got, want)
		}
	}
}

// FuzzDetect feeds arbitrary agents, topics and questions (text that comes
// from outside) through every detector: it must never panic, and a record
// is never both escalated and continued.
func FuzzDetect(f *testing.F) {
	f.Add("engineer", "architect", "auth", "Middleware or controller?", "middleware OR controller", true)
	f.Add("a", "b", "", "", "", false)
	f.Add("x", "x", "Größe", "\u0000", "??", true)
	f.Fuzz(func(t *testing.T, from, to, topic, q1, q2 string, blocking bool) {
		r1 := rec(1, 1, from, to, blocking, ledger.Pending)
		r1.Topic = topic
		r1.Thread = append(r1.Thread, ledger.Entry{Round: 2, From: from, Type: ledger.Question, Body: q1},
			ledger.Entry{Round: 3, From: from, Type: ledger.Question, Body: q2})
		r2 := rec(1, 2, to, from, blocking, ledger.Stale)
		r2.Topic = topic
		p := Detect([]ledger.Record{r1, r2}, t0.Add(48*60*60*1e9), nil)
		esc := map[string]bool{}
		for _, d := range p.Deadlocks {
			for _, r := range d.Escalate {
				esc[r.ID] = true
			}
		}
		for _, d := range p.Deadlocks {
			for _, r := range d.Continue {
				if esc[r.ID] {
					t.Fatalf("%s both escalated and continued", r.ID)
				}
			}
		}
	})
}
