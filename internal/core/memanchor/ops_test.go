package memanchor

import "testing"

// TestIsOp holds IsOp (Ops is a slice since issue 35: a map literal is
// built at every process start) to the operations the map held.
func TestIsOp(t *testing.T) {
	for _, op := range []string{"memory.capture", "memory.add", "memory.compact", "memory.remove",
		"memory.archive", "memory.restore", "memory.import", "sync.merge"} {
		if !IsOp(op) {
			t.Errorf("IsOp(%q) = false", op)
		}
	}
	if len(Ops) != 8 {
		t.Errorf("Ops = %v, want the 8 above", Ops)
	}
	for _, op := range []string{"", RestoreOp, CreateOp, "memory.search", "clarify.request"} {
		if IsOp(op) {
			t.Errorf("IsOp(%q) = true", op)
		}
	}
}
