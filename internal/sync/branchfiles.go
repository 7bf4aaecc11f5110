package sync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/digest"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/metrics"
	"github.com/agentx-dev/agentx/internal/core/statebranch"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// The state branch's tree holds paths relative to `.agentx/` (the layout
// the local side, internal/core/statebranch, shares), plus the sync state,
// which only the action reads and which the local side leaves alone.

// SyncStatePath is the sync state's path on the state branch. It is not a
// state path for the local side (statebranch.IsStatePath): a local sync
// neither writes it to disk nor removes it from the branch.
const SyncStatePath = "sync/state.json"

const ledgerDir = "state/clarifications/"

// BranchLedgerPath is issue's ledger on the state branch.
func BranchLedgerPath(issue int) string { return ledgerDir + "issue-" + strconv.Itoa(issue) + ".json" }

// branchLedgers returns the issues whose ledgers snap holds, ascending by
// path, with their paths.
func branchLedgers(snap *StateSnapshot) (issues []int, paths []string) {
	for _, p := range snap.Paths(ledgerDir) {
		n, ok := workspace.LedgerIssue(strings.TrimPrefix(p, ledgerDir))
		if !ok || path.Dir(p)+"/" != ledgerDir {
			continue
		}
		issues = append(issues, n)
		paths = append(paths, p)
	}
	return issues, paths
}

// readLedger reads and parses issue's ledger at p in snap.
func (b *StateBranch) readLedger(ctx context.Context, snap *StateSnapshot, issue int, p string) (*ledger.Ledger, []byte, error) {
	data, err := b.ReadFile(ctx, snap, p)
	if err != nil {
		return nil, nil, err
	}
	l, err := ledger.Parse(b.Branch+":"+p, data, issue)
	return l, data, err
}

// Seed starts a missing state branch from the state files a checkout
// holds under root/.agentx (GitHub Mode before the state branch kept them
// on the default branch), in one commit, with the old sync state moved to
// SyncStatePath so existing comments are recognised by their markers and
// not posted again. It does nothing when the branch exists or the checkout
// holds no state; when another run created the branch first, it returns
// the branch as that run left it. It returns the files seeded.
func Seed(ctx context.Context, b *StateBranch, snap *StateSnapshot, root string) (*StateSnapshot, int, error) {
	if snap.Commit != "" || root == "" {
		return snap, 0, nil
	}
	files, err := checkoutState(filepath.Join(root, workspace.Dir))
	if err != nil || len(files) == 0 {
		return snap, 0, err
	}
	seeded := len(files)
	// The branch starts its trail with what it was seeded with.
	none := func(string) ([]byte, error) { return nil, nil }
	if err := appendAudit(none, files, nil, seedAudit(files)); err != nil {
		return nil, 0, err
	}
	next, err := b.Commit(ctx, snap, files, "agentx: seed the state branch from the checkout's .agentx [skip ci]")
	if errors.Is(err, ErrConflict) {
		fresh, rerr := b.Read(ctx)
		return fresh, 0, rerr
	}
	if err != nil {
		return nil, 0, fmt.Errorf("seed %s: %w", b.Branch, err)
	}
	return next, seeded, nil
}

// legacyStateFile is where the sync state lived before the state branch,
// relative to .agentx/.
const legacyStateFile = "state/github-sync.json"

// checkoutState reads the state files under dir (an .agentx directory).
func checkoutState(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		target := rel
		switch {
		case rel == legacyStateFile:
			target = SyncStatePath
		case !statebranch.IsStatePath(rel):
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[target] = data
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the checkout's state: %w", err)
	}
	return files, nil
}

// BranchSource is the weekly digest's input read from the state branch:
// the ledgers, the artifact ledgers, the memory issue files and the
// machines' weekly metrics files. The event log is local to each machine and never on the branch,
// so Events is nil.
type BranchSource struct {
	State *StateBranch
	// Warn receives each ledger or memory file that does not parse; it is
	// left out of the report (nil: a corrupt ledger fails the read).
	Warn func(format string, args ...any)
	// MetricsSince bounds the weekly metrics files read (one blob each):
	// only weeks starting at or after it (zero: all).
	MetricsSince time.Time

	snap *StateSnapshot
}

func (s *BranchSource) read(ctx context.Context) (*StateSnapshot, error) {
	if s.snap == nil {
		snap, err := s.State.Read(ctx)
		if err != nil {
			return nil, err
		}
		s.snap = snap
		// Every ledger, memory and metrics file is read: in one archive
		// rather than one call each (1,007 calls at 1,000 ledgers).
		s.State.Prefetch(ctx, snap, s.Warn, nil)
	}
	return s.snap, nil
}

// Ledgers reads every ledger on the branch.
func (s *BranchSource) Ledgers(ctx context.Context) ([]*ledger.Ledger, error) {
	snap, err := s.read(ctx)
	if err != nil {
		return nil, err
	}
	issues, paths := branchLedgers(snap)
	out := make([]*ledger.Ledger, 0, len(issues))
	for i, n := range issues {
		l, _, err := s.State.readLedger(ctx, snap, n, paths[i])
		switch {
		case err == nil:
			out = append(out, l)
		case s.Warn != nil && errcode.CodeOf(err) == errcode.CorruptState:
			s.Warn("digest leaves out a ledger that does not parse: %v", err)
		default:
			return nil, err
		}
	}
	return out, nil
}

// Artifacts reads every artifact ledger on the branch (nil: none, no
// artifact figures); one that does not parse is left out with a warning.
func (s *BranchSource) Artifacts(ctx context.Context) ([]*artifact.File, error) {
	snap, err := s.read(ctx)
	if err != nil {
		return nil, err
	}
	issues, paths := branchArtifacts(snap)
	var out []*artifact.File
	for i, n := range issues {
		data, err := s.State.ReadFile(ctx, snap, paths[i])
		if err != nil {
			return nil, err
		}
		f, err := artifact.Parse(s.State.Branch+":"+paths[i], data, n)
		if err != nil {
			if s.Warn == nil {
				return nil, err
			}
			s.Warn("digest leaves out an artifact ledger that does not parse: %v", err)
			continue
		}
		out = append(out, f)
	}
	return out, nil
}

// Events is nil: the event log is not on the state branch.
func (s *BranchSource) Events(context.Context) ([]events.Event, error) { return nil, nil }

// Memory reads the observation times of every memory issue file.
func (s *BranchSource) Memory(ctx context.Context) (*digest.MemoryInput, error) {
	snap, err := s.read(ctx)
	if err != nil {
		return nil, err
	}
	m := &digest.MemoryInput{Times: []int64{}}
	for _, p := range snap.Paths("memory/") {
		if path.Dir(p) != "memory" || !statebranch.IsStatePath(p) {
			continue // the archive holds compacted originals, not the store
		}
		data, err := s.State.ReadFile(ctx, snap, p)
		if err != nil {
			return nil, err
		}
		f, err := memory.ParseIssueFile(s.State.Branch+":"+p, data)
		if err != nil {
			if s.Warn == nil {
				return nil, err
			}
			s.Warn("digest leaves out a memory file that does not parse: %v", err)
			continue
		}
		for _, o := range f.Observations {
			var ms int64
			if t, err := clock.Parse(o.Timestamp); err == nil {
				ms = t.UnixMilli()
			}
			m.Times = append(m.Times, ms)
			m.Tokens += o.Tokens
		}
	}
	return m, nil
}

// Weeks reads the weekly metrics files of the weeks from MetricsSince on,
// every machine's; one that does not parse is left out with a warning.
func (s *BranchSource) Weeks(ctx context.Context) ([]*metrics.Week, error) {
	snap, err := s.read(ctx)
	if err != nil {
		return nil, err
	}
	from := ""
	if !s.MetricsSince.IsZero() {
		from = metrics.ISOWeek(metrics.WeekStart(s.MetricsSince.Add(7*24*time.Hour - time.Nanosecond)))
	}
	var out []*metrics.Week
	for _, p := range snap.Paths(metrics.Dir + "/") {
		writer, week, ok := metrics.ParseFileName(path.Base(p))
		if !ok || path.Dir(p) != metrics.Dir || week < from {
			continue
		}
		data, err := s.State.ReadFile(ctx, snap, p)
		if err != nil {
			return nil, err
		}
		w, err := metrics.ParseWeek(data)
		if err == nil && (w.Writer != writer || w.Week != week) {
			err = fmt.Errorf("names %s %s", w.Writer, w.Week)
		}
		if err != nil {
			if s.Warn != nil {
				s.Warn("digest leaves out a metrics file that does not parse: %s: %v", p, err)
			}
			continue
		}
		out = append(out, w)
	}
	return out, nil
}

func isCorrupt(err error) bool { return errcode.CodeOf(err) == errcode.CorruptState }
