package verify

import (
	"fmt"
	"testing"
)

// The table that finds rows by key finds every key put in it, through its
// growths and its probes past taken slots, and no other.
func TestKeyTableFindsWhatItHolds(t *testing.T) {
	t.Parallel()
	var rows chunked[idKey]
	var tab keyTable
	keyAt := func(i int32) *idKey { return rows.at(i) }
	const n = 10000
	for i := range n {
		k := keyOf(fmt.Sprintf("obs-e-%d-1-abcdef", i))
		if _, ok := tab.find(k, keyAt); ok {
			t.Fatalf("key %d found before it was put", i)
		}
		tab.insert(k, rows.add(k), keyAt)
	}
	if rows.len() != n || 2*tab.n > len(tab.slots) {
		t.Fatalf("%d rows, %d keys in %d slots", rows.len(), tab.n, len(tab.slots))
	}
	for i := range n {
		if at, ok := tab.find(keyOf(fmt.Sprintf("obs-e-%d-1-abcdef", i)), keyAt); !ok || at != int32(i) {
			t.Fatalf("key %d found at %d (%v)", i, at, ok)
		}
		if _, ok := tab.find(keyOf(fmt.Sprintf("obs-x-%d-1-abcdef", i)), keyAt); ok {
			t.Fatalf("a key never put was found")
		}
	}
}
