package memory

import (
	"reflect"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// The typed fields render exactly as the untyped extras did: sourceBytes
// then files, after the reference keys, and read back what was set.
func TestTypedFieldsKeepTheJSON(t *testing.T) {
	t.Parallel()
	o := Observation{ID: "obs-a-1-1-aaaaaa", Agent: "a", IssueNumber: 1, Category: Decision, Content: "c", Summary: "c",
		Tokens: 1, Timestamp: "2026-01-01T00:00:00.000Z", SessionID: "s"}
	o.SetSourceBytes(1234)
	o.SetFiles([]string{"a.go", "b/c.go"})
	want := `{"id":"obs-a-1-1-aaaaaa","agent":"a","issueNumber":1,"category":"decision","content":"c","summary":"c","tokens":1,"timestamp":"2026-01-01T00:00:00.000Z","sessionId":"s","sourceBytes":1234,"files":["a.go","b/c.go"]}`
	if got := string(o.appendJSON(nil)); got != want {
		t.Fatalf("JSON\n%s\nwant\n%s", got, want)
	}
	back, err := decodeObservation([]byte(want))
	if err != nil {
		t.Fatal(err)
	}
	if back.SourceBytes() != 1234 || !reflect.DeepEqual(back.Files(), []string{"a.go", "b/c.go"}) {
		t.Fatalf("read back %d %v", back.SourceBytes(), back.Files())
	}
	// Setting again replaces in place; zero removes.
	back.SetSourceBytes(7)
	back.SetFiles(nil)
	if len(back.Extra) != 1 || back.SourceBytes() != 7 || back.Files() != nil {
		t.Fatalf("extras after reset: %v", back.Extra)
	}
}

func TestTypedFieldsTolerateOtherToolsValues(t *testing.T) {
	t.Parallel()
	for _, v := range []string{`"12"`, `-3`, `1.5`, `null`} {
		o := Observation{Extra: []jsonfile.Field{{Key: FieldSourceBytes, Value: []byte(v)}, {Key: FieldFiles, Value: []byte(v)}}}
		if o.SourceBytes() != 0 || o.Files() != nil {
			t.Errorf("%s: %d %v", v, o.SourceBytes(), o.Files())
		}
	}
}
