package hookcmd

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/agentx-dev/agentx/internal/core/agentstatus"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/render"
)

func runState(_ context.Context, a *App, args []string) error {
	fs := newFlags(a, "state", "state [--json]\n\nAgent statuses from .agentx/state/agent-status.json.")
	asJSON := fs.Bool("json", false, "print one JSON document")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	f, err := agentstatus.Load(a.Workspace().AgentStatusFile())
	if err != nil {
		return err
	}
	entries := f.Sorted()
	if *asJSON {
		agents := map[string]agentstatus.Status{}
		for _, e := range entries {
			agents[e.Agent] = e.Status
		}
		return writeJSON(a.Stdout, map[string]any{"schema_version": SchemaVersion, "agents": agents})
	}
	if len(entries) == 0 {
		fmt.Fprintln(a.Stdout, "No agent statuses yet.")
		return nil
	}
	tw := tabwriter.NewWriter(a.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tSTATUS\tISSUE\tCLARIFICATION\tDETAIL\tLAST ACTIVITY")
	now := a.Clock.Now()
	for _, e := range entries {
		issue, clr, detail := "-", "-", ""
		if e.Issue != nil {
			issue = fmt.Sprintf("#%d", *e.Issue)
		}
		if e.ClarificationID != nil {
			clr = *e.ClarificationID
		}
		if e.WaitingOn != nil {
			detail = "waiting on " + *e.WaitingOn
		}
		if e.RespondingTo != nil {
			detail = "responding to " + *e.RespondingTo
		}
		age := "-"
		if t, err := clock.Parse(e.LastActivity); err == nil {
			age = render.Age(now.Sub(t)) + " ago"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Agent, e.Status.Status, issue, clr, detail, age)
	}
	return tw.Flush()
}

func runEvents(_ context.Context, a *App, args []string) error {
	fs := newFlags(a, "events", "events [--since DURATION] [--json]\n\nThe event log (.agentx/state/events.jsonl), oldest first.")
	since := fs.String("since", "", "only events newer than `DURATION` (7d, 12h, 30m) or at/after a date (2026-03-01, ISO 8601)")
	asJSON := fs.Bool("json", false, "print one JSON document")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	// The same forms as memory search --since, so 7d works in both.
	from, err := parseWhen(a, *since)
	if err != nil {
		return err
	}
	evs, skipped, err := a.Events().Read(from)
	if err != nil {
		return err
	}
	if skipped > 0 {
		a.warn("skipped %d unreadable line(s) in %s", skipped, a.Workspace().EventsFile())
	}
	if *asJSON {
		return writeJSON(a.Stdout, map[string]any{"schema_version": SchemaVersion, "events": nonNil(evs)})
	}
	if len(evs) == 0 {
		fmt.Fprintln(a.Stdout, "No events.")
		return nil
	}
	for _, e := range evs {
		fmt.Fprintf(a.Stdout, "%s  %-24s %s\n", e.Time, e.Type, string(e.Payload))
	}
	return nil
}
