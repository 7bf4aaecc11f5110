package statemerge

import (
	"errors"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/memory"
)

// FuzzMergeFile feeds arbitrary sides to MergeFile. Whatever they hold, it
// must not panic, must fail only with ErrUnmergeable, must give back a side
// merged with an identical one, must write files that parse, and must not
// depend on which side is ours unless it renumbered a record.
func FuzzMergeFile(f *testing.F) {
	q1 := req("CLR-42-001", 0, "Middleware or controller?")
	q2 := req("CLR-42-002", 5, "Which session store?")
	q2b := req("CLR-42-002", 6, "Which token format?")
	seeds := [][3][]byte{
		{file(f, q1), file(f, q1, q2), file(f, answer(q1, 2, "M."), q2b)},
		{file(f, q1), file(f, resolve(q1, 3)), file(f, markStale(escalate(q1, 4), 40))},
		{nil, file(f, q2), file(f, withExtra(q2b, "x", `{"y":[1]}`))},
		{memFile(f, 1, obs("obs-a", 1, "A")), memFile(f, 2, recalled(obs("obs-a", 1, "A"), 2)), memFile(f, 3, obs("obs-b", 2, "B"))},
		{[]byte(`{"issueNumber":42,"clarifications":[{"id":"x"}]}`), []byte(`{"clarifications":null,"k":1}`), []byte(`{"issueNumber":1}`)},
	}
	for i, s := range seeds {
		f.Add(uint8(i), s[0], s[1], s[2], s[0] == nil)
	}
	paths := []string{ledgerPath, memoryPath, archivePath}
	f.Fuzz(func(t *testing.T, which uint8, base, ours, theirs []byte, noBase bool) {
		path := paths[int(which)%len(paths)]
		if noBase {
			base = nil
		}
		for _, side := range [][]byte{ours, theirs} {
			got, _, err := MergeFile(path, base, side, side)
			if err != nil || string(got) != string(side) {
				t.Fatalf("merge of identical sides is not the side: %v", err)
			}
		}
		got, rep, err := MergeFile(path, base, ours, theirs)
		if err != nil {
			if !errors.Is(err, ErrUnmergeable) {
				t.Fatalf("error %v is not ErrUnmergeable", err)
			}
			return
		}
		if !parses(path, base) || !parses(path, ours) || !parses(path, theirs) {
			return // a side taken whole when the other did not change it
		}
		if got != nil && !parses(path, got) {
			t.Fatalf("merged file does not parse:\n%s", got)
		}
		swapped, srep, err := MergeFile(path, base, theirs, ours)
		if err != nil {
			t.Fatalf("swapped sides fail: %v", err)
		}
		if len(rep.Renamed) == 0 && len(srep.Renamed) == 0 && string(got) != string(swapped) {
			t.Fatalf("not symmetric:\n%s\nswapped:\n%s", got, swapped)
		}
		// Merging the result with itself is the result.
		again, _, err := MergeFile(path, base, got, got)
		if err != nil || string(again) != string(got) {
			t.Fatalf("merge(base, m, m) != m: %v", err)
		}
	})
}

func parses(path string, data []byte) bool {
	if data == nil {
		return true
	}
	if path == ledgerPath {
		_, err := ledger.Parse(path, data, 42)
		return err == nil
	}
	_, err := memory.ParseIssueFile(path, data)
	return err == nil
}
