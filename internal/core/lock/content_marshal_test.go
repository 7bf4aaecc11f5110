package lock

import (
	"encoding/json"
	"testing"
)

// A lock file's content is json.Marshal's layout of Content, byte for byte:
// the reference tools read it.
func TestContentIsMarshal(t *testing.T) {
	t.Parallel()
	weird := "<a> & \"q\" \\ \t\n\x01 é \u2028 \xff"
	for _, c := range []Content{
		{},
		{PID: 4242, Timestamp: "2026-11-29T06:53:50.140Z", Created: "2026-11-29T06:53:50.140Z", Agent: "engineer", Host: "vm", Nonce: "0123456789abcdef"},
		{PID: -1, Timestamp: weird, Agent: weird, Host: weird},
		{Created: "x", Nonce: "y"},
	} {
		want, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.appendJSON(nil); string(got) != string(want) {
			t.Errorf("appendJSON\n%s\njson.Marshal\n%s", got, want)
		}
	}
}
