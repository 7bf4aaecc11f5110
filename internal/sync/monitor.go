package sync

import (
	"bytes"
	"context"
	"fmt"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/protocol"
)

// Monitor runs the core monitor (stale, stuck, deadlock) over the
// ledgers of the state branch, in memory through the protocol core, and
// commits every ledger it changed back in one commit, so the escalations
// it made are in the ledger and, after the sync that follows, on the
// issue. The action never runs agents: no responder is wired, so a stale
// record is marked and, at its second timeout, escalated.
type Monitor struct {
	State  *StateBranch
	Config *config.Set
	Clock  clock.Clock
	DryRun bool
	Warn   func(format string, args ...any)
	// Start is the branch as this run already read it (nil: read it);
	// Cache the sync state read from it (nil: every ledger is read).
	// With both, a ledger whose blob is the one the cache recorded and
	// whose SLA has not passed is not read (monitorcache.go).
	Start *StateSnapshot
	Cache *State

	// Changed lists the issues whose ledgers the check changed; Read
	// counts the ledgers read, Skipped those the cache vouched for.
	Changed []int
	Read    int
	Skipped int
	// Learned is what the check learned of the ledgers it read, by issue,
	// for the sync state (a state written before it recorded watches):
	// Syncer.Learned takes it.
	Learned map[int]BlobWatch
}

// Run checks and commits, and returns the branch as it stands after,
// for the sync that follows. When another run moved the branch first
// (an ingest landed), the check is made again on the fresh ledgers, never
// written over them.
func (m *Monitor) Run(ctx context.Context) (*StateSnapshot, error) {
	start := m.Start
	if start != nil && start.Partial {
		issues, paths := branchLedgers(start)
		if pick, _, _ := monitorPick(start, issues, paths, m.Cache, m.Clock.Now()); len(pick) > 0 {
			start = nil // it will write: on the branch read in full
		}
	}
	_, snap, err := m.State.UpdateFrom(ctx, start, "agentx: monitor check [skip ci]", func(ctx context.Context, snap *StateSnapshot, read func(string) ([]byte, error)) (map[string][]byte, error) {
		m.Changed = nil
		ledgers, before, err := m.load(ctx, snap)
		if err != nil {
			return nil, err
		}
		changed, steps := m.check(ledgers)
		changes := map[string][]byte{}
		for _, l := range ledgers {
			n := l.IssueNumber
			if !changed[n] {
				continue
			}
			after, err := jsonfile.Marshal(l)
			if err != nil {
				return nil, fmt.Errorf("encode ledger of issue #%d: %w", n, err)
			}
			if !bytes.Equal(after, before[n]) {
				m.Changed = append(m.Changed, n)
				changes[BranchLedgerPath(n)] = after
			}
		}
		if m.DryRun || len(changes) == 0 {
			return nil, errNoChange
		}
		if err := appendAudit(read, changes, m.Clock, monitorAudit(ledgers, before, steps)); err != nil {
			return nil, err
		}
		return changes, nil
	})
	return snap, err
}

// load reads the ledgers the check needs: those the cache cannot vouch
// for, those due, and those whose waits lie on a wait cycle through a
// changed one.
func (m *Monitor) load(ctx context.Context, snap *StateSnapshot) ([]*ledger.Ledger, map[int][]byte, error) {
	issues, paths := branchLedgers(snap)
	pick, fresh, waiting := monitorPick(snap, issues, paths, m.Cache, m.Clock.Now())
	before := map[int][]byte{}
	m.Learned = map[int]BlobWatch{}
	ledgers := make([]*ledger.Ledger, 0, len(pick))
	var freshWaits, readWaits [][2]string
	readOne := func(i int) error {
		l, data, err := m.State.readLedger(ctx, snap, issues[i], paths[i])
		if errcode.CodeOf(err) == errcode.CorruptState {
			m.warn("monitor: %v", err) // skipped, never taken for an empty ledger
			return nil
		}
		if err != nil {
			return err
		}
		before[issues[i]] = data
		ledgers = append(ledgers, l)
		m.Learned[issues[i]] = BlobWatch{Blob: snap.Blobs[paths[i]], Watch: watchOf(l)}
		if fresh[i] {
			freshWaits = append(freshWaits, watchOf(l).Waits...)
		} else {
			readWaits = append(readWaits, watchOf(l).Waits...)
		}
		return nil
	}
	for _, i := range pick {
		if err := readOne(i); err != nil {
			return nil, nil, err
		}
	}
	if len(freshWaits) > 0 && len(waiting) > 0 {
		others := readWaits // a cycle may pass through a ledger read for being due
		for _, i := range waiting {
			is, _ := m.Cache.Get(issues[i])
			others = append(others, is.Watch.Waits...)
		}
		cycle := onCycles(freshWaits, others)
		for _, i := range waiting {
			is, _ := m.Cache.Get(issues[i])
			for _, e := range is.Watch.Waits {
				if cycle[e[0]] && cycle[e[1]] {
					if err := readOne(i); err != nil {
						return nil, nil, err
					}
					break
				}
			}
		}
	}
	m.Read = len(before)
	m.Skipped = len(issues) - m.Read
	return ledgers, before, nil
}

// check plans the monitor's actions over ledgers and applies them in
// memory; it returns the issues whose ledgers changed, and the steps.
func (m *Monitor) check(ledgers []*ledger.Ledger) (map[int]bool, []monitor.Step) {
	cfg := m.Config
	if cfg == nil {
		cfg = &config.Set{}
	}
	now := m.Clock.Now()
	plan := monitor.PlanFor(ledgers, now, cfg.Priority())
	steps := plan.Steps()
	changed, failures := monitor.ApplySteps(ledgers, steps, protocol.Env{Now: now, Config: cfg})
	for _, err := range failures {
		m.warn("monitor: %v", err)
	}
	out := make(map[int]bool, len(changed))
	for _, n := range changed {
		out[n] = true
	}
	return out, steps
}

func (m *Monitor) warn(format string, args ...any) {
	if m.Warn != nil {
		m.Warn(format, args...)
	}
}
