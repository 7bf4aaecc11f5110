package retention

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agentx-dev/agentx/internal/core/memory"
)

// Hooks is retention as the hooks run it, failing open: one slice at each
// `hook finish`, the daily size alerts at `hook start`. What goes wrong is
// a warning, none once the hook's deadline has passed (the hook's own
// warning names the step then).
type Hooks struct {
	Store     *memory.Store
	Policy    Policy // the zero policy (a config that does not load) is off
	Now       time.Time
	StateFile string
	// OldStateFile is where an earlier agentx kept the state ("": none):
	// moved to StateFile when that is missing.
	OldStateFile string
	Warn         func(format string, args ...any)
	// Changed is told of a slice that changed an issue file, for its
	// metrics line.
	Changed func(ctx context.Context, r Result)
}

// Slice is `hook finish`'s step: the policy on one issue file.
func (h *Hooks) Slice(ctx context.Context) {
	if h.Policy.Off() {
		return
	}
	h.migrate()
	res, _, err := Slice(ctx, h.Store, h.Policy, h.Now, h.StateFile)
	if err != nil && ctx.Err() == nil {
		h.Warn("agentx hook finish: memory retention on issue #%d: %v", res.Issue, err)
	}
	if err == nil && res.Changed() && h.Changed != nil {
		h.Changed(ctx, res)
	}
}

// Alerts is `hook start`'s daily look at the store's size.
func (h *Hooks) Alerts(ctx context.Context) []string {
	h.migrate()
	warnings, err := DueAlerts(ctx, h.Store, h.Now, h.StateFile)
	if err != nil && ctx.Err() == nil {
		h.Warn("agentx hook start: memory alerts: %v", err)
	}
	return warnings
}

// migrate moves the state of the old layout (in the memory directory,
// where writing it at every hook finish changed the stat the search's
// freshness gate keys on) to StateFile, once. One failed stat when done.
func (h *Hooks) migrate() {
	if h.OldStateFile == "" {
		return
	}
	if _, err := os.Lstat(h.StateFile); !errors.Is(err, fs.ErrNotExist) {
		return
	}
	if _, err := os.Lstat(h.OldStateFile); err != nil {
		return
	}
	_ = os.Mkdir(filepath.Dir(h.StateFile), 0o755)
	_ = os.Rename(h.OldStateFile, h.StateFile) // bookkeeping: lost, it is rebuilt by use
}
