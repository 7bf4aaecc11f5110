package fileid

import (
	"errors"
	"fmt"
	"testing"
)

type kept struct {
	id   ID
	rest []byte
}

func keptLine(k kept) (ID, []byte) { return k.id, k.rest }

func keepAll(_ string, id ID, rest []byte) (kept, error) { return kept{id, rest}, nil }

// An index written is read back whole; a line that does not parse, or one
// the caller refuses, refuses the whole index.
func TestIndexRoundTripAndRefusal(t *testing.T) {
	idx := map[string]kept{
		"issue-2.json":  {ID{Ino: 7, Size: 120, Mtime: -1, Ctime: 1795915207316000000}, []byte("{\"a\":1}")},
		"issue-10.json": {ID{Ino: 1, Size: 0, Mtime: 2, Ctime: 3}, []byte("-")},
	}
	data := FormatIndex("hdr 1", idx, keptLine)
	if want := "hdr 1\nissue-10.json 1 0 2 3 -\nissue-2.json 7 120 -1 1795915207316000000 {\"a\":1}\n"; string(data) != want {
		t.Fatalf("FormatIndex:\n%s\nwant\n%s", data, want)
	}
	back, err := ParseIndex(data, "hdr 1", keepAll)
	if err != nil || !SameIndex(idx, back, keptLine) {
		t.Fatalf("round trip: %v %v", back, err)
	}
	for name, bad := range map[string]string{
		"other header":  "hdr 2\n",
		"short line":    "hdr 1\nissue-1.json 1 2 3\n",
		"not a number":  "hdr 1\nissue-1.json 1 x 3 4 -\n",
		"too long":      "hdr 1\nissue-1.json 1 99999999999999999999 3 4 -\n",
		"refused entry": "hdr 1\nrefuse 1 2 3 4 -\n",
	} {
		_, err := ParseIndex([]byte(bad), "hdr 1", func(name string, id ID, rest []byte) (kept, error) {
			if name == "refuse" {
				return kept{}, errors.New("refused")
			}
			return kept{id, rest}, nil
		})
		if err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	changed := map[string]kept{"issue-2.json": idx["issue-2.json"], "issue-10.json": {idx["issue-10.json"].id, []byte("{}")}}
	if SameIndex(idx, changed, keptLine) {
		t.Error("SameIndex missed a changed kept line")
	}
}

// Reading an index costs its map and one string per line (the name), not
// a split of every line: the monitor reads one of 10,000 lines after
// every clarify command at that size.
func TestParseIndexAllocatesPerLineOnlyTheName(t *testing.T) {
	const n = 1000
	idx := make(map[string]kept, n)
	for i := range n {
		idx[fmt.Sprintf("issue-%d.json", i)] = kept{ID{Ino: int64(i), Size: 10, Mtime: 1, Ctime: 2}, []byte(`{"open": "records with spaces"}`)}
	}
	data := FormatIndex("hdr 1", idx, keptLine)
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := ParseIndex(data, "hdr 1", keepAll); err != nil {
			t.Fatal(err)
		}
	})
	// n names, and the map's own allocations (a few dozen for n entries).
	if allocs > n+100 {
		t.Fatalf("ParseIndex of %d lines allocated %.0f times, want at most %d", n, allocs, n+100)
	}
}
