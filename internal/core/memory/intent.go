package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/audit"
)

// A writer's audit line is appended after its issue file is written and
// before its pending marker goes (audit.go). A writer killed between the
// two left an observation stored, or removed, with no line saying so:
// verify then takes it for one planted past agentx (or deleted unseen), an
// error only a person could clear, though agentx made the change. The
// marker carries the line (leaveMarker), and its repair appends it.

// intentTail bounds what settleIntent reads of the trail's current file
// to find a line the dead writer did append: its line is among the last
// ones, as the repair runs at the next write of the store.
const intentTail = 1 << 20

// settleIntent appends the audit line the dead writer of marker owed when
// its issue file shows the write landed and the trail does not hold the
// line yet. A write that did not land (killed before its rename) owes
// none; a marker without a line (an older agentx, no trail) has nothing
// to settle. It returns false, the marker to be kept, only when the
// marker owes a line and this store has no trail to append it to (a
// store opened without one): removing the marker would lose the line.
// Other failures are warnings: the repair of the manifest stands.
func (s *Store) settleIntent(ctx context.Context, marker string) bool {
	data, err := atomicfile.ReadRegular(marker, atomicfile.StateLimit)
	if err != nil {
		return true
	}
	_, _, line := markerFields(data)
	if line == "" {
		return true
	}
	if s.Audit == nil {
		return false
	}
	var e audit.Entry
	if err := json.Unmarshal([]byte(line), &e); err != nil || e.Op == "" {
		s.warn("pending marker %s: its audit line does not parse: %v", marker, err)
		return true
	}
	// The issue is the marker's (issue-N-XXXX): a sync's line names
	// files, not always an issue.
	issue, ok := markerIssue(filepath.Base(marker))
	if !ok {
		return true
	}
	f, err := s.readIssue(issue)
	if err != nil || !landed(f, &e) {
		return true
	}
	if held, err := trailHolds(s.Audit.Path(), &e); err != nil || held {
		return true
	}
	e.Detail = strings.TrimSpace(e.Detail + " (appended by the repair of a write cut short)")
	s.audit(ctx, e)
	return true
}

// landed says whether issue file f shows the write e records: every
// observation e stores is there with the hash it names, every one it only
// removes is gone.
func landed(f *IssueFile, e *audit.Entry) bool {
	have := make(map[string]string, len(f.Observations))
	for i := range f.Observations {
		have[f.Observations[i].ID] = f.Observations[i].ComputeHash()
	}
	for id, h := range e.After {
		if have[id] != h {
			return false
		}
	}
	for id := range e.Before {
		if _, stays := e.After[id]; stays {
			continue
		}
		if _, ok := have[id]; ok {
			return false
		}
	}
	return len(e.After) > 0 || len(e.Before) > 0
}

// trailHolds says whether the last intentTail bytes of the trail's
// current file at path hold a line of e's operation on e's issue naming
// e's first id with the hashes e names for the ids it lists.
func trailHolds(path string, e *audit.Entry) (bool, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	if err != nil {
		return false, err
	}
	off := max(info.Size()-intentTail, 0)
	tail, err := io.ReadAll(io.NewSectionReader(f, off, info.Size()-off))
	if err != nil {
		return false, err
	}
	for line := range bytes.SplitSeq(tail, []byte("\n")) {
		if !bytes.Contains(line, []byte(e.Op)) {
			continue
		}
		got, err := audit.Decode(line)
		if err != nil || got.Op != e.Op || got.Issue != e.Issue || len(got.IDs) == 0 || len(e.IDs) == 0 || got.IDs[0] != e.IDs[0] {
			continue
		}
		// The trail clips long lines (audit.MaxIDs): what it kept must
		// agree with e.
		if subset(got.After, e.After) && subset(got.Before, e.Before) {
			return true, nil
		}
	}
	return false, nil
}

// subset says whether every key of a is in b with the same value.
func subset(a, b map[string]string) bool {
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// MarkWrite leaves the pending marker of a write of issue's file made past
// the store (a sync's merge writes issue files itself), carrying the audit
// line e the write owes. Left before the write, removed by ClearMark once
// the line is on the trail: a kill between the write and the line leaves
// it to the repair (settleIntent) instead of leaving observations no line
// stored. The marker also tells searches the issue file is between its
// write and the index's, as a store write's does.
func (s *Store) MarkWrite(issue int, e audit.Entry) (string, error) {
	return s.leaveMarker(issue, &e)
}

// ClearMark removes a marker MarkWrite left.
func (s *Store) ClearMark(marker string) {
	if marker != "" {
		_ = os.Remove(marker)
	}
}
