// Package statemerge owns the semantic three-way merge of agentx's shared
// state files: clarification ledgers, memory issue files and memory
// archives. Git's line merge cannot merge them (two agents appending a
// record to the same ledger always conflict, and a conflict marker makes
// the JSON unreadable), so both users of shared state call MergeFile: the
// state-branch sync, which merges the local state with the remote one, and
// the git merge driver (`agentx-hook merge-driver`) for teams that keep
// state on their code branches.
//
// The rules, file by file:
//
//   - Ledger records are matched by id (and by the id they were first
//     allocated, `renamedFrom`, so a record renamed by an earlier merge
//     still meets its other copy). Two different records under one id (both
//     sides allocated CLR-42-004 for different questions) are a collision:
//     the record that held the id in the base, else ours, keeps it; the
//     other gets the next free id, `renamedFrom` in the record and a Rename
//     in the report.
//   - Thread entries are a set (identical entries once), ordered by round
//     and time; an entry removed on one side stays removed.
//   - Status follows the lifecycle: abandoned is final, then resolved (a
//     resolution after an escalation stands), then escalated; between open
//     statuses the side at the larger round wins, at the same round
//     answered beats stale beats pending. The round is the larger.
//   - The monitor's marks (`staleRound`) and the SLA are the larger, so a
//     monitor action done on either side is never repeated.
//   - Memory observations are matched by id; one removed on either side
//     stays removed (compaction, `memory remove`). Archives only grow: a
//     union. Recall counts add up what each side recalled.
//   - Keys this code does not know are kept: three-way per key, and where
//     both sides changed one differently the larger value is taken and the
//     report counts a conflict.
//
// Merging is deterministic and symmetric: MergeFile(p, b, x, y) and
// MergeFile(p, b, y, x) give the same bytes, except that in a collision
// the side whose record is renumbered is the other one.
package statemerge

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/metrics"
	"github.com/agentx-dev/agentx/internal/core/tombstone"
)

// ErrUnmergeable means the file is not one the semantic merge knows, or a
// side does not parse: the caller falls back to git's normal conflict and
// leaves the files as they are.
var ErrUnmergeable = errors.New("not mergeable by agentx")

// Rename is a colliding record given a new id.
type Rename struct {
	Issue int    `json:"issue"`
	From  string `json:"from"`
	To    string `json:"to"`
}

// Report says what a merge decided beyond the obvious.
type Report struct {
	// Renamed are the records renumbered after an id collision.
	Renamed []Rename `json:"renamed,omitempty"`
	// Notes explain other decisions a person may want to check (a record
	// removed on one side but changed on the other, a value both sides
	// changed); renames are only in Renamed.
	Notes []string `json:"notes,omitempty"`
	// Conflicts counts values both sides changed differently where the
	// merge picked one by a fixed rule rather than by meaning.
	Conflicts int `json:"conflicts"`
}

func (r *Report) note(format string, args ...any) {
	r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
}

func (r *Report) conflict(format string, args ...any) {
	r.Conflicts++
	r.note(format, args...)
}

// kind of a state file.
type kind int

const (
	kindUnknown kind = iota
	kindLedger
	kindMemory
	kindArchive
	// kindMetrics is one machine's weekly metrics sums (package metrics):
	// one writer, so the version folded further is whole (metrics.Later).
	kindMetrics
	// kindArtifacts is an issue's stage artifact ledger (package
	// artifact): a union by id, the later update winning.
	kindArtifacts
)

// Classify says which merge a path (relative to the .agentx directory,
// slash-separated) gets, and the issue number its name carries (0 when
// none). It is exported for callers that choose files to merge.
func Classify(path string) (isState bool, issue int) {
	k, n := classify(path)
	return k != kindUnknown, n
}

func classify(path string) (kind, int) {
	path = strings.TrimPrefix(path, "./")
	dir, name := "", path
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		dir, name = path[:i], path[i+1:]
	}
	switch dir {
	case "state/clarifications":
		if n, ok := issueOf(name, ".json"); ok {
			return kindLedger, n
		}
	case "memory":
		if n, ok := issueOf(name, ".json"); ok {
			return kindMemory, n
		}
	case "state/artifacts":
		if n, ok := issueOf(name, ".json"); ok {
			return kindArtifacts, n
		}
	case "memory/archive":
		if strings.HasSuffix(name, ".json") {
			n, _ := issueOf(name, "-archived.json")
			return kindArchive, n
		}
	case metrics.Dir:
		if _, _, ok := metrics.ParseFileName(name); ok {
			return kindMetrics, 0
		}
	}
	return kindUnknown, 0
}

// issueOf reads N from "issue-N" + suffix.
func issueOf(name, suffix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "issue-")
	if !ok {
		return 0, false
	}
	num, ok := strings.CutSuffix(rest, suffix)
	if !ok || num == "" || strings.TrimLeft(num, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	return n, err == nil && n > 0
}

// MergeFile merges one state file three ways. path is the file's path
// relative to the .agentx directory, slash-separated, e.g.
// "state/clarifications/issue-42.json", "memory/issue-42.json",
// "memory/archive/issue-42-archived.json". base, ours or theirs is nil when
// the file is absent on that side. It returns the merged content (nil: the
// file is deleted) and a report of what it decided. ErrUnmergeable
// (errors.Is) means the file is not one the semantic merge knows or a side
// does not parse: the caller falls back to git's normal conflict, leaving
// the files untouched.
//
// Nothing is removed by absence: a record, thread entry or observation on
// any side (the base included) is kept unless a tombstone (package
// tombstone) in any side names it, and the merged file is never nil while
// a side has the file. When the result is one side's content, that side's
// bytes are returned as they are; otherwise the output is in the codecs'
// layout (the one every agentx write produces).
func MergeFile(path string, base, ours, theirs []byte) (merged []byte, rep Report, err error) {
	k, issue := classify(path)
	if k == kindUnknown {
		return nil, rep, fmt.Errorf("%s: %w: not a ledger, artifact ledger, memory issue file or archive", path, ErrUnmergeable)
	}
	if sameFile(ours, theirs) && (ours != nil || base == nil) {
		return ours, rep, nil
	}
	// No shortcut for "one side did not change": the other side may have
	// lost what the base holds (a file cleaned away, a branch force-pushed
	// to an older commit), and only a full merge keeps it.
	if k == kindMetrics {
		return mergeMetrics(path, ours, theirs)
	}
	if k == kindArtifacts {
		return mergeArtifacts(path, base, ours, theirs)
	}
	merge := func(base, ours, theirs []byte, rep *Report) ([]byte, error) {
		if k == kindLedger {
			return mergeLedgerFile(path, issue, base, ours, theirs, rep)
		}
		return mergeMemoryFile(path, issue, k == kindArchive, base, ours, theirs, rep)
	}
	if merged, err = merge(base, ours, theirs, &rep); err != nil {
		return nil, Report{}, err
	}
	// A result that is one side's content keeps that side's bytes: a file
	// another tool wrote is not re-laid out for nothing.
	for _, side := range [][]byte{theirs, ours} {
		if side == nil {
			continue
		}
		if canon, err := merge(nil, side, nil, &Report{}); err == nil && bytes.Equal(canon, merged) {
			return side, rep, nil
		}
	}
	return merged, rep, nil
}

// mergeMetrics keeps the version of a machine's weekly metrics file that
// was folded further: only that machine writes it, and its counters only
// grow within the week. A side missing or not parsing gives way to the
// other; with neither parsing the file is not mergeable.
func mergeMetrics(path string, ours, theirs []byte) ([]byte, Report, error) {
	_, eo := metrics.ParseWeek(ours)
	_, et := metrics.ParseWeek(theirs)
	switch {
	case eo != nil && et != nil:
		return nil, Report{}, fmt.Errorf("%s: %w: %w", path, ErrUnmergeable, eo)
	case ours == nil || eo != nil:
		return theirs, Report{}, nil
	case theirs == nil || et != nil:
		return ours, Report{}, nil
	}
	return metrics.Later(ours, theirs), Report{}, nil
}

// mergeArtifacts is artifact.Merge; a side that does not parse makes the
// file unmergeable (git's conflict stays).
func mergeArtifacts(path string, base, ours, theirs []byte) ([]byte, Report, error) {
	merged, err := artifact.Merge(path, base, ours, theirs)
	if err != nil {
		return nil, Report{}, fmt.Errorf("%s: %w: %w", path, ErrUnmergeable, err)
	}
	for _, side := range [][]byte{theirs, ours} {
		if side != nil && bytes.Equal(side, merged) {
			return side, Report{}, nil
		}
	}
	return merged, Report{}, nil
}

// sameFile compares two versions, absence included.
func sameFile(a, b []byte) bool {
	return (a == nil) == (b == nil) && bytes.Equal(a, b)
}

// unmergeable wraps a parse failure of one side (the parser's error names
// the file).
func unmergeable(side string, err error) error {
	return fmt.Errorf("%s does not parse (%w): %w", side, ErrUnmergeable, err)
}

// parse3 parses the three sides with parse, stopping at the first failure.
func parse3[T any](parse func(side string, data []byte) (T, error), base, ours, theirs []byte) (b, o, t T, err error) {
	if b, err = parse("base", base); err != nil {
		return
	}
	if o, err = parse("ours", ours); err != nil {
		return
	}
	t, err = parse("theirs", theirs)
	return
}

// sideTombstones is the union of the tombstones the three sides' file
// keys hold; a malformed list makes the file unmergeable.
func sideTombstones(path string, extras ...[]jsonfile.Field) (tombstone.Set, error) {
	var sets []tombstone.Set
	for _, x := range extras {
		s, err := tombstone.FromExtra(path, x)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUnmergeable, err)
		}
		sets = append(sets, s)
	}
	return tombstone.Union(sets...), nil
}
