package hookcmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/capture"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/delivery"
	"github.com/agentx-dev/agentx/internal/core/hooklog"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/session"
)

const hookDeliverUsage = `hook deliver [--agent A] [--format text|json|claude|codex|copilot] [--event E]

What a host runs mid-session (Claude Code UserPromptSubmit, PostToolUse and
Stop; Codex UserPromptSubmit and PostToolUse; Copilot CLI userPromptSubmitted
and postToolUse; setup wires them, and Codex's Stop and Copilot's agentStop
run hook finish, which does the stop's part): the answers, resolutions and
escalations of the agent's own
clarifications that arrived since the session last heard, delivered once into
the model's next request (id, question, answer, who; stored text quoted as
data), the receipt written in the ledger. Two sessions of one agent at once
get each answer once, in one of them.

When nothing is new it reads two small stamp files and exits: no ledger is
opened. At a stop (Stop, agentStop) only the answer of the agent's own
blocking question is delivered, as the reason to go on (decision: block);
other news waits for the next prompt or tool call.

The session is the payload's session_id (sessionId); the agent is --agent,
else $AGENTX_AGENT, else the payload's agent_type, else [hooks]
default_agent. --event names the host event when the payload names none
(Copilot CLI). Like every hook it never blocks the host: whatever goes wrong
is one warning on stderr and exit 0.`

// hookDeliverOptions is the command line of `hook deliver`.
type hookDeliverOptions struct {
	Agent  string
	Event  string
	Format string
}

func parseHookDeliver(a *App, args []string) (*hookDeliverOptions, error) {
	o := &hookDeliverOptions{}
	flags := newFlags(a, "hook deliver", hookDeliverUsage)
	flags.StringVar(&o.Agent, "agent", "", "the agent `name` (else $AGENTX_AGENT, else the payload's agent_type, else [hooks] default_agent)")
	flags.StringVar(&o.Format, "format", "text", "output `form`: text, json, claude, codex or copilot (the host's hook output)")
	flags.StringVar(&o.Event, "event", "", "the host `event` when the payload names none (Copilot: userPromptSubmitted, postToolUse, agentStop)")
	json := flags.Bool("json", false, "same as --format json")
	pos, err := parse(flags, args)
	if err != nil {
		return o, err
	}
	if *json {
		o.Format = "json"
	}
	if len(pos) > 0 {
		return o, usagef("hook deliver takes no positional arguments (got %q)", pos[0])
	}
	switch o.Format {
	case "text", "json", "claude", "codex", "copilot":
	default:
		return o, usagef("--format must be text, json, claude, codex or copilot (got %q)", o.Format)
	}
	if o.Agent == "" {
		o.Agent = a.Getenv("AGENTX_AGENT")
	}
	return o, nil
}

// deliverWait bounds the wait for the payload of a deliver hook: the
// hosts write it at once, and a prompt must never wait on us.
const deliverWait = time.Second

// deliverBudget bounds a delivery with news (ledger locks included).
const deliverBudget = 3 * time.Second

func runHookDeliver(ctx context.Context, a *App, o *hookDeliverOptions) error {
	began := time.Now()
	// Not session.ReadPayload: a PostToolUse payload holds the tool's
	// whole output, and the quick path must not decode it (payload.go).
	p := delivery.ReadPayload(a.Stdin, deliverWait)
	if p.Event == "" {
		p.Event = o.Event
	}
	if a.rootFlag == "" && a.Getenv("AGENTX_ROOT") == "" && a.ws == nil {
		if dir, ok := session.ProjectDirOf(p.Cwd); ok {
			a.Cwd = dir // the agent's project, wherever the hook runs from
		}
	}
	stop := isStopEvent(p.Event)
	// The quick path: no news, nothing read but two stamps.
	gen, _, hasSeen, news := delivery.News(a.Workspace(), p.SessionID)
	if !news || p.SessionID == "" {
		return a.writeDeliverDoc(o, &delivery.Outcome{}, "")
	}
	if !hasSeen && gen == "" {
		// Nothing was ever answered here (or this is no workspace): the
		// session is stamped from now on, where there is a workspace.
		if fi, err := os.Stat(a.Workspace().AgentxDir()); err == nil && fi.IsDir() && a.checkWorkspace() == nil {
			_ = delivery.WriteSeen(a.Workspace(), p.SessionID, delivery.Seen{Since: clock.Format(a.Clock.Now()), Agent: o.Agent})
		}
		return a.writeDeliverDoc(o, &delivery.Outcome{}, "")
	}
	why, ok := a.inWorkspace("hook deliver")
	agent := session.PickAgent(o.Agent, p.AgentType, a.Config)
	if ok {
		cfg, _ := a.Config()
		why, ok = session.AgentAccepted(agent, cfg)
	}
	host := o.Format
	entry := hooklog.Entry{Command: "hook deliver", Host: host, Agent: agent}
	if !ok {
		a.hookSkipped(o.Format == "json", "deliver", why)
		entry.Outcome, entry.Warnings = hooklog.Skipped, []string{why}
		a.logHookRun(entry, began)
		return nil
	}
	return a.failOpen("deliver", func() error {
		out, text, err := a.deliverNews(ctx, agent, p.SessionID, host, stop)
		if err != nil {
			a.warn("agentx hook deliver: %v", err)
		}
		if len(out.Items) > 0 {
			a.logHookRun(entry, began)
		}
		return a.writeDeliverDoc(o, out, hostText(o.Format, p.Event, text, stop))
	})
}

// deliverNews delivers what arrived for agent into session sid and
// returns it with its text (a stop's reason when stop is set).
func (a *App) deliverNews(ctx context.Context, agent, sid, host string, stop bool) (*delivery.Outcome, string, error) {
	ctx, cancel := context.WithTimeout(ctx, deliverBudget)
	defer cancel()
	d := &delivery.Deliverer{WS: a.Workspace(), Ledgers: a.Ledgers(), Clock: a.Clock}
	out, err := d.Deliver(ctx, delivery.Request{Agent: agent, Session: sid, Host: host, BlockingOnly: stop})
	if out == nil {
		out = &delivery.Outcome{}
	}
	if len(out.Items) == 0 {
		return out, "", err
	}
	if stop {
		return out, delivery.StopReason(out.Items, a.cliName()), err
	}
	return out, delivery.Text(out.Items, a.cliName()), err
}

// hostText is the delivery's text as the host reads it from stdout
// ("" when nothing is printed).
func hostText(format, event, text string, stop bool) string {
	if text == "" || format == "json" {
		return text
	}
	if event == "" {
		event = "UserPromptSubmit"
	}
	return string(delivery.HostOutput(format, event, text, stop))
}

// isStopEvent reports a host's end-of-turn event: Claude Code and Codex
// Stop, Copilot CLI agentStop.
func isStopEvent(event string) bool {
	return strings.EqualFold(event, "Stop") || strings.EqualFold(event, "agentStop")
}

func (a *App) writeDeliverDoc(o *hookDeliverOptions, out *delivery.Outcome, text string) error {
	if o.Format == "json" {
		return a.writeDoc(&delivery.Doc{Checked: out.Checked, Items: jsonfile.List(out.Items), Left: out.Left, Text: text})
	}
	if text != "" {
		_, err := fmt.Fprint(a.Stdout, text)
		return err
	}
	return nil
}

// stopDelivery is what `hook finish` adds at a host's stop (Codex Stop,
// Copilot agentStop): the answer of the agent's blocking question, not
// delivered yet, as the host's decision to go on. ok is false when there
// is none (the common case: two stamps read).
func (a *App) stopDelivery(ctx context.Context, in capture.Input, agent, format string) (doc []byte, ok bool) {
	sid := in.Payload.SessionID
	if !isStopEvent(in.Payload.Event) || sid == "" {
		return nil, false
	}
	if _, _, _, news := delivery.News(a.Workspace(), sid); !news {
		return nil, false
	}
	out, text, err := a.deliverNews(ctx, agent, sid, hookHost(format, in), true)
	if err != nil && !errors.Is(err, delivery.ErrSession) {
		a.warn("agentx hook finish: delivery: %v", err)
	}
	if len(out.Items) == 0 {
		return nil, false
	}
	return delivery.HostOutput(format, in.Payload.Event, text, true), true
}
