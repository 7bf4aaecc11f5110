package sync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/router"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Monitor runs the core monitor (stale, stuck, deadlock) on the checkout
// and commits every ledger it changed back to the repository, so the
// escalations it made are in the ledger and, after the sync that follows,
// on the issue. The action never runs agents: no responder is wired, so a
// stale record is marked and, at its second timeout, escalated.
type Monitor struct {
	GH         *Client
	WS         workspace.Workspace
	Config     *config.Set
	Clock      clock.Clock
	RepoPrefix string
	Branch     string
	DryRun     bool
	Warn       func(format string, args ...any)

	// Changed lists the issues whose ledgers the check changed.
	Changed []int
}

// Run checks and commits.
func (m *Monitor) Run(ctx context.Context) error {
	store := &ledger.Store{WS: m.WS, Locks: lock.New(lock.Options{Clock: m.Clock})}
	issues, err := store.Issues()
	if err != nil {
		return err
	}
	before := map[int][]byte{}
	for _, n := range issues {
		if data, err := os.ReadFile(m.WS.LedgerFile(n)); err == nil {
			before[n] = data
		}
	}
	if err := m.check(ctx, m.WS); err != nil {
		return err
	}
	for _, n := range issues {
		after, err := os.ReadFile(m.WS.LedgerFile(n))
		if err != nil || bytes.Equal(after, before[n]) {
			continue
		}
		m.Changed = append(m.Changed, n)
		if m.DryRun {
			continue
		}
		orig := before[n]
		committed := after
		_, err = commitFile(ctx, m.GH, LedgerPath(m.RepoPrefix, n), m.Branch, fmt.Sprintf("agentx: monitor check of issue #%d [skip ci]", n),
			func(current []byte) ([]byte, error) {
				if bytes.Equal(current, orig) {
					return after, nil
				}
				// The ledger moved on since the checkout (an ingest landed):
				// check the fresh ledger instead of overwriting it.
				next, err := m.checkOne(ctx, n, current)
				switch {
				case err == nil:
					committed = next
				case errors.Is(err, errNoChange):
					committed = current
				}
				return next, err
			})
		if err != nil {
			return err
		}
		// The sync that follows mirrors the checkout: give it what landed.
		if !bytes.Equal(committed, after) && committed != nil {
			if err := mirrorLedger(ctx, store, n, committed); err != nil {
				return err
			}
		}
	}
	return nil
}

// mirrorLedger puts data in the checkout as issue's ledger, atomically and
// under the ledger's lock like every state write.
func mirrorLedger(ctx context.Context, store *ledger.Store, issue int, data []byte) error {
	path := store.WS.LedgerFile(issue)
	return jsonfile.WithLock(ctx, store.Locks, path, func(lk *lock.Lock) error {
		return jsonfile.WriteAtomic(path, data, jsonfile.WriteOptions{Commit: lk.Commit, NoSync: store.NoSync})
	})
}

func (m *Monitor) check(ctx context.Context, ws workspace.Workspace) error {
	locks := lock.New(lock.Options{Clock: m.Clock})
	cfg := m.Config
	if cfg == nil {
		cfg = &config.Set{}
	}
	rt := &router.Router{WS: ws, Ledgers: &ledger.Store{WS: ws, Locks: locks}, Locks: locks, Config: cfg, Clock: m.Clock}
	mon := monitor.New(rt)
	mon.Scanner.NoIndex = true // a fresh checkout every run: an index would never be reused
	rep, err := mon.Check(ctx)
	if err != nil {
		return err
	}
	for _, w := range rep.Warnings {
		if m.Warn != nil {
			m.Warn("monitor: %v", w)
		}
	}
	return nil
}

// checkOne runs the check on one fresh ledger in a scratch workspace and
// returns the resulting file (errNoChange when the check changed nothing).
func (m *Monitor) checkOne(ctx context.Context, issue int, current []byte) ([]byte, error) {
	if current == nil {
		return nil, errNoChange // deleted upstream: nothing to check
	}
	dir, err := os.MkdirTemp("", "agentx-monitor-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	ws := workspace.Workspace{Root: dir}
	file := ws.LedgerFile(issue)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(file, current, 0o644); err != nil {
		return nil, err
	}
	if err := m.check(ctx, ws); err != nil {
		return nil, err
	}
	next, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(next, current) {
		return nil, errNoChange
	}
	return next, nil
}
