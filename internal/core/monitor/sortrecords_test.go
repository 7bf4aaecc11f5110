package monitor

import (
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// sortRecords orders as the sort by less did, in order or not, with ties,
// equal times and unreadable times.
func TestSortRecordsIsSortByLess(t *testing.T) {
	t.Parallel()
	times := []string{"2026-03-01T17:04:15.123Z", "2026-03-01T17:04:15.124Z", "2026-03-01T18:04:15Z", "junk", ""}
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 300; round++ {
		n := r.IntN(12)
		recs := make([]ledger.Record, n)
		for i := range recs {
			recs[i] = ledger.Record{IssueNumber: r.IntN(3), Created: times[r.IntN(len(times))], ID: string(rune('a' + r.IntN(5))), Topic: string(rune('A' + i))}
		}
		if round%2 == 0 {
			sort.SliceStable(recs, func(i, j int) bool { return less(&recs[i], &recs[j]) })
			if round%4 == 0 && n > 1 {
				recs[0], recs[n-1] = recs[n-1], recs[0]
			}
		}
		want := append([]ledger.Record(nil), recs...)
		sort.SliceStable(want, func(i, j int) bool { return less(&want[i], &want[j]) })
		got := append([]ledger.Record(nil), recs...)
		sortRecords(got, true)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("stable: got %+v, want %+v", got, want)
		}
		got = append(got[:0], recs...)
		sortRecords(got, false)
		if !sort.SliceIsSorted(got, func(i, j int) bool { return less(&got[i], &got[j]) }) {
			t.Fatalf("not sorted: %+v", got)
		}
	}
}
