package sync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Monitor runs the core monitor (stale, stuck, deadlock) over the
// ledgers of the checkout, in memory through the protocol core, and
// commits every ledger it changed back to the repository, so the
// escalations it made are in the ledger and, after the sync that follows,
// on the issue. The action never runs agents: no responder is wired, so a
// stale record is marked and, at its second timeout, escalated.
type Monitor struct {
	GH *Client
	WS workspace.Workspace
	// Locks is the process's lock manager (default: a new one).
	Locks      *lock.Locker
	Config     *config.Set
	Clock      clock.Clock
	RepoPrefix string
	Branch     string
	DryRun     bool
	Warn       func(format string, args ...any)

	// Changed lists the issues whose ledgers the check changed.
	Changed []int
}

// Run checks and commits. The checkout is left holding what landed, for
// the sync that follows.
func (m *Monitor) Run(ctx context.Context) error {
	locks := m.Locks
	if locks == nil {
		locks = lock.New(lock.Options{Clock: m.Clock})
	}
	store := &ledger.Store{WS: m.WS, Locks: locks}
	issues, err := store.Issues()
	if err != nil {
		return err
	}
	before := map[int][]byte{}
	var ledgers []*ledger.Ledger
	var files []int // the issue of each ledger's file, as ledgers
	for _, n := range issues {
		path := m.WS.LedgerFile(n)
		data, err := os.ReadFile(path)
		if err != nil {
			m.warn("monitor: read ledger %s: %v", path, err)
			continue
		}
		l, err := ledger.Parse(path, data, n)
		if err != nil {
			m.warn("monitor: %v", err) // skipped, never taken for an empty ledger
			continue
		}
		before[n] = data
		ledgers = append(ledgers, l)
		files = append(files, n)
	}
	changed := m.check(ledgers)
	for i, l := range ledgers {
		n := files[i]
		if !changed[l.IssueNumber] {
			continue
		}
		after, err := jsonfile.Marshal(l)
		if err != nil {
			return fmt.Errorf("encode ledger of issue #%d: %w", n, err)
		}
		if bytes.Equal(after, before[n]) {
			continue
		}
		m.Changed = append(m.Changed, n)
		if err := mirrorLedger(ctx, store, n, after); err != nil {
			return err
		}
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
				next, err := m.checkOne(n, current)
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
	return atomicfile.WithLock(ctx, store.Locks, path, func(lk *lock.Lock) error {
		return atomicfile.Write(path, data, atomicfile.Options{Commit: lk.Commit, NoSync: store.NoSync})
	})
}

// check plans the monitor's actions over ledgers and applies them in
// memory; it returns the issues whose ledgers changed.
func (m *Monitor) check(ledgers []*ledger.Ledger) map[int]bool {
	cfg := m.Config
	if cfg == nil {
		cfg = &config.Set{}
	}
	now := m.Clock.Now()
	plan := monitor.PlanFor(ledgers, now, cfg.Priority())
	changed, failures := monitor.ApplySteps(ledgers, plan.Steps(), protocol.Env{Now: now, Config: cfg})
	for _, err := range failures {
		m.warn("monitor: %v", err)
	}
	out := make(map[int]bool, len(changed))
	for _, n := range changed {
		out[n] = true
	}
	return out
}

func (m *Monitor) warn(format string, args ...any) {
	if m.Warn != nil {
		m.Warn(format, args...)
	}
}

// checkOne runs the check on one fresh ledger and returns the resulting
// file (errNoChange when the check changed nothing).
func (m *Monitor) checkOne(issue int, current []byte) ([]byte, error) {
	if current == nil {
		return nil, errNoChange // deleted upstream: nothing to check
	}
	l, err := ledger.Parse(LedgerPath(m.RepoPrefix, issue), current, issue)
	if err != nil {
		m.warn("monitor: %v", err)
		return nil, errNoChange
	}
	if !m.check([]*ledger.Ledger{l})[issue] {
		return nil, errNoChange
	}
	next, err := jsonfile.Marshal(l)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(next, current) {
		return nil, errNoChange
	}
	return next, nil
}
