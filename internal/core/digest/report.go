package digest

import (
	"encoding/json"
	"math"
	"time"

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/metrics"
)

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
