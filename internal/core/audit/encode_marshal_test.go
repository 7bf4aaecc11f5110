package audit

import (
	"encoding/json"
	"testing"
)

// Encode's hand-written layout is json.Marshal's, member for member and
// escape for escape: the trail's lines (and so their hashes) are what
// they were.
func TestEncodeIsMarshal(t *testing.T) {
	t.Parallel()
	weird := "<a> & \"q\" \\ \t\n\x01 é \u2028 \xff"
	for _, e := range []Entry{
		{},
		{Time: "2026-03-30T12:00:00.000Z", Actor: "engineer", Op: "clarify.request", Issue: 7, IDs: []string{"CLR-7-001"},
			After: map[string]string{"CLR-7-001": "sha256:00"}, Tool: "agentx-hook", Version: "v1", Prev: "sha256:11"},
		{Time: weird, Actor: weird, Op: weird, Issue: -3, IDs: []string{weird, ""}, MoreIDs: 12,
			Before: map[string]string{"b": "1", "a": weird, weird: "", "A": "x"}, After: map[string]string{}, Detail: weird,
			Tool: weird, Version: weird, Prev: weird, Hash: weird},
		{IDs: []string{}, Before: map[string]string{"z": "y"}},
	} {
		want, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.appendJSON(nil); string(got) != string(want) {
			t.Errorf("appendJSON\n%s\njson.Marshal\n%s", got, want)
		}
	}
}
