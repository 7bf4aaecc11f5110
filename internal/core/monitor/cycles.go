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
	var out [][]int
	blocked := make([]bool, n)
	bset := make([]map[int]bool, n)
	var stack []int
	for s := 0; s < n && len(out) < maxCycles; s++ {
		comp := sccOf(n, adj, s)
		if comp == nil {
			continue
		}
		for v := range comp {
			blocked[v] = false
			bset[v] = map[int]bool{}
		}
		var unblock func(u int)
		unblock = func(u int) {
			blocked[u] = false
			for w := range bset[u] {
				delete(bset[u], w)
				if blocked[w] {
					unblock(w)
				}
			}
		}
		var circuit func(v int) bool
		circuit = func(v int) bool {
			found := false
			stack = append(stack, v)
			blocked[v] = true
			for _, w := range adj[v] {
				if !comp[w] || len(out) >= maxCycles {
					continue
				}
				if w == s {
					out = append(out, append([]int(nil), stack...))
					found = true
				} else if !blocked[w] && circuit(w) {
					found = true
				}
			}
			if found {
				unblock(v)
			} else {
				for _, w := range adj[v] {
					if comp[w] {
						bset[w][v] = true
					}
				}
			}
			stack = stack[:len(stack)-1]
			return found
		}
		circuit(s)
	}
	return out
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
