package statediff

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func read(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func summary(items []Item) string {
	var out []string
	for _, it := range items {
		out = append(out, fmt.Sprintf("%s %s #%d [%s] %t/%t", it.Change, it.ID, it.Issue, it.Detail, it.Before != "", it.After != ""))
	}
	return strings.Join(out, "; ")
}

func TestFile(t *testing.T) {
	t.Parallel()
	ledger := read(t, "../ledger/testdata/reference.json")
	reopened := []byte(strings.Replace(strings.Replace(string(ledger), `"status": "resolved"`, `"status": "pending"`, 1), `"round": 1,
      "maxRounds"`, `"round": 2,
      "maxRounds"`, 1))
	mem := read(t, "../memory/testdata/corpus/issue-42.json")
	edited := []byte(strings.Replace(string(mem), "controllers never parse tokens", "controllers never parse a token", 1))
	const lp, mp = "state/clarifications/issue-42.json", "memory/issue-42.json"
	tests := []struct {
		name      string
		path      string
		old, cur  []byte
		records   string
		obs       string
		wantError bool
	}{
		{name: "ledger created", path: lp, cur: ledger, records: "added CLR-42-001 #42 [] false/true"},
		{name: "ledger removed", path: lp, old: ledger, records: "removed CLR-42-001 #42 [] true/false"},
		{name: "record reopened", path: lp, old: ledger, cur: reopened, records: "changed CLR-42-001 #42 [round 1 -> 2, status resolved -> pending] true/true"},
		{name: "ledger unchanged", path: lp, old: ledger, cur: ledger},
		{name: "observation edited", path: mp, old: mem, cur: edited, obs: "changed obs-architect-42-1770092286222-jwtmw0 #42 [content changed] true/true"},
		{name: "a file without records", path: "memory/archive/issue-42.json", old: mem, cur: edited},
		{name: "the manifest", path: "memory/manifest.json", old: []byte("{}"), cur: []byte("[]")},
		{name: "a side that does not parse", path: lp, old: []byte("{"), cur: ledger, wantError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := File(tt.path, tt.old, tt.cur)
			if (err != nil) != tt.wantError {
				t.Fatalf("err = %v", err)
			}
			if got := summary(c.Records); got != tt.records {
				t.Errorf("records: %s\nwant      %s", got, tt.records)
			}
			if got := summary(c.Observations); got != tt.obs {
				t.Errorf("observations: %s\nwant           %s", got, tt.obs)
			}
			if len(c.Items()) != len(c.Records)+len(c.Observations) {
				t.Error("Items lost some")
			}
		})
	}
}
