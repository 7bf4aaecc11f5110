package sync

import (
	"context"
	"fmt"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/githubfake"
)

// TestBranchSourceReadsTheBranchInOneArchive: the digest reads every
// ledger of the branch; at 300 ledgers that was 302 calls (the ref, the
// tree, a blob each). Through the archive: the ref, the tree, the
// archive's link, and every ledger as the tree names it.
func TestBranchSourceReadsTheBranchInOneArchive(t *testing.T) {
	t.Parallel()
	fake := githubfake.New()
	defer fake.Close()
	files := map[string][]byte{}
	for i := 1; i <= 300; i++ {
		l := ledger42()
		l.IssueNumber = i
		for j := range l.Clarifications {
			l.Clarifications[j].IssueNumber = i
			l.Clarifications[j].ID = fmt.Sprintf("CLR-%d-%03d", i, j+1)
		}
		data, err := jsonfile.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		files[BranchLedgerPath(i)] = data
	}
	fake.SetBranchFiles(DefaultStateBranch, files, "ledgers")
	c := newTestClient(t, fake, &sleeps{})
	var warned []string
	src := &BranchSource{State: NewStateBranch(c, ""), Warn: func(f string, a ...any) { warned = append(warned, fmt.Sprintf(f, a...)) }}
	fake.ResetCounts()
	ls, err := src.Ledgers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 300 || len(warned) != 0 {
		t.Fatalf("%d ledgers, warnings %v", len(ls), warned)
	}
	if calls := fake.Reads() + fake.Writes(); calls > 4 {
		t.Fatalf("%d calls to read 300 ledgers: %v", calls, fake.Calls())
	}
}
