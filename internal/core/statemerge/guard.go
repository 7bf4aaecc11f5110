package statemerge

import (
	"fmt"
	"sort"

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/metrics"
	"github.com/agentx-dev/agentx/internal/core/tombstone"
)

// Valid reports whether data parses as the state file at path (a ledger,
// a memory issue file or an archive, tombstones included): what may be
// pushed to the state branch or written over a local file.
func Valid(path string, data []byte) error {
	k, issue := classify(path)
	switch k {
	case kindLedger:
		l, err := ledger.Parse(path, data, issue)
		if err != nil {
			return err
		}
		if err := checkIssue(path, issue, l.IssueNumber); err != nil {
			return err
		}
		_, err = tombstone.FromExtra(path, l.Extra)
		return err
	case kindMemory, kindArchive:
		f, err := memory.ParseIssueFile(path, data)
		if err != nil {
			return err
		}
		if err := checkIssue(path, issue, f.IssueNumber); err != nil {
			return err
		}
		_, err = f.Tombstones(path)
		return err
	case kindMetrics:
		_, err := metrics.ParseWeek(data)
		return err
	case kindArtifacts:
		f, err := artifact.Parse(path, data, issue)
		if err != nil {
			return err
		}
		return checkIssue(path, issue, f.IssueNumber)
	}
	return fmt.Errorf("%s: %w: not a ledger, artifact ledger, memory issue file or archive", path, ErrUnmergeable)
}

// Lost lists what the sides (nil: absent) hold that result lacks with no
// tombstone in result naming it: clarification records (by id, or the id
// they were first given) and observations (by id). A merge by MergeFile
// never loses anything; Lost is the guard a caller runs before it writes
// or pushes a result, so that no defect can remove data silently.
func Lost(path string, result []byte, sides ...[]byte) ([]string, error) {
	k, issue := classify(path)
	switch k {
	case kindUnknown:
		return nil, fmt.Errorf("%s: %w", path, ErrUnmergeable)
	case kindMetrics:
		return nil, nil // sums, no records: the later version holds the earlier's
	case kindLedger:
		return lostRecords(path, issue, result, sides)
	case kindArtifacts:
		return lostArtifacts(path, result, sides)
	}
	return lostObservations(path, k == kindArchive, result, sides)
}

func lostRecords(path string, issue int, result []byte, sides [][]byte) ([]string, error) {
	res, err := parseLedger(path, "result", issue, result)
	if err != nil {
		return nil, err
	}
	dead, err := tombstone.FromExtra(path, res.Extra)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for i := range res.Clarifications {
		have[res.Clarifications[i].ID] = true
		have[origin(&res.Clarifications[i])] = true
	}
	missing := map[string]bool{}
	for _, data := range sides {
		if data == nil {
			continue
		}
		side, err := parseLedger(path, "side", issue, data)
		if err != nil {
			return nil, err
		}
		live := 0
		for i := range side.Clarifications {
			r := &side.Clarifications[i]
			if dead.Has(tombstone.Record, r.ID) || dead.Has(tombstone.Record, origin(r)) {
				continue
			}
			live++
			lostOfRecord(res, r, have, missing)
		}
		// Ids alone cannot tell two records under one id apart: the
		// result holds at least as many records as any side keeps.
		if live > len(res.Clarifications) && len(missing) == 0 {
			missing[fmt.Sprintf("%d of %d records", live-len(res.Clarifications), live)] = true
		}
	}
	return sorted(missing), nil
}

// lostOfRecord adds to missing the side record r when res lacks it, or
// the thread entries of r that res's copy of it lacks (entries are a set
// nothing removes).
func lostOfRecord(res *ledger.Ledger, r *ledger.Record, have, missing map[string]bool) {
	if !have[r.ID] && !have[origin(r)] {
		missing[r.ID] = true
		return
	}
	m := counterpart(res, r)
	if m == nil {
		return
	}
	keys := entryMap(m.Thread)
	for i := range r.Thread {
		if keys[entryKey(&r.Thread[i])] == nil {
			missing[fmt.Sprintf("%s entry %d (%s)", r.ID, i, r.Thread[i].Type)] = true
		}
	}
}

func lostObservations(path string, archive bool, result []byte, sides [][]byte) ([]string, error) {
	res, err := memory.ParseIssueFile(path, result)
	if err != nil {
		return nil, err
	}
	dead, err := res.Tombstones(path)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, o := range res.Observations {
		have[o.ID] = true
	}
	missing := map[string]bool{}
	for _, data := range sides {
		if data == nil {
			continue
		}
		side, err := memory.ParseIssueFile(path, data)
		if err != nil {
			return nil, err
		}
		for _, o := range side.Observations {
			if !have[o.ID] && (archive || !dead.Has(tombstone.Observation, o.ID)) {
				missing[o.ID] = true
			}
		}
	}
	return sorted(missing), nil
}

func sorted(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Live lists the clarification ids (a ledger) or observation ids (a
// memory issue file or archive) data holds.
func Live(path string, data []byte) ([]string, error) {
	k, issue := classify(path)
	var ids []string
	switch k {
	case kindLedger:
		l, err := parseLedger(path, "file", issue, data)
		if err != nil {
			return nil, err
		}
		for i := range l.Clarifications {
			ids = append(ids, l.Clarifications[i].ID)
		}
	case kindMemory, kindArchive:
		f, err := memory.ParseIssueFile(path, data)
		if err != nil {
			return nil, err
		}
		for _, o := range f.Observations {
			ids = append(ids, o.ID)
		}
	case kindMetrics:
		return nil, nil
	case kindArtifacts:
		f, err := artifact.Parse(path, data, issue)
		if err != nil {
			return nil, err
		}
		for _, a := range f.Artifacts {
			ids = append(ids, a.ID)
		}
	default:
		return nil, fmt.Errorf("%s: %w", path, ErrUnmergeable)
	}
	return ids, nil
}

// counterpart is the record of res that is r's copy: same id or first id,
// and the same clarification (compatible); nil when none is.
func counterpart(res *ledger.Ledger, r *ledger.Record) *ledger.Record {
	for i := range res.Clarifications {
		m := &res.Clarifications[i]
		if (m.ID == r.ID || origin(m) == origin(r)) && compatible(m, r) {
			return m
		}
	}
	// Else its edit: the same id and request, another topic.
	for i := range res.Clarifications {
		if m := &res.Clarifications[i]; m.ID == r.ID && sameRequest(m, r) {
			return m
		}
	}
	return nil
}

// lostArtifacts is Lost for an artifact ledger: the ids a side holds that
// result lacks and no tombstone of result names.
func lostArtifacts(path string, result []byte, sides [][]byte) ([]string, error) {
	res, err := artifact.Parse(path, result, 0)
	if err != nil {
		return nil, err
	}
	missing := map[string]bool{}
	for _, data := range sides {
		if data == nil {
			continue
		}
		side, err := artifact.Parse(path, data, 0)
		if err != nil {
			return nil, err
		}
		for _, a := range side.Artifacts {
			if res.Find(a.ID) == nil && !res.Tombstones.Has(artifact.TombstoneKind, a.ID) {
				missing[a.ID] = true
			}
		}
	}
	return sorted(missing), nil
}
