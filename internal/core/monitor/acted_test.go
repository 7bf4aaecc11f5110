package monitor

import "testing"

func TestActed(t *testing.T) {
	for _, tc := range []struct {
		name    string
		actions []Action
		want    string
	}{
		{"nothing", nil, ""},
		{"only skipped and continued", []Action{{Kind: ActSkipped, ID: "CLR-1-001"}, {Kind: ActContinued, ID: "CLR-1-002"}}, ""},
		{"acted", []Action{{Kind: ActEscalated, ID: "CLR-42-001"}, {Kind: ActSkipped, ID: "CLR-1-001"}, {Kind: ActMarkedStale, ID: "CLR-7-002"}},
			"escalated CLR-42-001, marked stale CLR-7-002"},
	} {
		if got := (&Report{Actions: tc.actions}).Acted(); got != tc.want {
			t.Errorf("%s: Acted() = %q, want %q", tc.name, got, tc.want)
		}
	}
}
