// Package retention keeps the memory store bounded by itself ([retention]
// in agentx.toml): an observation nobody recalled for ArchiveAfter moves
// to the issue's archive (memory.Store.Archive: searchable with `memory
// search --archived`, restorable with `memory restore`, a tombstone in the
// issue file so a state-branch merge does not bring it back), and an
// issue holding more than CompactOver observations is compacted (package
// compact). The hooks apply it a slice at a time, one issue file per
// `hook finish` (Slice, under the hook's deadline), in turn over the
// issues that may need it; `memory compact --auto` applies it to every
// issue at once (All).
//
// Alerts are the store's size alerts (memory.Stats: 40 MB, 40,000
// observations), which `hook start` shows once a day (DueAlerts).
package retention

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/compact"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/memindex"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/metrics"
)

// CompactMinAge is how old an observation must be before retention's
// compaction merges it: an over-full issue's recent work stays as it was
// written.
const CompactMinAge = 7 * 24 * time.Hour

// Policy is what retention does.
type Policy struct {
	// ArchiveAfter archives an observation unused (not recalled, not
	// written) for that long; 0: never.
	ArchiveAfter time.Duration
	// CompactOver compacts an issue holding more observations; 0: never.
	CompactOver int
}

// FromConfig is the policy of [retention].
func FromConfig(r config.RetentionSettings) Policy {
	return Policy{ArchiveAfter: r.ArchiveAfter(), CompactOver: r.CompactOverOr()}
}

// Off reports a policy that does nothing.
func (p Policy) Off() bool { return p.ArchiveAfter <= 0 && p.CompactOver <= 0 }

// Result is what retention did to one issue.
type Result struct {
	Issue    int `json:"issue"`
	Before   int `json:"before"`
	After    int `json:"after"`
	Archived int `json:"archived"`
	// Compacted originals were merged into Summaries summaries.
	Compacted int `json:"compacted"`
	Summaries int `json:"summaries"`
}

// Changed reports whether the issue file changed.
func (r Result) Changed() bool { return r.Archived > 0 || r.Compacted > 0 }

// Stale reports whether o is due for the archive at now.
func (p Policy) Stale(o *memory.Observation, now time.Time) bool {
	if p.ArchiveAfter <= 0 {
		return false
	}
	used := o.LastUsed()
	return !used.IsZero() && now.Sub(used) >= p.ArchiveAfter
}

// Apply applies the policy to one issue: what is stale is archived, then
// an issue still over CompactOver is compacted.
func Apply(ctx context.Context, st *memory.Store, p Policy, now time.Time, issue int) (Result, error) {
	res := Result{Issue: issue}
	obs, err := st.GetByIssue(ctx, issue)
	if err != nil {
		return res, err
	}
	res.Before, res.After = len(obs), len(obs)
	if p.ArchiveAfter > 0 {
		gone, err := st.Archive(ctx, issue, func(obs []memory.Observation) []string {
			var ids []string
			for i := range obs {
				if p.Stale(&obs[i], now) {
					ids = append(ids, obs[i].ID)
				}
			}
			return ids
		})
		res.Archived = len(gone)
		res.After -= len(gone)
		if err != nil {
			return res, err
		}
	}
	if p.CompactOver <= 0 || res.After <= p.CompactOver || ctx.Err() != nil {
		return res, ctx.Err()
	}
	var plan compact.Plan
	kept, archived, err := st.Compact(ctx, issue, func(obs []memory.Observation) ([]memory.Observation, []memory.Observation, error) {
		plan = compact.Make(obs, compact.Options{Now: now, MinAge: CompactMinAge})
		return plan.Keep, plan.Archive, nil
	})
	if err != nil {
		return res, err
	}
	if archived > 0 {
		res.Compacted, res.Summaries, res.After = archived, plan.Merged, len(kept)
	}
	return res, nil
}

// Candidates lists, ascending, the issues the policy may change, from the
// search index alone (no issue file read): an issue with an observation
// written before the archive cutoff (one recalled since is kept, which
// only Apply can tell), or with more than CompactOver observations.
func Candidates(ctx context.Context, st *memory.Store, p Policy, now time.Time) ([]int, error) {
	if p.Off() {
		return nil, nil
	}
	count := map[int]int{}
	old := map[int]bool{}
	cutoff := now.Add(-p.ArchiveAfter).UnixMilli()
	err := st.Census(ctx, func(d memindex.Doc) {
		count[d.Issue]++
		if p.ArchiveAfter > 0 && d.Time != 0 && d.Time <= cutoff {
			old[d.Issue] = true
		}
	})
	if err != nil {
		return nil, err
	}
	var out []int
	for n, c := range count {
		if old[n] || p.CompactOver > 0 && c > p.CompactOver {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out, nil
}

// All applies the policy to every candidate issue (`memory compact
// --auto`); it stops at the first error or when ctx ends.
func All(ctx context.Context, st *memory.Store, p Policy, now time.Time) ([]Result, error) {
	issues, err := Candidates(ctx, st, p, now)
	if err != nil {
		return nil, err
	}
	var out []Result
	// The manifest and index follow once, at the end, not per issue.
	err = st.Batch(ctx, func() error {
		for _, n := range issues {
			if err := ctx.Err(); err != nil {
				return err
			}
			r, err := Apply(ctx, st, p, now, n)
			if r.Changed() {
				out = append(out, r)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// State is the hooks' local bookkeeping (workspace.RetentionFile): the
// last issue a slice visited, so the next one goes on from there, and the
// day `hook start` last showed the store's alerts.
type State struct {
	Cursor      int    `json:"cursor"`
	AlertsShown string `json:"alertsShown,omitempty"`
}

// LoadState reads path (missing or unreadable: the zero State; it is
// bookkeeping, rebuilt by use).
func LoadState(path string) State {
	var s State
	data, err := atomicfile.ReadRegular(path, 4096)
	if err == nil {
		_ = json.Unmarshal(data, &s)
	}
	return s
}

// SaveState writes path atomically. Its directory (the store's pending
// directory) is made when its parent exists: a workspace without a memory
// directory gets none.
func SaveState(path string, s State) error {
	data, _ := json.Marshal(s) // two plain fields always marshal
	if err := os.Mkdir(filepath.Dir(path), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return atomicfile.Write(path, append(data, '\n'), atomicfile.Options{})
}

// Slice is one hook's share: the policy applied to the candidate issue
// after the one the last slice visited (in turn, wrapping round), the
// cursor kept in statePath. ok is false when no issue needed looking at.
func Slice(ctx context.Context, st *memory.Store, p Policy, now time.Time, statePath string) (res Result, ok bool, err error) {
	issues, err := Candidates(ctx, st, p, now)
	if err != nil || len(issues) == 0 {
		return Result{}, false, err
	}
	s := LoadState(statePath)
	next := issues[0]
	if i := sort.SearchInts(issues, s.Cursor+1); i < len(issues) {
		next = issues[i]
	}
	res, err = Apply(ctx, st, p, now, next)
	s = LoadState(statePath) // the alert day may have changed meanwhile
	s.Cursor = next
	if serr := SaveState(statePath, s); err == nil && serr != nil && !errors.Is(serr, fs.ErrNotExist) {
		err = serr
	}
	return res, true, err
}

// DueAlerts returns the store's size alerts when they were not shown yet
// on now's day (UTC), and records the day; nil otherwise. Past the first
// call of a day it costs one small read.
func DueAlerts(ctx context.Context, st *memory.Store, now time.Time, statePath string) ([]string, error) {
	day := now.UTC().Format(time.DateOnly)
	s := LoadState(statePath)
	if s.AlertsShown == day {
		return nil, nil
	}
	stats, err := st.Stats(ctx)
	if err != nil {
		return nil, err
	}
	s.AlertsShown = day
	if err := SaveState(statePath, s); err != nil {
		return stats.Warnings, err
	}
	return stats.Warnings, nil
}

// Sums are what a run over the whole store changed: the issues compacted
// (for the metrics line) and the observations archived and merged.
type Sums struct {
	Changed             int // issues whose file changed
	Before, After       int // observations in those issues
	Archived, Compacted int
}

// Counters are the run's metrics: one compaction per issue changed.
func (s Sums) Counters() metrics.Counters {
	return metrics.Counters{Compactions: s.Changed, CompactBefore: s.Before, CompactAfter: s.After}
}

// Counters are one issue's retention as metrics (a compaction).
func (r Result) Counters() metrics.Counters {
	return metrics.Counters{Compactions: 1, CompactBefore: r.Before, CompactAfter: r.After}
}

// Sum adds up results.
func Sum(res []Result) Sums {
	var s Sums
	for _, r := range res {
		if r.Changed() {
			s.Changed++
			s.Before += r.Before
			s.After += r.After
		}
		s.Archived += r.Archived
		s.Compacted += r.Compacted
	}
	return s
}

// Lines are `memory compact --auto` for people: one line per issue, then
// the totals and the policy applied.
func Lines(res []Result, p Policy) []string {
	out := make([]string, 0, len(res)+1)
	for _, r := range res {
		out = append(out, fmt.Sprintf("Issue #%d: %d -> %d observations (%d archived, %d merged into %d summaries).",
			r.Issue, r.Before, r.After, r.Archived, r.Compacted, r.Summaries))
	}
	s := Sum(res)
	return append(out, fmt.Sprintf("Retention: %d issues changed, %d observations archived, %d compacted ([retention] archive_after_days %d, compact_over %d).",
		len(res), s.Archived, s.Compacted, p.ArchiveDays(), p.CompactOver))
}

// ArchiveDays is ArchiveAfter in whole days, as [retention] names it.
func (p Policy) ArchiveDays() int { return int(p.ArchiveAfter.Hours() / 24) }

// Doc is `memory compact --auto --json`.
type Doc struct {
	ArchiveAfterDays int      `json:"archiveAfterDays"`
	CompactOver      int      `json:"compactOver"`
	Issues           []Result `json:"issues"`
	jsonfile.Versioned
}

// Doc is a run of p over every issue as `memory compact --auto --json`
// prints it.
func (p Policy) Doc(res []Result) *Doc {
	return &Doc{ArchiveAfterDays: p.ArchiveDays(), CompactOver: p.CompactOver, Issues: jsonfile.List(res)}
}
