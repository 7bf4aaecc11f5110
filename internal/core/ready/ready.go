// Package ready owns the ready queue: the issues known locally (from the
// clarification ledgers, the memory store and `.agentx/issues/`), each with
// the blocking markers of its clarifications. `agentx-hook ready` prints it
// and the MCP server's `ready` tool returns it.
package ready

import (
	"context"
	"fmt"
	"github.com/agentx-dev/agentx/internal/core/artifact"
	"sort"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/localissue"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Issue is one issue of the queue.
type Issue struct {
	Issue   int    `json:"issueNumber"`
	Title   string `json:"title,omitempty"`
	Status  string `json:"status,omitempty"`
	Blocked bool   `json:"blocked"`
	// WaitingFor says who must act on a blocked issue: "person" when a
	// blocking record was escalated (no agent can unblock it), else
	// "agent" (a target owes an answer).
	WaitingFor string   `json:"waitingFor,omitempty"`
	Pending    []string `json:"pendingClarifications"`
	Escalated  []string `json:"escalatedClarifications"`
	Sources    []string `json:"sources"`
	// Unreadable is an issue whose ledger does not parse: its blocking
	// clarifications cannot be read, so it is never called ready.
	Unreadable bool `json:"unreadable,omitempty"`
	// Waits and EscalatedLines say who waits on whom, one line per
	// record, as the text output shows them.
	Waits          []string `json:"-"`
	EscalatedLines []string `json:"-"`
	// Stage is where the issue stands in its workflow, derived from the
	// workflow, its artifacts and its clarifications (issues with
	// artifacts only); StaleArtifacts are its stale artifacts.
	Stage          *artifact.Stage    `json:"stage,omitempty"`
	StaleArtifacts []artifact.Finding `json:"staleArtifacts,omitempty"`
}

// Report is one build of the queue.
type Report struct {
	Issues []*Issue
	// Monitor is the check run first (its actions and warnings are the
	// caller's to show).
	Monitor *monitor.Report
	// Warnings are issue files read without their title.
	Warnings []string
}

// Load runs one monitor check through mon, then lists every issue known
// in ws, blocked where a blocking clarification waits for an agent or
// was escalated to a person.
func Load(ctx context.Context, mon *monitor.Monitor, ws workspace.Workspace) (*Report, error) {
	rep, err := mon.Check(ctx)
	if err != nil {
		return nil, err
	}
	out := &Report{Monitor: rep}
	open := mon.OpenNow(rep)
	issues := map[int]*Issue{}
	get := func(n int, source string) *Issue {
		ri := issues[n]
		if ri == nil {
			ri = &Issue{Issue: n, Pending: []string{}, Escalated: []string{}}
			issues[n] = ri
		}
		if len(ri.Sources) == 0 || ri.Sources[len(ri.Sources)-1] != source {
			ri.Sources = append(ri.Sources, source)
		}
		return ri
	}
	for _, n := range rep.Issues {
		get(n, "ledger")
	}
	memIssues, _ := memory.New(ws.MemoryDir(), nil, nil).Issues() // unreadable: the rest is listed
	for _, n := range memIssues {
		get(n, "memory")
	}
	out.Warnings = readIssueFiles(ws, get)
	for _, r := range open {
		if r.Blocking && r.Status.Waiting() {
			ri := get(r.IssueNumber, "ledger")
			ri.Blocked = true
			ri.Pending = append(ri.Pending, r.ID)
			ri.Waits = append(ri.Waits, fmt.Sprintf("%s %s waits on %s", r.ID, r.From, r.To))
			ri.WaitingFor = "agent"
		}
	}
	// Escalated records are closed to the monitor (its scan keeps only
	// open ones), so they come from the ledgers themselves; the check
	// above has warned about any that do not load.
	loaded, err := mon.Router.Ledgers.LoadAll()
	if err != nil {
		return nil, err
	}
	for _, l := range loaded {
		if l.Err != nil {
			get(l.Issue, "ledger").Unreadable = true // the check above warned
			continue
		}
		for _, r := range l.Ledger.Clarifications {
			if !r.Blocking || r.Status != ledger.Escalated {
				continue
			}
			ri := get(r.IssueNumber, "ledger")
			ri.Blocked = true
			ri.WaitingFor = "person"
			ri.Escalated = append(ri.Escalated, r.ID)
			ri.EscalatedLines = append(ri.EscalatedLines, fmt.Sprintf("%s %s -> %s escalated", r.ID, r.From, r.To))
		}
	}
	out.Warnings = append(out.Warnings, stages(mon, ws, open, get)...)
	out.Issues = make([]*Issue, 0, len(issues))
	for _, ri := range issues {
		out.Issues = append(out.Issues, ri)
	}
	sort.Slice(out.Issues, func(i, j int) bool { return out.Issues[i].Issue < out.Issues[j].Issue })
	return out, nil
}

// readIssueFiles adds the issues of `.agentx/issues/N.json` (or
// issue-N.json), with their title and status when the file has them, and
// returns what could not be read.
func readIssueFiles(ws workspace.Workspace, get func(int, string) *Issue) []string {
	dir := ws.IssuesDir()
	issues, err := localissue.Read(dir)
	if err != nil {
		return []string{fmt.Sprintf("list %s: %v", dir, err)}
	}
	var warnings []string
	for _, is := range issues {
		ri := get(is.Number, "issues")
		if is.Invalid {
			warnings = append(warnings, fmt.Sprintf("%s is not valid JSON; listing issue #%d without its title", is.Path, is.Number))
			continue
		}
		ri.Title, ri.Status = is.Title, is.Status
	}
	return warnings
}

// stages adds the stage and stale artifacts of every issue with an
// artifact ledger; the agents that asked an open clarification on it are
// at work, its blocking ones waiting for an answer block it.
func stages(mon *monitor.Monitor, ws workspace.Workspace, open []ledger.Record, get func(int, string) *Issue) []string {
	// One scan: the ledgers nobody wrote since the last one come from its
	// index (500 issues' ledgers are not decoded on every `ready`).
	sc, err := (&artifact.Store{WS: ws}).Scan()
	if err != nil {
		return []string{err.Error()}
	}
	var warnings []string
	for _, e := range sc.Warnings {
		warnings = append(warnings, e.Error())
	}
	// The open clarifications by issue, once (not once per ledger).
	byIssue := map[int][]*ledger.Record{}
	for i := range open {
		byIssue[open[i].IssueNumber] = append(byIssue[open[i].IssueNumber], &open[i])
	}
	cfg := mon.Router.Config
	for i := range sc.Summaries {
		sum := &sc.Summaries[i]
		ri := get(sum.Issue, "artifacts")
		ri.StaleArtifacts = sum.Findings
		if cfg == nil {
			continue
		}
		wf, ok := sum.WorkflowIn(cfg, cfg.Config.DefaultWorkflow)
		if !ok {
			continue
		}
		active := map[string]bool{}
		var blocked []string
		for _, r := range byIssue[sum.Issue] {
			active[r.From] = true
			if r.Blocking && r.Status.Waiting() {
				blocked = append(blocked, r.ID)
			}
		}
		st := sum.Stage(wf, active, blocked)
		ri.Stage = &st
	}
	return warnings
}
