// Package ledgertest holds the ledger checks that tests of several
// packages make on a workspace their processes wrote. Test support only.
package ledgertest

import (
	"fmt"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// CheckIDs asserts that the ledger of issue under root holds exactly the
// ids CLR-issue-001 to n, each once: no request lost or written twice by
// concurrent writers.
func CheckIDs(t testing.TB, root string, issue, n int) {
	t.Helper()
	l, err := ledger.LoadFile(workspace.Workspace{Root: root}.LedgerFile(issue), issue)
	if err != nil {
		t.Fatalf("ledger %d: %v", issue, err)
	}
	seen := map[string]int{}
	for _, r := range l.Clarifications {
		seen[r.ID]++
	}
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("CLR-%d-%03d", issue, i)
		if seen[id] != 1 {
			t.Errorf("%s appears %d times", id, seen[id])
		}
	}
	if len(l.Clarifications) != n {
		t.Errorf("issue %d: %d records, want %d", issue, len(l.Clarifications), n)
	}
}
