package hookcmd

import (
	"strings"
	"testing"
)

// TestVerifyAfterMerge: two branches that both worked on one issue (one
// resolved a record while the other answered it, both allocated
// CLR-42-002, both added observations and audit lines) merge cleanly with
// the merge driver and the audit trail's union merge, and verify finds
// nothing wrong once the local manifest is rebuilt: the merged trail's
// chain holds, the answer merged after the resolution is information.
func TestVerifyAfterMerge(t *testing.T) {
	t.Parallel()
	r := divergedRepo(t)
	r.run("git", "merge", "-q", "--no-edit", "feature")
	if out, err := r.try("agentx-hook", "verify", "--repair"); err != nil && !strings.Contains(out, "repaired") {
		t.Fatalf("verify --repair: %v\n%s", err, out)
	}
	out := r.run("agentx-hook", "verify")
	if !strings.Contains(out, "verify: ok") || strings.Contains(out, "AUDIT_") {
		t.Fatalf("verify after the merge:\n%s", out)
	}
	if !strings.Contains(out, "info  ENTRY_AFTER_FINAL") {
		t.Errorf("the answer merged after the resolution is not reported:\n%s", out)
	}
	hist := r.run("agentx-hook", "audit", "--issue", "42")
	for _, op := range []string{"clarify.request", "clarify.resolve", "clarify.answer", "memory.add"} {
		if !strings.Contains(hist, op) {
			t.Errorf("merged trail lacks %s:\n%s", op, hist)
		}
	}
}
