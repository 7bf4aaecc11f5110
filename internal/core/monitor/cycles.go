package monitor

import "sort"

// maxCycles bounds the enumeration: a graph of n agents can hold
// exponentially many cycles, and breaking the first thousand breaks the rest
// (each break escalates edges that the others share or re-checks next run).
const maxCycles = 1000

// elementaryCycles lists every elementary cycle of the directed graph adj
// (vertices 0..n-1) with Johnson's algorithm (1975): for each start vertex s
// in ascending order it searches the strongly connected component of s in
// the subgraph of vertices >= s, so each cycle is found exactly once, rooted
// at its smallest vertex. Self-loops are ignored (an agent never waits on
// itself). Output is deterministic: neighbours are visited in ascending order.
func elementaryCycles(n int, adj [][]int) [][]int {
	for v := range adj {
		sort.Ints(adj[v])
	}
	j := &johnson{adj: adj, blocked: make([]bool, n), bset: make([]map[int]bool, n)}
	for s := 0; s < n && len(j.out) < maxCycles; s++ {
		comp := sccOf(n, adj, s)
		if comp == nil {
			continue
		}
		for v := range comp {
			j.blocked[v] = false
			j.bset[v] = map[int]bool{}
		}
		j.s, j.comp = s, comp
		j.circuit(s)
	}
	return j.out
}

// johnson is the state of one run of Johnson's algorithm.
type johnson struct {
	adj     [][]int
	blocked []bool
	bset    []map[int]bool // B(v): vertices to unblock when v is
	stack   []int
	s       int          // the start vertex of the current search
	comp    map[int]bool // s's component: the vertices searched
	out     [][]int
}

func (j *johnson) unblock(u int) {
	j.blocked[u] = false
	for w := range j.bset[u] {
		delete(j.bset[u], w)
		if j.blocked[w] {
			j.unblock(w)
		}
	}
}

// circuit finds the cycles through j.s that continue the path on the stack
// with v, and reports whether it found any.
func (j *johnson) circuit(v int) bool {
	found := false
	j.stack = append(j.stack, v)
	j.blocked[v] = true
	for _, w := range j.adj[v] {
		if !j.comp[w] || len(j.out) >= maxCycles {
			continue
		}
		if w == j.s {
			j.out = append(j.out, append([]int(nil), j.stack...))
			found = true
		} else if !j.blocked[w] && j.circuit(w) {
			found = true
		}
	}
	if found {
		j.unblock(v)
	} else {
		for _, w := range j.adj[v] {
			if j.comp[w] {
				j.bset[w][v] = true
			}
		}
	}
	j.stack = j.stack[:len(j.stack)-1]
	return found
}

// sccOf returns the strongly connected component containing s in the
// subgraph of vertices >= s, or nil when it is trivial (s alone).
func sccOf(n int, adj [][]int, s int) map[int]bool {
	reach := func(forward bool) map[int]bool {
		seen := map[int]bool{s: true}
		queue := []int{s}
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			for u := 0; u < n; u++ {
				if u < s || seen[u] {
					continue
				}
				if (forward && has(adj[v], u)) || (!forward && has(adj[u], v)) {
					seen[u] = true
					queue = append(queue, u)
				}
			}
		}
		return seen
	}
	fwd, back := reach(true), reach(false)
	comp := map[int]bool{}
	for v := range fwd {
		if back[v] {
			comp[v] = true
		}
	}
	if len(comp) < 2 {
		return nil
	}
	return comp
}

func has(list []int, v int) bool {
	i := sort.SearchInts(list, v)
	return i < len(list) && list[i] == v
}
