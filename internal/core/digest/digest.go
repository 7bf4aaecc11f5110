// Package digest owns the weekly digest: the clarification and memory
// figures of a time window beside the previous window's and the SPEC's
// targets (Compute, a pure function of ledgers, events and memory times),
// their renderings as Markdown and versioned JSON, and the ISO-week naming
// of the report. Where the input comes from is a Source: the local
// workspace here, the state branch in GitHub Mode.
package digest

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/metrics"
)

// SchemaVersion is the version of the JSON document.
const SchemaVersion = 2

// The SPEC's success criteria (section 12.1 and the success criteria).
const (
	TargetAutoResolution = 0.80 // above
	TargetEscalation     = 0.20 // below
	TargetRoundsMin      = 2.0
	TargetRoundsMax      = 3.0
)

// TrendWindows is how many windows the trend shows, history allowing.
const TrendWindows = 8

// Compute returns the digest of in over opt's window. It is pure: the same
// input and options give the same report.
func Compute(in *Input, opt Options) *Report {
	length := opt.Until.Sub(opt.Since)
	cur := Window{opt.Since.UTC(), opt.Until.UTC()}
	prev := Window{cur.Since.Add(-length), cur.Since}
	now := opt.Now
	if now.IsZero() {
		now = opt.Until
	}
	agents := map[string]bool{}
	for a := range in.Agents {
		agents[a] = true
	}
	n := 0
	for _, l := range in.Ledgers {
		n += len(l.Clarifications)
		for i := range l.Clarifications {
			r := &l.Clarifications[i]
			agents[r.From], agents[r.To] = true, true
		}
	}
	isAgent := func(s string) bool { return agents[s] }
	facts := make([]fact, 0, n)
	for _, l := range in.Ledgers {
		for i := range l.Clarifications {
			facts = append(facts, factOf(&l.Clarifications[i], isAgent))
		}
	}
	staleEvents := staleByEvent(in.Events)

	rep := &Report{SchemaVersion: SchemaVersion, Week: WeekOf(cur), Window: cur, Previous: prev}
	rep.Current = figures(facts, cur, staleEvents, in)
	rep.Prior = figures(facts, prev, staleEvents, in)
	rep.Checks = checks(rep.Current)
	link := func(n int) string {
		if opt.IssueURL == nil {
			return ""
		}
		return opt.IssueURL(n)
	}
	rep.Pairs = pairs(facts, cur)
	rep.Issues = issueRows(facts, cur, link)
	rep.Topics = topics(facts, cur)
	rep.Trend = trend(facts, cur, in)
	rep.Stages = stageRows(in)
	rep.Escalations, rep.Longest = waiting(facts, now, link)
	if in.Memory != nil {
		rep.MemoryTokens = in.Memory.Tokens
	}
	if in.Reviews != nil {
		clarified := map[int]bool{}
		for _, l := range in.Ledgers {
			if len(l.Clarifications) > 0 {
				clarified[l.IssueNumber] = true
			}
		}
		rep.Reviews = reviewFigures(in.Reviews, clarified)
	}
	return rep
}

// staleByEvent maps a record id to the times of its stale events.
func staleByEvent(evs []events.Event) map[string][]time.Time {
	out := map[string][]time.Time{}
	for _, e := range evs {
		if e.Type != events.ClarificationStale {
			continue
		}
		var p events.ClarificationPayload
		if json.Unmarshal(e.Payload, &p) != nil || p.ClarificationID == "" {
			continue
		}
		t := ts(e.Time)
		if t.IsZero() && p.Timestamp > 0 {
			t = time.UnixMilli(p.Timestamp).UTC()
		}
		out[p.ClarificationID] = append(out[p.ClarificationID], t)
	}
	return out
}

func figures(facts []fact, w Window, staleEvents map[string][]time.Time, in *Input) Figures {
	var f Figures
	var rounds int
	var answers, resolves []float64
	for i := range facts {
		x := &facts[i]
		if w.contains(x.created) {
			f.Opened++
		}
		if !x.created.IsZero() && x.created.Before(w.Until) && (x.outcome == open || !x.settled.Before(w.Until)) {
			f.StillOpen++
		}
		for _, a := range x.answers {
			if w.contains(a.answered) {
				answers = append(answers, a.answered.Sub(a.asked).Seconds())
			}
		}
		if staleIn(x, w, staleEvents) {
			f.Stale++
		}
		if x.outcome == open || !w.contains(x.settled) {
			continue
		}
		f.Settled++
		rounds += x.rounds
		f.Rounds[min(x.rounds, 5)-1]++
		f.countOutcome(x)
		if (x.outcome == autoResolved || x.outcome == resolvedWithPerson) && !x.created.IsZero() {
			resolves = append(resolves, x.settled.Sub(x.created).Seconds())
		}
	}
	if f.Settled > 0 {
		f.AutoResolutionRate = ratio(f.AutoResolved, f.Settled)
		f.EscalationRate = ratio(f.Escalated, f.Settled)
		f.AverageRounds = ratio(rounds, f.Settled)
	}
	f.MedianAnswerSeconds = median(answers)
	f.MedianResolveSeconds = median(resolves)
	f.Memory = memoryFigures(in, w)
	f.Artifacts = artifactFigures(in, w)
	return f
}

// artifactFigures counts the stale findings the monitor announced in w.
func artifactFigures(in *Input, w Window) *ArtifactFigures {
	if in.Artifacts == nil {
		return nil
	}
	af := &ArtifactFigures{}
	for _, f := range in.Artifacts {
		for i := range f.Artifacts {
			a := &f.Artifacts[i]
			for _, n := range a.Notified {
				t, err := clock.Parse(n.At)
				if err != nil || !w.contains(t) {
					continue
				}
				if n.Status == artifact.Approved {
					af.StaleAfterReview++
				} else {
					af.StaleBeforeReview++
				}
			}
		}
	}
	return af
}

// countOutcome counts a record settled in f's window by how it settled.
func (f *Figures) countOutcome(x *fact) {
	switch x.outcome {
	case autoResolved:
		f.Resolved++
		f.AutoResolved++
	case resolvedWithPerson:
		f.Resolved++
		f.ResolvedWithPerson++
	case escalated:
		f.Escalated++
		switch x.escBy {
		case "monitor":
			f.EscalatedByMonitor++
		case "agent":
			f.EscalatedByAgent++
		default:
			f.EscalatedByPerson++
		}
		switch x.reason {
		case "stuck":
			f.Stuck++
		case "deadlock":
			f.Deadlocks++
		}
	case abandoned:
		f.Abandoned++
	}
}

// staleIn reports whether x went stale in w: by the event log, else (the
// log is bounded and may have lost it) by the monitor's mark.
func staleIn(x *fact, w Window, staleEvents map[string][]time.Time) bool {
	if times, ok := staleEvents[x.rec.ID]; ok {
		for _, t := range times {
			if w.contains(t) {
				return true
			}
		}
		return false
	}
	return w.contains(x.staleAt)
}

func memoryFigures(in *Input, w Window) MemoryFigures {
	var m MemoryFigures
	if in.Memory != nil {
		since, until := w.Since.UnixMilli(), w.Until.UnixMilli()
		for _, t := range in.Memory.Times {
			if t < until {
				m.StoreSize++
				if t >= since {
					m.Stored++
				}
			}
		}
	}
	misses := 0
	for _, e := range in.Events {
		if e.Type != events.MemoryRecalled || !w.contains(ts(e.Time)) {
			continue
		}
		var p events.MemoryPayload
		if json.Unmarshal(e.Payload, &p) != nil {
			continue
		}
		if p.Count == 0 {
			misses++
			continue
		}
		m.RecallEvents++
		m.Recalled += p.Count
	}
	if misses > 0 {
		m.RecallHitRate = ratio(m.RecallEvents, m.RecallEvents+misses)
	}
	m.Metrics = windowMetrics(in, w)
	if m.Metrics.RecallRuns > 0 {
		// The metrics lines count every recall, misses included.
		m.RecallHitRate = m.Metrics.RecallHitRate
	}
	return m
}

// windowMetrics sums the metrics of w: the weekly files when there are
// any (a file counts whole in the window holding its week's midpoint,
// Thursday noon: the Action's Monday run sums last week's), else the
// event log's lines.
func windowMetrics(in *Input, w Window) metrics.Report {
	if in.Weeks == nil {
		c, _ := metrics.Sum(in.Events, w.Since, w.Until)
		return metrics.NewReport(c, w.Since, w.Until)
	}
	var c metrics.Counters
	writers := map[string]bool{}
	for _, wk := range in.Weeks {
		start, ok := weekStart(wk.Week)
		if !ok || !w.contains(start.Add(84*time.Hour)) {
			continue
		}
		c.Add(wk.Counters)
		writers[wk.Writer] = true
	}
	r := metrics.NewReport(c, w.Since, w.Until)
	r.Writers = len(writers)
	return r
}

// weekStart is the Monday 00:00 UTC an ISO week name ("2026-W47") starts.
func weekStart(name string) (time.Time, bool) {
	var y, n int
	if _, err := fmt.Sscanf(name, "%4d-W%2d", &y, &n); err != nil || n < 1 || n > 53 {
		return time.Time{}, false
	}
	jan4 := time.Date(y, 1, 4, 0, 0, 0, 0, time.UTC)
	return metrics.WeekStart(jan4).AddDate(0, 0, 7*(n-1)), true
}

func ratio(a, b int) *float64 {
	v := math.Round(float64(a)/float64(b)*10000) / 10000
	return &v
}

func median(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	sort.Float64s(xs)
	m := xs[len(xs)/2]
	if len(xs)%2 == 0 {
		m = (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
	}
	m = math.Round(m)
	return &m
}

func checks(f Figures) []Check {
	boolp := func(b bool) *bool { return &b }
	var out []Check
	add := func(name, target string, v *float64, met func(float64) bool) {
		c := Check{Name: name, Target: target, Value: v}
		if v != nil {
			c.Met = boolp(met(*v))
		}
		out = append(out, c)
	}
	add("autoResolutionRate", "> 80%", f.AutoResolutionRate, func(v float64) bool { return v > TargetAutoResolution })
	add("escalationRate", "< 20%", f.EscalationRate, func(v float64) bool { return v < TargetEscalation })
	add("averageRounds", "2-3", f.AverageRounds, func(v float64) bool { return v >= TargetRoundsMin && v <= TargetRoundsMax })
	stale, dead := float64(f.Stale), float64(f.Deadlocks)
	add("stale", "0", &stale, func(v float64) bool { return v == 0 })
	add("deadlocks", "0", &dead, func(v float64) bool { return v == 0 })
	return out
}

// MaxWaiting caps each "needs a person" list.
const MaxWaiting = 10
