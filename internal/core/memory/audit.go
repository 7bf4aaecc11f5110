package memory

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/audit"
)

// Each write of the store that lands (observations stored, one removed, an
// issue compacted, the manifest rebuilt) is one line of the audit trail
// when Store.Audit is set, appended once the issue file is written and
// before its pending marker goes (a reader that finds no marker finds the
// line; a crash between leaves the marker for repair); a failed append is a
// warning, the write stands.

// Audit names of the store's operations.
const (
	OpCapture = "memory.capture"
	OpAdd     = "memory.add"
	OpRemove  = "memory.remove"
	OpCompact = "memory.compact"
	OpRebuild = "memory.rebuild"
	OpImport  = "memory.import"
)

func hashes(obs []Observation) (ids []string, m map[string]string) {
	m = make(map[string]string, len(obs))
	for i := range obs {
		ids = append(ids, obs[i].ID)
		m[obs[i].ID] = obs[i].ComputeHash()
	}
	return ids, m
}

func (s *Store) audit(ctx context.Context, e audit.Entry) {
	if s.Audit == nil {
		return
	}
	if err := s.Audit.Append(ctx, s.withActor(e)); err != nil {
		s.warn("audit trail: %v", err)
	}
}

// withActor is e naming the store's actor when it names none (cli by
// default): a line a repair appends for a dead writer names that
// writer's actor, which its marker kept.
func (s *Store) withActor(e audit.Entry) audit.Entry {
	if e.Actor == "" {
		e.Actor = s.Actor
	}
	if e.Actor == "" {
		e.Actor = "cli"
	}
	return e
}

func (s *Store) auditStored(ctx context.Context, issue int, added []Observation) {
	if e, ok := s.storedEntry(issue, added); ok {
		s.audit(ctx, e)
	}
}

// storedEntry is the line of observations stored in issue (false: none).
func (s *Store) storedEntry(issue int, added []Observation) (audit.Entry, bool) {
	if len(added) == 0 {
		return audit.Entry{}, false
	}
	op := s.AuditOp
	if op == "" {
		op = OpCapture
	}
	var agents []string
	for _, o := range added {
		if !contains(agents, o.Agent) {
			agents = append(agents, o.Agent)
		}
	}
	ids, after := hashes(added)
	return audit.Entry{Actor: strings.Join(agents, ","), Op: op, Issue: issue, IDs: ids, After: after}, true
}

// auditImported is the line of observations Import wrote (sealed as
// stored), in lines of at most audit.MaxIDs so each keeps its hash.
func (s *Store) auditImported(ctx context.Context, issue int, obs []Observation) {
	for len(obs) > 0 {
		n := min(len(obs), audit.MaxIDs)
		ids, after := hashes(obs[:n])
		for _, o := range obs[:n] {
			if h, ok := o.StoredHash(); ok { // sealIfMissing kept it
				after[o.ID] = h
			}
		}
		s.audit(ctx, audit.Entry{Op: OpImport, Issue: issue, IDs: ids, After: after})
		obs = obs[n:]
	}
}

func (s *Store) auditRemoved(ctx context.Context, issue int, gone Observation) {
	s.audit(ctx, s.removedEntry(issue, gone))
}

// removedEntry is the line of observation gone removed from issue.
func (s *Store) removedEntry(issue int, gone Observation) audit.Entry {
	ids, before := hashes([]Observation{gone})
	return s.withActor(audit.Entry{Op: OpRemove, Issue: issue, IDs: ids, Before: before})
}

func (s *Store) auditCompacted(ctx context.Context, issue int, archived, kept []Observation) {
	s.audit(ctx, s.compactedEntry(issue, archived, kept))
}

// compactedEntry is the line of issue's compaction: the originals
// archived, the summaries kept.
func (s *Store) compactedEntry(issue int, archived, kept []Observation) audit.Entry {
	ids, before := hashes(archived)
	var fresh []Observation
	old := map[string]bool{}
	for _, o := range archived {
		old[o.ID] = true
	}
	for _, o := range kept {
		if _, ok := o.extra(FieldCompactedFrom); ok && !old[o.ID] {
			fresh = append(fresh, o)
		}
	}
	newIDs, after := hashes(fresh)
	return s.withActor(audit.Entry{Op: OpCompact, Issue: issue, IDs: append(ids, newIDs...), Before: before, After: after,
		Detail: fmt.Sprintf("%d observations archived into %d summaries", len(archived), len(fresh))})
}

func (s *Store) auditRebuilt(ctx context.Context, rep RebuildReport) {
	s.audit(ctx, audit.Entry{Op: OpRebuild,
		Detail: fmt.Sprintf("%s rebuilt: %d entries from %d issue files", map[bool]string{false: "manifest", true: "search index"}[rep.IndexOnly], rep.Entries, rep.IssueFiles)})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
