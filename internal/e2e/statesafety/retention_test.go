//go:build unix

package statesafety

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Issue 22 item 2 in GitHub Mode: what retention archives in one clone
// leaves every clone's issue file through the state branch (its tombstone
// says why), stays in the archive everywhere, and is not brought back by
// a clone that synced before; a restore in another clone brings it back
// everywhere.
func TestArchivedObservationThroughTheStateBranch(t *testing.T) {
	s := newScenario(t)
	s.shared()
	later := []string{"AGENTX_NOW=" + time.Now().UTC().AddDate(0, 0, 120).Format("2006-01-02T15:04:05.000Z")}
	res, err := runWith(s.w.tree("a"), later, "", agentxBin, "memory", "compact", "--auto", "--json")
	if err == nil {
		err = quiesce(s.w.dir)
	}
	if err != nil || res.code != 0 || !strings.Contains(res.stdout, `"archived": 2`) {
		t.Fatalf("compact --auto in a: %v %s", err, res)
	}
	var ids []string
	for _, it := range s.items {
		if it.kind == "observation" {
			ids = append(ids, it.id)
		}
	}
	memFile := func(tree, rel string) string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(s.w.tree(tree), ".agentx", "memory", rel))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return string(data)
	}
	// holds reports whether an issue-shaped file lists id among its
	// observations (tombstones name ids too).
	holds := func(file, id string) bool {
		t.Helper()
		var f struct {
			Observations []struct {
				ID string `json:"id"`
			} `json:"observations"`
		}
		if file != "" {
			if err := json.Unmarshal([]byte(file), &f); err != nil {
				t.Fatal(err)
			}
		}
		for _, o := range f.Observations {
			if o.ID == id {
				return true
			}
		}
		return false
	}
	check := func(when string, trees ...string) {
		t.Helper()
		for _, tree := range trees {
			issue, archive := memFile(tree, "issue-1.json"), memFile(tree, "archive/issue-1-archived.json")
			for _, id := range ids {
				if holds(issue, id) {
					t.Errorf("%s: %s's issue file holds the archived %s again", when, tree, id)
				}
				if !holds(archive, id) {
					t.Errorf("%s: %s's archive lacks %s", when, tree, id)
				}
			}
			if !strings.Contains(issue, `"reason": "archived"`) {
				t.Errorf("%s: %s's issue file has no archived tombstone", when, tree)
			}
		}
	}
	// b and c synced before the archiving and still hold both: their syncs
	// must not bring them back.
	s.sync("a", "b", "c", "a")
	check("after the syncs", "a", "b", "c")

	// Restored in b: back everywhere after the syncs.
	s.ok("b", "memory", "restore", ids[0])
	s.sync("b", "a", "c")
	for _, tree := range []string{"a", "b", "c"} {
		if !holds(memFile(tree, "issue-1.json"), ids[0]) {
			t.Errorf("after the restore in b: %s lacks %s", tree, ids[0])
		}
	}
	if holds(memFile("c", "issue-1.json"), ids[1]) {
		t.Errorf("after the restore of %s: %s came back too", ids[0], ids[1])
	}
}
