// MergeFile beyond the ledger's rules: whole files (kept byte for byte,
// absence never a deletion), what it refuses to merge, the kind of each
// state path, an id replaced in text, and the guard naming a lost entry.

package statemerge

import (
	"errors"
	"strings"
	"testing"
)

func TestMergeFileWholeFiles(t *testing.T) {
	t.Parallel()
	q1 := req("CLR-42-001", 0, "Middleware or controller?")
	q2 := req("CLR-42-002", 5, "Which session store?")
	indented := []byte("{\n    \"issueNumber\": 42,\n    \"clarifications\": []\n}\n") // another tool's layout
	tests := []struct {
		name               string
		base, ours, theirs []byte
		want               []byte
	}{
		{"ours and theirs equal: ours, byte for byte", file(t, q1), indented, indented, indented},
		{"only theirs changed: theirs, byte for byte", indented, indented, file(t, q1), file(t, q1)},
		{"only ours changed: ours, byte for byte", indented, file(t, q1), indented, file(t, q1)},
		{"added on one side", nil, nil, file(t, q1), file(t, q1)},
		// Absence is never a deletion: a missing file is "not here yet".
		{"missing on one side, untouched on the other", file(t, q1), nil, file(t, q1), file(t, q1)},
		{"missing on both, the base holds it", file(t, q1), nil, nil, file(t, q1)},
		{"missing on one side, a record added on the other", file(t, q1), nil, file(t, q1, q2), file(t, q1, q2)},
		{"deleted on one side, a record answered on the other", file(t, q1), file(t, answer(q1, 2, "M.")), nil, file(t, answer(q1, 2, "M."))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := MergeFile(ledgerPath, tc.base, tc.ours, tc.theirs)
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil) != (tc.want == nil) || string(got) != string(tc.want) {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestMergeFileUnmergeable(t *testing.T) {
	t.Parallel()
	q1 := file(t, req("CLR-42-001", 0, "Q?"))
	q1a := file(t, answer(req("CLR-42-001", 0, "Q?"), 2, "A."))
	tests := []struct {
		name, path         string
		base, ours, theirs []byte
	}{
		{"not a state file", "agentx.toml", q1, q1a, nil},
		{"agent status is local", "state/agent-status.json", q1, q1a, nil},
		{"the manifest is derived", "memory/manifest.json", q1, q1a, nil},
		{"ours is not JSON", ledgerPath, q1, []byte("<<<<<<< HEAD\n{"), q1a},
		{"theirs is empty", ledgerPath, q1, q1a, []byte{}},
		{"base has the wrong shape", ledgerPath, []byte(`{"clarifications": 3}`), q1, q1a},
		{"a memory file that does not parse", "memory/issue-42.json", nil, []byte(`{"observations": [1]}`), []byte(`{}`)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := MergeFile(tc.path, tc.base, tc.ours, tc.theirs)
			if !errors.Is(err, ErrUnmergeable) || got != nil {
				t.Errorf("got %q, %v; want ErrUnmergeable", got, err)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path  string
		kind  kind
		issue int
	}{
		{"state/clarifications/issue-42.json", kindLedger, 42},
		{"./state/clarifications/issue-7.json", kindLedger, 7},
		{"state/clarifications/issue-x.json", kindUnknown, 0},
		{"state/clarifications/issue-0.json", kindUnknown, 0},
		{"memory/issue-42.json", kindMemory, 42},
		{"memory/manifest.json", kindUnknown, 0},
		{"memory/archive/issue-42-archived.json", kindArchive, 42},
		{"memory/archive/other.json", kindArchive, 0},
		{"memory/archive/x/issue-1-archived.json", kindUnknown, 0},
		{"state/agent-status.json", kindUnknown, 0},
	}
	for _, tc := range tests {
		k, n := classify(tc.path)
		if k != tc.kind || n != tc.issue {
			t.Errorf("classify(%q) = %v, %d; want %v, %d", tc.path, k, n, tc.kind, tc.issue)
		}
	}
}

func TestReplaceID(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"(CLR-42-002) and CLR-42-002.", "(CLR-42-009) and CLR-42-009."},
		{"CLR-42-0021 xCLR-42-002 CLR-42-002-b", "CLR-42-0021 xCLR-42-002 CLR-42-002-b"},
		{"resolve CLR-42-002", "resolve CLR-42-009"},
	}
	for _, tc := range tests {
		if got := replaceID(tc.in, "CLR-42-002", "CLR-42-009"); got != tc.want {
			t.Errorf("replaceID(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The guard names a thread entry a result lost, not only a record.
func TestLostNamesADroppedEntry(t *testing.T) {
	q := req("CLR-42-001", 0, "Q?")
	a := answer(q, 2, "A.")
	lost, err := Lost(ledgerPath, file(t, q), file(t, a))
	if err != nil || len(lost) != 1 || !strings.Contains(lost[0], "CLR-42-001 entry 1 (answer)") {
		t.Fatalf("%v %v", lost, err)
	}
	if lost, err := Lost(ledgerPath, file(t, a), file(t, q), file(t, a)); err != nil || len(lost) != 0 {
		t.Fatalf("%v %v", lost, err)
	}
}
