// Package compact owns observation compaction (SPEC Phase 3): which
// observations of an old issue merge into one summary observation, and what
// that summary says. Make only plans; memory.Store.Compact applies the
// plan, archiving every original before the issue file changes, so
// nothing is ever lost and a merged decision can still be read in full
// from the archive. Run does both for one issue, as `memory compact` asks,
// and reports it.
//
// A merged observation keeps its members' category (a decision stays a
// decision), the newest member's time (recency stays truthful) and the text
// of every member, so whatever search found before compaction it still
// finds, now in the summary.
package compact

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/shorten"
	"github.com/agentx-dev/agentx/internal/core/wordset"
)

// Defaults of Options.
const (
	// DefaultThreshold is the word-set similarity from which two
	// observations of one category are about the same thing.
	DefaultThreshold = 0.2
	// DefaultMaxGroup bounds a merge so each member keeps about 300
	// characters of its text inside the 2,000-character limit.
	DefaultMaxGroup = 6
	// DefaultTarget is the share of the issue's observations compaction
	// aims to keep (the SPEC's gate: at least halve an old issue).
	DefaultTarget = 0.5
	// ExtraFrom is the key listing a summary's originals (in the archive).
	ExtraFrom = memory.FieldCompactedFrom
	// Session is the session id of summaries compaction writes.
	Session = "compaction"
)

// Options tune a plan.
type Options struct {
	// Now and MinAge: only observations older than MinAge are merged (0:
	// all of them); the issue's recent work stays as it was written.
	Now    time.Time
	MinAge time.Duration
	// Threshold is DefaultThreshold when 0.
	Threshold float64
	// MaxGroup is DefaultMaxGroup when 0.
	MaxGroup int
	// Target is DefaultTarget when 0. After merging what overlaps, if more
	// than Target of the eligible observations remain, neighbours in time
	// of the same category are merged too until Target is met.
	Target float64
}

// Plan is the result: Keep is what the issue file will hold (untouched
// observations and the new summaries, whose IDs the store fills in),
// Archive the originals the summaries replace.
type Plan struct {
	Keep    []memory.Observation
	Archive []memory.Observation
	// Merged is the number of summaries written.
	Merged int
}

// Make plans the compaction of one issue's observations.
func Make(obs []memory.Observation, opt Options) Plan {
	if opt.Threshold <= 0 {
		opt.Threshold = DefaultThreshold
	}
	if opt.MaxGroup < 2 {
		opt.MaxGroup = DefaultMaxGroup
	}
	if opt.Target <= 0 || opt.Target >= 1 {
		opt.Target = DefaultTarget
	}
	var plan Plan
	byCat := map[memory.Category][]memory.Observation{}
	var cats []memory.Category
	eligible := 0
	for _, o := range obs {
		if !mergeable(&o, opt) {
			plan.Keep = append(plan.Keep, o)
			continue
		}
		if byCat[o.Category] == nil {
			cats = append(cats, o.Category)
		}
		byCat[o.Category] = append(byCat[o.Category], o)
		eligible++
	}
	var groups [][]memory.Observation
	for _, c := range cats {
		list := byCat[c]
		sort.SliceStable(list, func(i, j int) bool { return list[i].Timestamp < list[j].Timestamp })
		groups = append(groups, cluster(list, opt)...)
	}
	groups = fill(groups, eligible, opt)
	for _, g := range groups {
		if len(g) == 1 {
			plan.Keep = append(plan.Keep, g[0])
			continue
		}
		plan.Keep = append(plan.Keep, merge(g))
		plan.Archive = append(plan.Archive, g...)
		plan.Merged++
	}
	return plan
}

// mergeable: old enough, and not itself a summary (merging summaries again
// would bury originals two archive steps deep).
func mergeable(o *memory.Observation, opt Options) bool {
	for _, x := range o.Extra {
		if x.Key == ExtraFrom {
			return false
		}
	}
	if o.SessionID == Session {
		return false
	}
	if opt.MinAge > 0 {
		t, err := clock.Parse(o.Timestamp)
		if err != nil || opt.Now.Sub(t) < opt.MinAge {
			return false
		}
	}
	return true
}

// cluster groups one category's observations (oldest first) that overlap:
// each joins the first group holding a member at least Threshold similar
// to it, while the group has room.
func cluster(list []memory.Observation, opt Options) [][]memory.Observation {
	var groups [][]memory.Observation
	var words [][]wordset.Set
	for _, o := range list {
		w := wordset.Of(o.Content)
		placed := false
		for gi := range groups {
			if len(groups[gi]) >= opt.MaxGroup {
				continue
			}
			for _, mw := range words[gi] {
				if wordset.Jaccard(w, mw) >= opt.Threshold {
					groups[gi] = append(groups[gi], o)
					words[gi] = append(words[gi], w)
					placed = true
					break
				}
			}
			if placed {
				break
			}
		}
		if !placed {
			groups = append(groups, []memory.Observation{o})
			words = append(words, []wordset.Set{w})
		}
	}
	return groups
}

// fill merges neighbouring small groups of one category (in time order)
// while more than Target of the eligible observations would remain.
func fill(groups [][]memory.Observation, eligible int, opt Options) [][]memory.Observation {
	want := int(float64(eligible) * opt.Target)
	for len(groups) > want {
		best := -1
		for i := 0; i+1 < len(groups); i++ {
			a, b := groups[i], groups[i+1]
			if a[0].Category != b[0].Category || len(a)+len(b) > opt.MaxGroup {
				continue
			}
			// Smallest pair first, so merges stay even.
			if best < 0 || len(a)+len(b) < len(groups[best])+len(groups[best+1]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		merged := append(append([]memory.Observation(nil), groups[best]...), groups[best+1]...)
		sort.SliceStable(merged, func(i, j int) bool { return merged[i].Timestamp < merged[j].Timestamp })
		groups = append(groups[:best], append([][]memory.Observation{merged}, groups[best+2:]...)...)
	}
	return groups
}

// merge writes the summary observation of a group.
func merge(g []memory.Observation) memory.Observation {
	agents := map[string]int{}
	var ids []string
	newest, oldest := g[0].Timestamp, g[0].Timestamp
	recalls, source := 0, 0
	for _, o := range g {
		agents[o.Agent]++
		ids = append(ids, o.ID)
		newest = max(newest, o.Timestamp)
		oldest = min(oldest, o.Timestamp)
		recalls = max(recalls, o.RecallCount)
		source += o.SourceBytes()
	}
	names := memory.SortedKeys(agents)
	head := fmt.Sprintf("Compacted %d %s observations (%s to %s; %s):", len(g), g[0].Category, day(oldest), day(newest), strings.Join(names, ", "))
	// Each member gets an equal share of what is left of the limit.
	share := (sanitize.MaxChars-utf8.RuneCountInString(head))/len(g) - len("\n- ")
	var b strings.Builder
	b.WriteString(head)
	for _, o := range g {
		b.WriteString("\n- ")
		b.WriteString(shortenWords(strings.Join(strings.Fields(o.Content), " "), share))
	}
	content := shorten.Runes(b.String(), sanitize.MaxChars)
	// The summary is one line (search rows and recall statements are).
	var sum strings.Builder
	sum.WriteString(head)
	for i, o := range g {
		if i > 0 {
			sum.WriteString(";")
		}
		sum.WriteString(" ")
		sum.WriteString(strings.Join(strings.Fields(o.Summary), " "))
	}
	from, _ := json.Marshal(ids)
	m := memory.Observation{
		Agent: names[0], IssueNumber: g[0].IssueNumber, Category: g[0].Category,
		Content: content, Summary: memory.Summarize(sum.String()), Timestamp: newest,
		SessionID: Session, RecallCount: recalls,
		Extra: []jsonfile.Field{{Key: ExtraFrom, Value: from}},
	}
	m.SetSourceBytes(source) // summed: the summary stands for all its members' input
	return m
}

func day(ts string) string {
	if len(ts) >= 10 {
		return ts[:10]
	}
	return ts
}

// shortenWords cuts s to n characters at a word boundary, marking the cut.
func shortenWords(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := shorten.Runes(s, max(n-3, 0))
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return cut + "..."
}
