package hookcmd

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/localissue"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// readyIssue is one line of `ready`.
type readyIssue struct {
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
	waits      []string
	escalated  []string
}

var parseReady = parseNoArgs("ready", "ready [--json]\n\nIssues known locally (clarification ledgers, memory, .agentx/issues/*.json), with\n[BLOCKED: Clarification pending] where a blocking clarification waits for an answer\nand [WAITING FOR A PERSON] where a blocking one was escalated.")

type readyDoc struct {
	Issues []*readyIssue `json:"issues"`
	schemaVersion
}

func runReady(ctx context.Context, a *App, o *jsonOnlyOptions) error {
	rt, err := a.Router()
	if err != nil {
		return err
	}
	mon := monitor.New(rt)
	rep, err := mon.Check(ctx)
	if err != nil {
		return err
	}
	a.printActions(rep, true)
	open := rep.Open
	if len(rep.Actions) > 0 {
		if scan, err := mon.Scanner.Scan(); err == nil {
			open = scan.Open
		}
	}
	issues := map[int]*readyIssue{}
	get := func(n int, source string) *readyIssue {
		ri := issues[n]
		if ri == nil {
			ri = &readyIssue{Issue: n, Pending: []string{}, Escalated: []string{}}
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
	ws := a.Workspace()
	for _, n := range issueFiles(ws.MemoryDir()) {
		get(n, "memory")
	}
	a.readIssueFiles(ws, get)
	for _, r := range open {
		if r.Blocking && r.Status.Waiting() {
			ri := get(r.IssueNumber, "ledger")
			ri.Blocked = true
			ri.Pending = append(ri.Pending, r.ID)
			ri.waits = append(ri.waits, fmt.Sprintf("%s %s waits on %s", r.ID, r.From, r.To))
			ri.WaitingFor = "agent"
		}
	}
	// Escalated records are closed to the monitor (its scan keeps only
	// open ones), so they come from the ledgers themselves; the check
	// above has warned about any that do not load.
	escalated, err := a.records(func(r *ledger.Record) bool { return r.Blocking && r.Status == ledger.Escalated }, false)
	if err != nil {
		return err
	}
	for _, r := range escalated {
		ri := get(r.IssueNumber, "ledger")
		ri.Blocked = true
		ri.WaitingFor = "person"
		ri.Escalated = append(ri.Escalated, r.ID)
		ri.escalated = append(ri.escalated, fmt.Sprintf("%s %s -> %s escalated", r.ID, r.From, r.To))
	}
	list := make([]*readyIssue, 0, len(issues))
	for _, ri := range issues {
		list = append(list, ri)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Issue < list[j].Issue })
	if o.JSON {
		return a.writeDoc(&readyDoc{Issues: list})
	}
	a.printReady(list)
	return nil
}

// printReady prints `ready`'s lines: who an issue waits for, or ready.
func (a *App) printReady(list []*readyIssue) {
	if len(list) == 0 {
		fmt.Fprintln(a.Stdout, "No issues known locally.")
		return
	}
	st := a.Style()
	for _, ri := range list {
		line := fmt.Sprintf("#%-5d", ri.Issue)
		if ri.Title != "" {
			line += " " + ri.Title
		}
		if ri.Status != "" {
			line += " (" + ri.Status + ")"
		}
		if len(ri.escalated) > 0 {
			line += " " + st.Red("[WAITING FOR A PERSON]") + " " + strings.Join(ri.escalated, "; ")
		}
		if len(ri.waits) > 0 {
			line += " " + st.Red("[BLOCKED: Clarification pending]") + " " + strings.Join(ri.waits, "; ")
		}
		if !ri.Blocked {
			line += " " + st.Green("ready")
		}
		fmt.Fprintln(a.Stdout, line)
	}
}

// issueFiles lists the issues the memory store in dir has a file for.
func issueFiles(dir string) []int {
	issues, _ := memory.New(dir, nil, nil).Issues() // unreadable: ready lists the rest
	return issues
}

// readIssueFiles adds the issues of `.agentx/issues/N.json` (or
// issue-N.json), with their title and status when the file has them.
func (a *App) readIssueFiles(ws workspace.Workspace, get func(int, string) *readyIssue) {
	dir := ws.IssuesDir()
	issues, err := localissue.Read(dir)
	if err != nil {
		a.warn("list %s: %v", dir, err)
		return
	}
	for _, is := range issues {
		ri := get(is.Number, "issues")
		if is.Invalid {
			a.warn("%s is not valid JSON; listing issue #%d without its title", is.Path, is.Number)
			continue
		}
		ri.Title, ri.Status = is.Title, is.Status
	}
}
