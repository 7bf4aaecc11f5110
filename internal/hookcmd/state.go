package hookcmd

import (
	"context"
	"fmt"
	"io"

	"github.com/agentx-dev/agentx/internal/core/agentstatus"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/render"
)

func parseState(a *App, args []string) (*jsonOnlyOptions, error) {
	return parseJSONOnly("state", "state [--json]\n\nAgent statuses from .agentx/state/agent-status.json.")(a, args)
}

func runState(_ context.Context, a *App, o *jsonOnlyOptions) error {
	f, err := agentstatus.Load(a.Workspace().AgentStatusFile())
	if err != nil {
		return err
	}
	entries := f.Sorted()
	if o.JSON {
		return a.writeDoc(&agentstatus.Doc{Agents: f.ByAgent()})
	}
	if len(entries) == 0 {
		fmt.Fprintln(a.Stdout, "No agent statuses yet.")
		return nil
	}
	_, err = io.WriteString(a.Stdout, render.AgentTable(entries, a.Clock.Now()))
	return err
}

// eventsOptions is `events`'s command line.
type eventsOptions struct {
	Since string // a duration before now, or a date
	jsonFlag
}

func parseEvents(a *App, args []string) (*eventsOptions, error) {
	o := &eventsOptions{}
	flags := newFlags(a, "events", "events [--since DURATION] [--json]\n\nThe event log (.agentx/state/events.jsonl), oldest first.")
	flags.StringVar(&o.Since, "since", "", "only events newer than `DURATION` (7d, 12h, 30m) or at/after a date (2026-03-01, ISO 8601)")
	o.register(flags)
	return o, parseFlagsOnly(flags, args)
}

func runEvents(_ context.Context, a *App, o *eventsOptions) error {
	// The same forms as memory search --since, so 7d works in both.
	from, err := parseWhen(a, o.Since)
	if err != nil {
		return err
	}
	evs, skipped, err := a.Events().ReadSkipped(from)
	if err != nil {
		return err
	}
	if skipped.Count > 0 {
		a.warn("skipped %d unreadable line(s) in %s: %s", skipped.Count, a.Workspace().EventsFile(), skipped)
	}
	doc := events.NewDoc(evs)
	return a.emit(o.JSON, doc, doc.Text())
}
