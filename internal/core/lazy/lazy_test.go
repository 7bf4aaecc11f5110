package lazy

import (
	"sync"
	"sync/atomic"
	"testing"
)

var calls atomic.Int32

// counted is declared as the packages that use Value declare theirs.
var counted = Value[[]int]{New: func() []int { calls.Add(1); return []int{1, 2, 3} }}

func TestValueIsBuiltOnceOnFirstGet(t *testing.T) {
	if n := calls.Load(); n != 0 {
		t.Fatalf("built %d times before the first Get", n)
	}
	var wg sync.WaitGroup
	got := make([][]int, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = counted.Get()
		}()
	}
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Fatalf("built %d times, want once", n)
	}
	for _, g := range got {
		if len(g) != 3 || &g[0] != &got[0][0] {
			t.Fatalf("Get returned different values: %v", got)
		}
	}
}
