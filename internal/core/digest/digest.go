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
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/metrics"
	"github.com/agentx-dev/agentx/internal/core/shorten"
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

// Input is everything a digest is computed from.
type Input struct {
	Ledgers []*ledger.Ledger
	// Events is the event log (bounded: older windows may have none).
	Events []events.Event
	// Memory is nil when there is no memory store.
	Memory *MemoryInput
	// Weeks are the machines' weekly metrics files (the state branch; nil
	// locally, where the metrics come from the event log's lines).
	Weeks []*metrics.Week
	// Reviews are the pull requests GitHub says closed issues in the
	// current window (the Action; nil: not asked, no section).
	Reviews *ReviewInput
	// Artifacts are the issues' stage artifact ledgers (nil: none read,
	// no artifact figures).
	Artifacts []*artifact.File
	// Workflows derive each issue's stage from its artifacts (nil: no
	// stage table).
	Workflows *config.Set
	// Agents are the configured agent names. The requester and target of
	// every record count as agents too; any other `from` (besides the hub
	// agent-x) is a person, e.g. a GitHub login answering on an issue.
	Agents map[string]bool
}

// MemoryInput is the memory store as the digest needs it.
type MemoryInput struct {
	// Times are the epoch milliseconds of every stored observation.
	Times []int64
	// Tokens is the store's total token estimate.
	Tokens int
}

// Options chooses the window and the presentation.
type Options struct {
	// Since and Until bound the window [Since, Until).
	Since, Until time.Time
	// Now dates the waits of the "needs a person" list (Until when zero).
	Now time.Time
	// IssueURL links an issue number ("" renders #N).
	IssueURL func(n int) string
}

// Window is a half-open time range.
type Window struct {
	Since time.Time `json:"-"`
	Until time.Time `json:"-"`
}

// MarshalJSON writes the bounds as reference timestamps.
func (w Window) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"since": clock.Format(w.Since), "until": clock.Format(w.Until),
		"days": math.Round(w.Until.Sub(w.Since).Hours()/24*100) / 100})
}

func (w Window) contains(t time.Time) bool {
	return !t.IsZero() && !t.Before(w.Since) && t.Before(w.Until)
}

// Figures are one window's numbers. Every settled clarification has one
// outcome, fixed when it first settled: escalated (an escalation entry, even
// if a person resolved it later), resolved or abandoned. Rates are over the
// clarifications settled in the window and are null when none settled.
type Figures struct {
	Opened int `json:"opened"`
	// Settled = Resolved + Escalated + Abandoned.
	Settled   int `json:"settled"`
	Resolved  int `json:"resolved"`
	Escalated int `json:"escalated"`
	Abandoned int `json:"abandoned"`
	// AutoResolved are resolved clarifications without any human entry.
	AutoResolved int `json:"autoResolved"`
	// ResolvedWithPerson are resolved ones in which a person wrote.
	ResolvedWithPerson int `json:"resolvedWithPerson"`
	// By who wrote the escalation entry: the hub (the monitor, the round
	// limit, a failed responder), an agent, or a person.
	EscalatedByMonitor int `json:"escalatedByMonitor"`
	EscalatedByAgent   int `json:"escalatedByAgent"`
	EscalatedByPerson  int `json:"escalatedByPerson"`
	// StillOpen are the clarifications opened before the window's end and
	// not settled by then.
	StillOpen          int      `json:"stillOpen"`
	AutoResolutionRate *float64 `json:"autoResolutionRate"`
	EscalationRate     *float64 `json:"escalationRate"`
	AverageRounds      *float64 `json:"averageRounds"`
	// Rounds counts settled clarifications by rounds: 1, 2, 3, 4, 5+.
	Rounds               [5]int   `json:"roundsDistribution"`
	MedianAnswerSeconds  *float64 `json:"medianAnswerSeconds"`
	MedianResolveSeconds *float64 `json:"medianResolveSeconds"`
	// Stale: clarifications that missed their SLA in the window; Stuck and
	// Deadlocks: the monitor's escalations for repeated questions and for
	// wait-for cycles broken.
	Stale     int           `json:"stale"`
	Stuck     int           `json:"stuck"`
	Deadlocks int           `json:"deadlocksBroken"`
	Memory    MemoryFigures `json:"memory"`
	// Artifacts are the stage artifacts' figures (null: no artifact
	// ledgers were read).
	Artifacts *ArtifactFigures `json:"artifacts,omitempty"`
}

// ArtifactFigures count the upstream changes the monitor found in a
// window: StaleBeforeReview those whose stale artifact was not approved
// yet (the misunderstanding caught before a review), StaleAfterReview
// those that made an approved artifact stale (found after): seed 004's
// stand-in for the review rejections a misunderstanding causes.
type ArtifactFigures struct {
	StaleBeforeReview int `json:"staleBeforeReview"`
	StaleAfterReview  int `json:"staleAfterReview"`
}

// MemoryFigures are the memory store's numbers for a window.
type MemoryFigures struct {
	Stored int `json:"observationsStored"`
	// Recalled counts observations shown at session starts (memory-recalled
	// events); RecallEvents the session starts that recalled any.
	Recalled     int `json:"observationsRecalled"`
	RecallEvents int `json:"recallEvents"`
	// StoreSize is the number of observations at the window's end.
	StoreSize int `json:"storeSize"`
	// RecallHitRate is the share of recalls that found anything; null
	// while misses are not logged (agentx logs only recalls that found some).
	RecallHitRate *float64 `json:"recallHitRate"`
	// Metrics are the measured figures of seed 000 §12 summed over the
	// window: the event log's metrics lines, or (the Action) the weekly
	// files of every machine whose ISO week starts in the window.
	Metrics metrics.Report `json:"metrics"`
}

// Check is one SPEC target and whether the window met it (null: no data).
type Check struct {
	Name   string   `json:"name"`
	Target string   `json:"target"`
	Value  *float64 `json:"value"`
	Met    *bool    `json:"met"`
}

// Pair is the figures of one requester -> target pair.
type Pair struct {
	From          string   `json:"from"`
	To            string   `json:"to"`
	Opened        int      `json:"opened"`
	Settled       int      `json:"settled"`
	AutoResolved  int      `json:"autoResolved"`
	Escalated     int      `json:"escalated"`
	AverageRounds *float64 `json:"averageRounds"`
	rounds        int
}

// IssueRow is the figures of one issue.
type IssueRow struct {
	Issue     int    `json:"issue"`
	URL       string `json:"url,omitempty"`
	Opened    int    `json:"opened"`
	Settled   int    `json:"settled"`
	Escalated int    `json:"escalated"`
	StillOpen int    `json:"stillOpen"`
}

// Topic is a topic asked about more than once in the window.
type Topic struct {
	Topic  string `json:"topic"`
	Count  int    `json:"count"`
	Issues []int  `json:"issues"`
}

// TrendPoint is one earlier window of the trend, oldest first.
type TrendPoint struct {
	Week               string   `json:"week"`
	Opened             int      `json:"opened"`
	Settled            int      `json:"settled"`
	AutoResolutionRate *float64 `json:"autoResolutionRate"`
	EscalationRate     *float64 `json:"escalationRate"`
}

// Waiting is a clarification that needs a person: escalated and not
// closed since, or open and waiting longest.
type Waiting struct {
	ID          string `json:"id"`
	Issue       int    `json:"issue"`
	URL         string `json:"url,omitempty"`
	From        string `json:"from"`
	To          string `json:"to"`
	Topic       string `json:"topic"`
	Status      string `json:"status"`
	Blocking    bool   `json:"blocking"`
	Since       string `json:"since"`
	WaitSeconds int64  `json:"waitSeconds"`
}

// Report is a digest.
type Report struct {
	SchemaVersion int    `json:"schemaVersion"`
	Week          string `json:"week"`
	// Window and Previous are the window and the one before, same length.
	Window   Window  `json:"window"`
	Previous Window  `json:"previousWindow"`
	Current  Figures `json:"current"`
	Prior    Figures `json:"previous"`
	Checks   []Check `json:"targets"`
	// Pairs, Issues and Topics cover the current window.
	Pairs  []Pair       `json:"pairs"`
	Issues []IssueRow   `json:"issues"`
	Topics []Topic      `json:"recurringTopics"`
	Trend  []TrendPoint `json:"trend"`
	// Escalations waiting for a person, oldest first; Longest the open
	// clarifications waiting longest for an answer.
	Escalations []Waiting `json:"escalationsWaiting"`
	Longest     []Waiting `json:"longestWaits"`
	// MemoryTokens is the store's size now in tokens (0: no store). Its
	// size on disk is `memory stats`'s: measuring it walks every file.
	MemoryTokens int `json:"memoryTokens"`
	// Reviews are the review figures of the current window (seed 002 §1;
	// null when not asked: only the Action reads GitHub).
	Reviews *ReviewFigures `json:"reviewRejections"`
	// Stages are the issues' stages now, the stale first (stages.go;
	// absent without artifact ledgers).
	Stages []StageRow `json:"stages,omitempty"`
}

// outcome of a settled clarification.
type outcome int

const (
	open outcome = iota
	autoResolved
	resolvedWithPerson
	escalated
	abandoned
)

// fact is what the digest knows of one record, computed once.
type fact struct {
	rec      *ledger.Record
	created  time.Time
	settled  time.Time // zero while open
	outcome  outcome
	escBy    string // "monitor", "agent", "person"
	reason   string // the monitor's reason, if it escalated
	rounds   int
	answers  []answerTime
	staleAt  time.Time // when a round went stale, from the ledger's mark
	waitFrom time.Time // since when the current round waits
}

type answerTime struct{ asked, answered time.Time }

// Monitor record keys (internal/core/monitor keeps them; the digest reads
// them without importing the monitor's acting side).
const (
	staleRoundKey = "staleRound"
	reasonKey     = "monitorReason"
)

func ts(s string) time.Time { t, _ := clock.Parse(s); return t }

// roundLog holds, per round (1-based), when its question was asked and
// whether it was answered. Slices, not maps: a digest builds this for
// every record.
type roundLog struct {
	asked    []time.Time
	answered []bool
}

// grown is l with room for round (a value, not a pointer method: the
// buffers behind l stay on the caller's stack).
func (l roundLog) grown(round int) roundLog {
	for round >= len(l.asked) {
		l.asked, l.answered = append(l.asked, time.Time{}), append(l.answered, false)
	}
	return l
}

func factOf(r *ledger.Record, isAgent func(string) bool) fact {
	f := fact{rec: r, created: r.CreatedTime(), rounds: r.Round}
	var askedBuf [8]time.Time
	var answeredBuf [8]bool
	l := roundLog{askedBuf[:], answeredBuf[:]}
	if !f.created.IsZero() {
		l.asked[1] = f.created
	}
	// By value in and out, so the buffers stay on the stack.
	l, m := f.readThread(l, isAgent)
	if f.rounds < 1 {
		f.rounds = 1
	}
	f.settle(m, isAgent)
	// The monitor marks the round whose SLA it found missed; the round's
	// question dates it when the event log no longer does.
	if raw := r.ExtraValue(staleRoundKey); raw != nil {
		var n int
		if json.Unmarshal(raw, &n) == nil && n >= 0 {
			l = l.grown(n)
			f.staleAt = l.asked[n]
			if f.staleAt.IsZero() {
				f.staleAt = f.created
			}
		}
	}
	l = l.grown(f.rounds)
	f.waitFrom = l.asked[f.rounds]
	if f.waitFrom.IsZero() {
		f.waitFrom = f.created
	}
	if r.Status == ledger.Answered {
		// The requester owes the next step: the wait began at the answer.
		if e := r.LastOf(ledger.Answer); e != nil && !ts(e.Timestamp).IsZero() {
			f.waitFrom = ts(e.Timestamp)
		}
	}
	return f
}

// threadMarks is what settling a record needs from its thread.
type threadMarks struct {
	human             bool // a person (neither the hub nor an agent) wrote in it
	firstEsc, lastRes *ledger.Entry
}

// readThread walks f's thread once: the rounds and their answer times go
// into f and l.
func (f *fact) readThread(l roundLog, isAgent func(string) bool) (roundLog, threadMarks) {
	var m threadMarks
	for i := range f.rec.Thread {
		e := &f.rec.Thread[i]
		if e.Round > f.rounds {
			f.rounds = e.Round
		}
		if e.From != ledger.HubName && !isAgent(e.From) {
			m.human = true
		}
		if e.Round < 0 {
			continue
		}
		l = l.grown(e.Round)
		t := ts(e.Timestamp)
		switch e.Type {
		case ledger.Question:
			if l.asked[e.Round].IsZero() || !t.IsZero() && t.Before(l.asked[e.Round]) {
				l.asked[e.Round] = t
			}
		case ledger.Answer:
			if !l.answered[e.Round] && !l.asked[e.Round].IsZero() && !t.IsZero() {
				l.answered[e.Round] = true
				f.answers = append(f.answers, answerTime{l.asked[e.Round], t})
			}
		case ledger.Escalation:
			if m.firstEsc == nil {
				m.firstEsc = e
			}
		case ledger.Resolution:
			m.lastRes = e
		}
	}
	return l, m
}

// settle sets how and when f's record was closed.
func (f *fact) settle(m threadMarks, isAgent func(string) bool) {
	r, firstEsc, lastRes := f.rec, m.firstEsc, m.lastRes
	switch {
	case firstEsc != nil:
		f.outcome, f.settled, f.escBy = escalated, ts(firstEsc.Timestamp), escalator(firstEsc.From, isAgent)
		var reason string // not &f.reason: that would move f to the heap
		if raw := r.ExtraValue(reasonKey); raw != nil {
			_ = json.Unmarshal(raw, &reason)
		}
		f.reason = reason
	case r.Status == ledger.Resolved:
		f.outcome = autoResolved
		if m.human {
			f.outcome = resolvedWithPerson
		}
		if r.ResolvedAt != nil {
			f.settled = ts(*r.ResolvedAt)
		}
		if f.settled.IsZero() && lastRes != nil {
			f.settled = ts(lastRes.Timestamp)
		}
	case r.Status == ledger.Abandoned:
		f.outcome = abandoned
		if lastRes != nil {
			f.settled = ts(lastRes.Timestamp)
		}
		if f.settled.IsZero() && r.ResolvedAt != nil {
			f.settled = ts(*r.ResolvedAt)
		}
	}
	if f.outcome != open && f.settled.IsZero() {
		// A closed record without a readable time settled no later than
		// it was created, as far as anyone can tell.
		f.settled = f.created
	}
}

// escalator names who escalated: the monitor (as the hub), an agent or a
// person.
func escalator(from string, isAgent func(string) bool) string {
	switch {
	case from == ledger.HubName:
		return "monitor"
	case isAgent(from):
		return "agent"
	default:
		return "person"
	}
}

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

func pairs(facts []fact, w Window) []Pair {
	idx := map[[2]string]*Pair{}
	var order []*Pair
	for i := range facts {
		x := &facts[i]
		opened, settled := w.contains(x.created), x.outcome != open && w.contains(x.settled)
		if !opened && !settled {
			continue
		}
		k := [2]string{x.rec.From, x.rec.To}
		p := idx[k]
		if p == nil {
			p = &Pair{From: k[0], To: k[1]}
			idx[k] = p
			order = append(order, p)
		}
		if opened {
			p.Opened++
		}
		if settled {
			p.Settled++
			p.rounds += x.rounds
			switch x.outcome {
			case autoResolved:
				p.AutoResolved++
			case escalated:
				p.Escalated++
			}
		}
	}
	out := make([]Pair, 0, len(order))
	for _, p := range order {
		if p.Settled > 0 {
			p.AverageRounds = ratio(p.rounds, p.Settled)
		}
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Opened+out[i].Settled, out[j].Opened+out[j].Settled
		if a != b {
			return a > b
		}
		if out[i].From != out[j].From {
			return out[i].From < out[j].From
		}
		return out[i].To < out[j].To
	})
	return out
}

func issueRows(facts []fact, w Window, link func(int) string) []IssueRow {
	idx := map[int]*IssueRow{}
	for i := range facts {
		x := &facts[i]
		opened, settled := w.contains(x.created), x.outcome != open && w.contains(x.settled)
		stillOpen := !x.created.IsZero() && x.created.Before(w.Until) && (x.outcome == open || !x.settled.Before(w.Until))
		if !opened && !settled && !stillOpen {
			continue
		}
		n := x.rec.IssueNumber
		r := idx[n]
		if r == nil {
			r = &IssueRow{Issue: n, URL: link(n)}
			idx[n] = r
		}
		if opened {
			r.Opened++
		}
		if settled {
			r.Settled++
			if x.outcome == escalated {
				r.Escalated++
			}
		}
		if stillOpen {
			r.StillOpen++
		}
	}
	out := make([]IssueRow, 0, len(idx))
	for _, r := range idx {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Opened+out[i].Settled+out[i].StillOpen, out[j].Opened+out[j].Settled+out[j].StillOpen
		if a != b {
			return a > b
		}
		return out[i].Issue < out[j].Issue
	})
	return out
}

// normTopic folds case and spacing so "Auth flow" and "auth  flow" recur.
func normTopic(s string) string { return strings.ToLower(shorten.Flatten(s)) }

func topics(facts []fact, w Window) []Topic {
	type acc struct {
		t      Topic
		issues map[int]bool
	}
	idx := map[string]*acc{}
	for i := range facts {
		x := &facts[i]
		if !w.contains(x.created) {
			continue
		}
		k := normTopic(x.rec.Topic)
		if k == "" {
			continue
		}
		a := idx[k]
		if a == nil {
			a = &acc{t: Topic{Topic: k}, issues: map[int]bool{}}
			idx[k] = a
		}
		a.t.Count++
		a.issues[x.rec.IssueNumber] = true
	}
	var out []Topic
	for _, a := range idx {
		if a.t.Count < 2 {
			continue
		}
		for n := range a.issues {
			a.t.Issues = append(a.t.Issues, n)
		}
		sort.Ints(a.t.Issues)
		out = append(out, a.t)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Topic < out[j].Topic
	})
	if len(out) == 0 {
		out = []Topic{}
	}
	return out
}

// trend is up to TrendWindows windows of the current length ending with the
// current one, starting at the first that has any clarification; empty
// when only the current and previous windows have history.
func trend(facts []fact, cur Window, in *Input) []TrendPoint {
	length := cur.Until.Sub(cur.Since)
	var earliest time.Time
	for i := range facts {
		if c := facts[i].created; !c.IsZero() && (earliest.IsZero() || c.Before(earliest)) {
			earliest = c
		}
	}
	if earliest.IsZero() || !earliest.Before(cur.Since.Add(-length)) {
		return []TrendPoint{}
	}
	out := []TrendPoint{}
	for k := TrendWindows - 1; k >= 0; k-- {
		w := Window{cur.Since.Add(-time.Duration(k) * length), cur.Until.Add(-time.Duration(k) * length)}
		if !earliest.Before(w.Until) {
			continue
		}
		f := figures(facts, w, nil, &Input{})
		out = append(out, TrendPoint{Week: WeekOf(w), Opened: f.Opened, Settled: f.Settled,
			AutoResolutionRate: f.AutoResolutionRate, EscalationRate: f.EscalationRate})
	}
	return out
}

// MaxWaiting caps each "needs a person" list.
const MaxWaiting = 10

func waiting(facts []fact, now time.Time, link func(int) string) (esc, longest []Waiting) {
	esc, longest = []Waiting{}, []Waiting{}
	for i := range facts {
		x := &facts[i]
		r := x.rec
		w := Waiting{ID: r.ID, Issue: r.IssueNumber, URL: link(r.IssueNumber), From: r.From, To: r.To, Topic: r.Topic,
			Status: string(r.Status), Blocking: r.Blocking}
		switch {
		case r.Status == ledger.Escalated:
			w.Since, w.WaitSeconds = clock.Format(x.settled), int64(now.Sub(x.settled).Seconds())
			esc = append(esc, w)
		case r.Status.Open():
			w.Since, w.WaitSeconds = clock.Format(x.waitFrom), int64(now.Sub(x.waitFrom).Seconds())
			longest = append(longest, w)
		}
	}
	byWait := func(ws []Waiting) {
		sort.Slice(ws, func(i, j int) bool {
			if ws[i].Blocking != ws[j].Blocking {
				return ws[i].Blocking
			}
			if ws[i].WaitSeconds != ws[j].WaitSeconds {
				return ws[i].WaitSeconds > ws[j].WaitSeconds
			}
			return ws[i].ID < ws[j].ID
		})
	}
	byWait(esc)
	byWait(longest)
	if len(esc) > MaxWaiting {
		esc = esc[:MaxWaiting]
	}
	if len(longest) > MaxWaiting {
		longest = longest[:MaxWaiting]
	}
	return esc, longest
}
