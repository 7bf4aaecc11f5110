package statemerge

import (
	"testing"

	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// Two clones delivered the same answer (issue 34): the merge keeps one
// receipt, the earlier, whichever side is ours; one side's receipt alone
// is kept as it is.
func TestMergeKeepsTheFirstDelivery(t *testing.T) {
	t.Parallel()
	base := answer(req("CLR-42-001", 0, "q?"), 1, "a.")
	withReceipt := func(at int, session string) ledger.Record {
		r := clone(base)
		r.Thread = append([]ledger.Entry(nil), base.Thread...)
		r.Thread[1].SetReceipt(ledger.Receipt{At: ts(at), Session: session, Host: "claude"})
		return r
	}
	early, late := withReceipt(2, "s-early"), withReceipt(5, "s-late")
	for _, sides := range [][2]ledger.Record{{early, late}, {late, early}} {
		got, _, err := MergeFile(ledgerPath, file(t, base), file(t, sides[0]), file(t, sides[1]))
		if err != nil {
			t.Fatal(err)
		}
		rc, ok := find(t, decode(t, got), "CLR-42-001").Thread[1].Receipt()
		if !ok || rc.Session != "s-early" {
			t.Errorf("receipt %+v %v, want s-early's", rc, ok)
		}
	}
	got, _, err := MergeFile(ledgerPath, file(t, base), file(t, base), file(t, late))
	if err != nil {
		t.Fatal(err)
	}
	if rc, ok := find(t, decode(t, got), "CLR-42-001").Thread[1].Receipt(); !ok || rc.Session != "s-late" {
		t.Errorf("one side's receipt: %+v %v", rc, ok)
	}
}
