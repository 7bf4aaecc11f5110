package retention

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// The hooks' retention fails open: an off policy touches nothing, a state
// file that cannot be written is a warning, never an error.
func TestHooksFailOpen(t *testing.T) {
	t.Parallel()
	st, _, dir := newStore(t)
	var warns []string
	warn := func(format string, args ...any) { warns = append(warns, fmt.Sprintf(format, args...)) }
	ctx := context.Background()
	off := &Hooks{Store: nil, Warn: warn} // a nil store: an off policy must not reach it
	off.Slice(ctx)
	h := &Hooks{Store: st, Now: t0, StateFile: dir, Warn: warn, // a directory: the state cannot be written
		Policy: Policy{ArchiveAfter: 24 * time.Hour}}
	h.Alerts(ctx)
	if len(warns) != 1 {
		t.Fatalf("warnings = %q, want one for the state file", warns)
	}
	h.StateFile = filepath.Join(dir, "retention.json")
	if got := h.Alerts(ctx); got == nil {
		t.Fatal("the first look of the day returned nothing")
	}
}
