package checkpoint

import (
	"testing"

	"github.com/agentx-dev/agentx/internal/core/gitstore"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// A change of only the Kept files (the audit trail, which records each
// checkpoint) is no change: otherwise every checkpoint's own audit line
// would make the next one differ.
func TestSameExceptKept(t *testing.T) {
	t.Parallel()
	h := func(b byte) gitstore.Entry { return gitstore.Entry{Hash: plumbing.Hash{b}, Mode: filemode.Regular} }
	kept := func(p string) bool { return p == "state/audit.jsonl" }
	base := map[string]gitstore.Entry{"a.json": h(1), "state/audit.jsonl": h(2)}
	for _, tc := range []struct {
		name string
		b    map[string]gitstore.Entry
		want bool
	}{
		{"identical", map[string]gitstore.Entry{"a.json": h(1), "state/audit.jsonl": h(2)}, true},
		{"trail grew", map[string]gitstore.Entry{"a.json": h(1), "state/audit.jsonl": h(3)}, true},
		{"trail gone", map[string]gitstore.Entry{"a.json": h(1)}, true},
		{"file changed", map[string]gitstore.Entry{"a.json": h(4), "state/audit.jsonl": h(2)}, false},
		{"file added", map[string]gitstore.Entry{"a.json": h(1), "b.json": h(1), "state/audit.jsonl": h(2)}, false},
		{"file removed", map[string]gitstore.Entry{"state/audit.jsonl": h(2)}, false},
	} {
		if got := sameExcept(base, tc.b, kept); got != tc.want {
			t.Errorf("%s: sameExcept = %v, want %v", tc.name, got, tc.want)
		}
	}
}
