package digest

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentx-dev/agentx/internal/core/artifact"
	"os"
	"runtime"
	"time"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/memindex"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/metrics"
	"github.com/agentx-dev/agentx/internal/core/workpool"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Source is where a digest's input comes from: the ledgers, the event log
// and the memory store. Local reads a workspace on disk (agentx-hook, and
// the Action reading its checkout); a state-branch source (GitHub Mode)
// implements the same three methods over the branch's tree.
type Source interface {
	// Ledgers returns every issue's clarification ledger.
	Ledgers(ctx context.Context) ([]*ledger.Ledger, error)
	// Events returns the event log, oldest first (nil when there is none:
	// the log is local, and the state branch does not carry it).
	Events(ctx context.Context) ([]events.Event, error)
	// Memory returns the memory store's observation times and size, nil
	// when there is no store.
	Memory(ctx context.Context) (*MemoryInput, error)
}

// WeeksSource is a Source that also holds the machines' weekly metrics
// files (the state branch). A Source without it gives the metrics of its
// event log's lines.
type WeeksSource interface {
	Weeks(ctx context.Context) ([]*metrics.Week, error)
}

// ArtifactsSource is a Source that also holds the stage artifact ledgers
// (nil from it: none, no artifact figures).
type ArtifactsSource interface {
	Artifacts(ctx context.Context) ([]*artifact.File, error)
}

// Artifacts reads the workspace's artifact ledgers; nil when it has none.
// One that does not parse is left out (and told to Warn).
func (l *Local) Artifacts(context.Context) ([]*artifact.File, error) {
	files, errs, err := (&artifact.Store{WS: l.WS}).LoadAll()
	if err != nil {
		return nil, err
	}
	for _, e := range errs {
		if l.Warn == nil {
			return nil, e
		}
		l.Warn("%v", e)
	}
	if len(files) == 0 {
		return nil, nil
	}
	return files, nil
}

// Load reads a Source into an Input. agents are the configured agent names.
func Load(ctx context.Context, src Source, agents map[string]bool) (*Input, error) {
	ls, err := src.Ledgers(ctx)
	if err != nil {
		return nil, fmt.Errorf("digest: ledgers: %w", err)
	}
	evs, err := src.Events(ctx)
	if err != nil {
		return nil, fmt.Errorf("digest: event log: %w", err)
	}
	mem, err := src.Memory(ctx)
	if err != nil {
		return nil, fmt.Errorf("digest: memory: %w", err)
	}
	in := &Input{Ledgers: ls, Events: evs, Memory: mem, Agents: agents}
	if as, ok := src.(ArtifactsSource); ok {
		if in.Artifacts, err = as.Artifacts(ctx); err != nil {
			return nil, fmt.Errorf("digest: artifact ledgers: %w", err)
		}
	}
	if ws, ok := src.(WeeksSource); ok {
		if in.Weeks, err = ws.Weeks(ctx); err != nil {
			return nil, fmt.Errorf("digest: weekly metrics: %w", err)
		}
		if in.Weeks == nil {
			in.Weeks = []*metrics.Week{} // none yet: zero figures, not the (absent) event log's
		}
	}
	return in, nil
}

// Local is the Source of a workspace on disk. Reads take no locks: every
// file is replaced atomically, so a reader sees whole files.
type Local struct {
	WS workspace.Workspace
	// Memory is the workspace's memory store (nil: no memory figures).
	Store *memory.Store
	// Events is the workspace's event log (nil: none).
	Log *events.Log
	// Warn receives each ledger that does not parse; it is left out of the
	// report rather than failing it (nil: a corrupt ledger fails the read).
	Warn func(format string, args ...any)
}

// Ledgers reads every ledger file, on all cores: a digest reads every
// issue's ledger, and parsing dominates.
func (l *Local) Ledgers(ctx context.Context) ([]*ledger.Ledger, error) {
	st := &ledger.Store{WS: l.WS}
	issues, err := st.Issues()
	if err != nil {
		return nil, err
	}
	out := make([]*ledger.Ledger, len(issues))
	errs := make([]error, len(issues))
	if err := workpool.Run(ctx, len(issues), runtime.GOMAXPROCS(0), func(i int) {
		out[i], errs[i] = st.Load(issues[i])
	}); err != nil {
		return nil, err
	}
	kept := out[:0]
	for i, ldg := range out {
		switch err := errs[i]; {
		case err == nil:
			kept = append(kept, ldg)
		case l.Warn != nil && errcode.CodeOf(err) == errcode.CorruptState:
			l.Warn("digest leaves out a ledger that does not parse: %v", err)
		default:
			return nil, err
		}
	}
	return kept, nil
}

// Events reads the event log; lines that do not parse are skipped.
func (l *Local) Events(context.Context) ([]events.Event, error) {
	if l.Log == nil {
		return nil, nil
	}
	evs, _, err := l.Log.Read(timeZero)
	return evs, err
}

// Memory reads the observation times from the store's index.
func (l *Local) Memory(ctx context.Context) (*MemoryInput, error) {
	if l.Store == nil {
		return nil, nil
	}
	if _, err := os.Stat(l.Store.Dir); errors.Is(err, os.ErrNotExist) {
		return &MemoryInput{Times: []int64{}}, nil
	}
	m := &MemoryInput{}
	if err := l.Store.Census(ctx, func(d memindex.Doc) {
		m.Times = append(m.Times, d.Time)
		m.Tokens += d.Tokens
	}); err != nil {
		return nil, err
	}
	return m, nil
}

var timeZero = time.Time{}
