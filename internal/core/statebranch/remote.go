package statebranch

import (
	"context"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/gitstore"
)

// theirs is the state branch's tip and files as the remote-tracking ref
// has them, fetched first when fetch is set.
func (s *syncer) theirs(ctx context.Context, fetch bool) (gitstore.Hash, map[string]gitstore.Entry, error) {
	if fetch {
		if err := s.fetch(ctx); err != nil {
			return gitstore.ZeroHash, nil, err
		}
	}
	tip, err := s.r.Ref(s.tracking())
	if err != nil {
		return gitstore.ZeroHash, nil, err
	}
	files, err := s.treeFiles(tip)
	if err != nil {
		return gitstore.ZeroHash, nil, err
	}
	return tip, files, nil
}

// fetch brings the remote's state branch into the tracking ref.
func (s *syncer) fetch(ctx context.Context) error {
	if removed, err := s.r.ClearStaleRefLock(s.tracking()); err != nil {
		return err
	} else if removed {
		s.noteClearedLock()
	}
	start := time.Now()
	exists, err := s.opt.Transport.Fetch(ctx, s.opt.Remote, s.opt.Branch, s.tracking())
	if err != nil && refLocked(err) && s.awaitRefLock(ctx) {
		// Another git (the one a killed sync left running, or the
		// user's) held the tracking ref: it finished, or its lock
		// went stale and was removed. Once more.
		exists, err = s.opt.Transport.Fetch(ctx, s.opt.Remote, s.opt.Branch, s.tracking())
	}
	s.res.Fetches++
	s.res.FetchMillis += millis(time.Since(start))
	if err != nil {
		return err
	}
	s.res.RemoteExists = exists
	if !exists {
		// The remote has no branch: a tracking ref left from before
		// (not pruned) is stale, and read as the remote it would hide
		// the deletion (its tip is the base: nothing said, nothing
		// pushed back).
		if err := s.r.RemoveRef(s.tracking()); err != nil {
			return err
		}
	}
	return nil
}

func (s *syncer) noteClearedLock() {
	s.res.Notes = append(s.res.Notes, "removed "+s.tracking()+".lock, left by a git that was killed (no process held it): fetches work again")
}

// refLocked reports a fetch refused because the tracking ref's lock
// existed.
func refLocked(err error) bool {
	m := err.Error()
	return strings.Contains(m, "cannot lock ref") || strings.Contains(m, ".lock': File exists")
}

// awaitRefLock waits, within ctx and at most refLockPatience, until the
// tracking ref's lock is gone or stale (then removes it); it reports
// whether the ref is free.
func (s *syncer) awaitRefLock(ctx context.Context) bool {
	deadline := time.Now().Add(refLockPatience)
	for {
		removed, err := s.r.ClearStaleRefLock(s.tracking())
		if err != nil {
			return false
		}
		if removed {
			s.noteClearedLock()
			return true
		}
		if !s.r.RefLocked(s.tracking()) {
			return true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// push offers commit as the state branch's new tip.
func (s *syncer) push(ctx context.Context, commit gitstore.Hash) error {
	start := time.Now()
	err := s.opt.Transport.Push(ctx, s.opt.Remote, s.opt.Branch, commit.String())
	s.res.PushMillis += millis(time.Since(start))
	return err
}
