package sync

import (
	"encoding/json"
	"testing"
	"time"
)

// The sync state is read from the repository: anything may be in it.
func FuzzParseState(f *testing.F) {
	f.Add([]byte(`{"schema_version":1,"labelsEnsured":["a"],"issues":{"1":{"hash":"x","labels":["a"]}}}`))
	f.Add([]byte(`{"schema_version":2}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st := ParseState(data)
		if st == nil || st.Issues == nil || st.SchemaVersion != 1 {
			t.Fatalf("unusable state from %q", data)
		}
		st.Set(1, IssueState{Hash: "h"})
		if _, err := json.Marshal(st); err != nil {
			t.Fatal(err)
		}
	})
}

// Retry-After comes from the server: never a negative or absurd wait.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"60", "0", "-1", "Wed, 21 Oct 2026 07:28:00 GMT", "soon", "99999999999999999999"} {
		f.Add(s)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		if d, ok := parseRetryAfter(v, now); ok && d < 0 {
			t.Fatalf("%q gave %v", v, d)
		}
	})
}

func FuzzParseEvent(f *testing.F) {
	f.Add([]byte(`{"action":"created","issue":{"number":1},"comment":{"id":2,"body":"/clarify answer CLR-1-001 x","author_association":"OWNER","user":{"login":"a","type":"User"}}}`))
	f.Add([]byte(`{"action":7}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ParseEvent(data)
	})
}
