package memindex

import (
	"container/heap"
	"sort"
)

// best keeps the best k of what it is offered in a min-heap (k < 0: all),
// in the order better gives: one index's hits and the segments' hits
// share it.
type best[H any] struct {
	k      int
	hits   []H
	better func(a, b H) bool
}

func (t *best[H]) Len() int           { return len(t.hits) }
func (t *best[H]) Less(i, j int) bool { return t.better(t.hits[j], t.hits[i]) }
func (t *best[H]) Swap(i, j int)      { t.hits[i], t.hits[j] = t.hits[j], t.hits[i] }
func (t *best[H]) Push(x any)         { t.hits = append(t.hits, x.(H)) }
func (t *best[H]) Pop() any {
	h := t.hits[len(t.hits)-1]
	t.hits = t.hits[:len(t.hits)-1]
	return h
}

func (t *best[H]) offer(h H) {
	if t.k < 0 || len(t.hits) < t.k {
		heap.Push(t, h)
		return
	}
	if t.better(h, t.hits[0]) {
		t.hits[0] = h
		heap.Fix(t, 0)
	}
}

func (t *best[H]) sorted() []H {
	sort.Slice(t.hits, func(i, j int) bool { return t.better(t.hits[i], t.hits[j]) })
	return t.hits
}
