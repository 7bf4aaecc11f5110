package memory

import (
	"context"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/tombstone"
)

// Compact is the hook compaction uses: plan receives the issue's
// observations and returns those to keep (new ones such as a
// compaction-summary included, IDs filled in like Store) and the originals
// to archive. The archived originals are added to
// archive/issue-N-archived.json before the issue file is rewritten, so a
// crash in between leaves a copy in both places and never loses one.
func (s *Store) Compact(ctx context.Context, issue int, plan func(obs []Observation) (keep, archive []Observation, err error)) (kept []Observation, archived int, err error) {
	cur, err := s.readIssue(issue)
	if err != nil {
		return nil, 0, err
	}
	keep, arch, err := plan(append([]Observation(nil), cur.Observations...))
	if err != nil {
		return nil, 0, err
	}
	hold := s.holdFresh()
	if err := s.archive(ctx, issue, arch); err != nil {
		return nil, 0, err
	}
	c := compaction{issue: issue, planned: idSet(cur.Observations), keep: keep, gone: idSet(arch)}
	stale := false
	marker, err := s.updateIssue(ctx, issue, func(f *IssueFile) (bool, error) {
		var err error
		kept, stale, err = c.apply(f.Observations, s.now())
		if stale || err != nil {
			return false, err
		}
		f.Observations = kept
		var dead []tombstone.Tombstone
		for _, o := range arch {
			dead = append(dead, s.tombstoneOf(o, "compacted", summaryOf(kept, o.ID)))
		}
		return true, s.bury(f, dead...)
	}, func() (audit.Entry, bool) { return s.compactedEntry(issue, arch, kept), true })
	if err != nil {
		return nil, 0, err
	}
	if stale {
		return kept, 0, nil
	}
	// The line before the marker goes, as Remove's.
	s.auditCompacted(ctx, issue, arch, kept)
	if err := s.finish(ctx, issue, marker); err != nil {
		return kept, len(arch), err
	}
	s.keepFresh(hold, []int{issue})
	return kept, len(arch), nil
}

// compaction is a plan made without the lock, applied under it.
type compaction struct {
	issue   int
	planned map[string]bool // the observations the plan saw
	keep    []Observation   // what the plan keeps (new ones without IDs)
	gone    map[string]bool // what the plan archived
}

// apply returns the issue's observations after the plan: the kept ones as
// they are now (recall counts added meanwhile stay), new ones completed,
// then those stored by someone else since the plan ran. stale is true, and
// cur is returned unchanged, when an observation the plan saw is gone
// (removed meanwhile): the plan would bring it back or keep its text in a
// summary, so the issue is left as it is and the next compaction plans
// again.
func (c compaction) apply(cur []Observation, now time.Time) (out []Observation, stale bool, err error) {
	fresh := make(map[string]*Observation, len(cur))
	for i := range cur {
		fresh[cur[i].ID] = &cur[i]
	}
	for id := range c.planned {
		if fresh[id] == nil {
			return cur, true, nil
		}
	}
	out = make([]Observation, 0, len(c.keep))
	placed := map[string]bool{}
	for _, o := range c.keep {
		if o.ID != "" && c.planned[o.ID] {
			o = *fresh[o.ID]
		}
		fresh := o.ID == "" || !c.planned[o.ID]
		if o.ID == "" {
			o.ID = NewID(o.Agent, c.issue, now)
		}
		o.IssueNumber = c.issue
		o.fillDerived(now)
		if fresh {
			o.Seal() // a new observation (the summary); kept ones keep theirs
		}
		if err := o.validateKept(); err != nil {
			return nil, false, err
		}
		out = append(out, o)
		placed[o.ID] = true
	}
	for _, o := range cur {
		if !c.gone[o.ID] && !placed[o.ID] {
			out = append(out, o)
		}
	}
	return out, false, nil
}

func idSet(obs []Observation) map[string]bool {
	set := make(map[string]bool, len(obs))
	for _, o := range obs {
		set[o.ID] = true
	}
	return set
}

// archive adds originals to the issue's archive file (by ID, once).
func (s *Store) archive(ctx context.Context, issue int, obs []Observation) error {
	if len(obs) == 0 {
		return nil
	}
	return s.mergeByID(ctx, s.ArchivePath(issue), issue, obs)
}

// mergeByID appends to the issue-shaped file at path, under its lock, the
// observations whose IDs it does not hold yet.
func (s *Store) mergeByID(ctx context.Context, path string, issue int, obs []Observation) error {
	return s.withLock(ctx, path, func(lk *lock.Lock) error {
		f, err := readIssueAt(path, issue)
		if err != nil {
			return err
		}
		have := map[string]bool{}
		for _, o := range f.Observations {
			have[o.ID] = true
		}
		for _, o := range obs {
			if !have[o.ID] {
				have[o.ID] = true
				o.sealIfMissing()
				f.Observations = append(f.Observations, o)
			}
		}
		f.UpdatedAt = clock.Format(s.now())
		data, err := f.Marshal()
		if err != nil {
			return err
		}
		return atomicfile.Write(path, data, s.writeOpts(lk))
	})
}
