package githubfake

import (
	"maps"
	"slices"
)

// CopyFrom replaces s's data with a deep copy of src's: issues and their
// labels and texts, comments and their reactions, repository labels, the
// contents API's files, the Git Data API's objects and refs, pull
// requests, permissions and the fake's clock. Counters, the call log and
// the hooks (Fault, AfterWrite, ...) stay s's own. A test that needs the
// same starting point many times builds it once and copies it into a new
// fake each time (actioncmd's call counts, issue 37), where Snapshot
// keeps only issues, comments, labels and files.
func (s *Server) CopyFrom(src *Server) {
	if s == src {
		return
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	// Issues, comments, labels, files, the next id and the clock, as
	// Snapshot and Restore copy them.
	s.restoreLocked(src.snapshotLocked())
	s.texts = nil
	if src.texts != nil {
		s.texts = map[int]*IssueText{}
		for n, x := range src.texts {
			x2 := *x
			x2.Labels = slices.Clone(x.Labels)
			s.texts[n] = &x2
		}
	}
	s.gitdata = nil
	if g := src.gitdata; g != nil {
		c := newGitData()
		for k, b := range g.blobs {
			c.blobs[k] = slices.Clone(b)
		}
		for k, t := range g.trees {
			c.trees[k] = slices.Clone(t)
		}
		for k, cm := range g.commits {
			cm.Parents = slices.Clone(cm.Parents)
			c.commits[k] = cm
		}
		c.refs = maps.Clone(g.refs)
		c.protected = maps.Clone(g.protected)
		s.gitdata = c
	}
	s.pulls = nil
	if src.pulls != nil {
		s.pulls = map[int]*Pull{}
		for n, p := range src.pulls {
			p2 := *p
			p2.Reviews = slices.Clone(p.Reviews)
			s.pulls[n] = &p2
		}
	}
	var log []Call
	if s.extra != nil {
		log = s.extra.log
	}
	s.extra = nil
	s.ext().log = log
	if e := src.extra; e != nil {
		x := s.ext()
		for id, rs := range e.reactions {
			x.reactions[id] = slices.Clone(rs)
		}
		x.nextReact = e.nextReact
		x.permissions = maps.Clone(e.permissions)
	}
}
