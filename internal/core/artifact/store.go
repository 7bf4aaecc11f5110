package artifact

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/workpool"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Store reads and writes the artifact ledgers of one workspace.
type Store struct {
	WS    workspace.Workspace
	Locks *lock.Locker
	// NoSync skips fsync (benchmarks and synthetic workspaces only).
	NoSync bool
	// NoIndex makes Scan read every ledger and write no index (tests,
	// benchmarks of the reads themselves).
	NoIndex bool
	// Now is the wall clock of Scan's racy check (file times are wall
	// times, whatever clock the protocol runs on). Default time.Now.
	Now func() time.Time
}

// Parse decodes a ledger file's content; path is for error messages. A
// file that does not parse is CORRUPT_STATE naming it, never read as
// empty (the next write would lose it).
func Parse(path string, data []byte, issue int) (*File, error) {
	f := &File{}
	if err := jsonfile.Unmarshal(path, data, f); err != nil {
		return nil, err
	}
	if f.IssueNumber == 0 {
		f.IssueNumber = issue
	}
	return f, nil
}

// Load reads the ledger of issue without locking (every writer replaces
// the file atomically). A missing file is an empty ledger.
func (s *Store) Load(issue int) (*File, error) {
	path := s.WS.ArtifactFile(issue)
	data, err := atomicfile.ReadRegular(path, atomicfile.StateLimit)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &File{IssueNumber: issue}, nil
		}
		return nil, fmt.Errorf("read artifact ledger %s: %w", path, err)
	}
	return Parse(path, data, issue)
}

// Issues lists the issues that have an artifact ledger, ascending.
func (s *Store) Issues() ([]int, error) {
	issues, err := workspace.IssueFiles(s.WS.ArtifactsDir(), workspace.LedgerIssue)
	if err != nil {
		return nil, fmt.Errorf("list artifact ledgers: %w", err)
	}
	return issues, nil
}

// LoadAll reads every ledger, several at a time (500 issues' ledgers are
// read and decoded by `ready` and the monitor). A file that does not
// parse is skipped and its error returned in errs, so one bad file hides
// nothing else.
func (s *Store) LoadAll() (files []*File, errs []error, err error) {
	issues, err := s.Issues()
	if err != nil {
		return nil, nil, err
	}
	loaded := make([]*File, len(issues))
	failed := make([]error, len(issues))
	workers := 1
	if len(issues) >= 64 {
		workers = 4
	}
	_ = workpool.Run(context.Background(), len(issues), workers, func(i int) {
		loaded[i], failed[i] = s.Load(issues[i])
	})
	for i := range issues {
		if failed[i] != nil {
			errs = append(errs, failed[i])
			continue
		}
		files = append(files, loaded[i])
	}
	return files, errs, nil
}

// Update runs fn on the ledger of issue under its lock and writes the
// result atomically; an error from fn aborts without writing. fn returns
// whether it changed anything: an unchanged ledger is not rewritten.
func (s *Store) Update(ctx context.Context, issue int, fn func(*File) (bool, error)) (*File, error) {
	path := s.WS.ArtifactFile(issue)
	var out *File
	if err := os.MkdirAll(s.WS.ArtifactsDir(), 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", s.WS.ArtifactsDir(), err)
	}
	err := atomicfile.WithLock(ctx, s.Locks, path, func(lk *lock.Lock) error {
		f, err := s.Load(issue)
		if err != nil {
			return err
		}
		changed, err := fn(f)
		if err != nil {
			return err
		}
		out = f
		if !changed {
			return nil
		}
		f.sortArtifacts()
		if f.Artifacts == nil {
			f.Artifacts = []Artifact{}
		}
		data, err := jsonfile.Marshal(f)
		if err != nil {
			return fmt.Errorf("encode artifact ledger %s: %w", path, err)
		}
		return atomicfile.Write(path, data, atomicfile.Options{Commit: lk.Commit, NoSync: s.NoSync})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
