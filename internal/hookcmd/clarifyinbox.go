package hookcmd

import (
	"context"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/render"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

const clarifyInboxUsage = `clarify inbox --human [--person NAME] [--json]

What waits for people: the questions agents addressed to a
person (--to human, --to human:NAME, or a name of [people] in
agentx.toml), blocking first then oldest, each with the command that
answers it, and the clarifications escalated to a person. --person NAME
keeps that person's questions and those addressed to anyone.

Examples:
  agentx-hook clarify inbox --human
  agentx-hook clarify inbox --human --person lead --json
  agentx-hook clarify answer CLR-42-001 --as human:lead --body "Redis."`

type clarifyInboxOptions struct {
	Human  bool
	Person string
	jsonFlag
}

func parseClarifyInbox(a *App, args []string) (*clarifyInboxOptions, error) {
	o := &clarifyInboxOptions{}
	flags := newFlags(a, "clarify inbox", clarifyInboxUsage)
	flags.BoolVar(&o.Human, "human", false, "what waits for people (required: an agent's inbox is hook start or the MCP tool clarify_inbox)")
	flags.StringVar(&o.Person, "person", "", "only what person `NAME` may answer (theirs and anyone's)")
	o.register(flags)
	pos, err := parse(flags, args)
	if err != nil {
		return o, err
	}
	if len(pos) > 0 {
		return o, usagef("clarify inbox takes no positional arguments (got %q)", pos[0])
	}
	if !o.Human {
		return o, usagef("clarify inbox needs --human (an agent's inbox is `agentx-hook hook start` or the MCP tool clarify_inbox)")
	}
	if o.Person != "" {
		if err := validate.Person("--person", o.Person); err != nil {
			return o, err
		}
	}
	return o, nil
}

func runClarifyInbox(ctx context.Context, a *App, o *clarifyInboxOptions) error {
	a.monitorSideEffect(ctx) // every clarify command runs the monitor (ADR-1)
	if o.Person != "" {
		// A typo must not list an empty inbox as if nothing waited.
		if err := a.checkPerson(o.Person); err != nil {
			return err
		}
	}
	recs, err := a.loadRecords(func(r *ledger.Record) bool { return r.ForPerson(o.Person) || r.Status == ledger.Escalated })
	if err != nil {
		return err
	}
	doc := ledger.PeopleInbox(recs, o.Person)
	if o.JSON {
		return a.writeDoc(doc)
	}
	render.PeopleInbox(a.Stdout, a.Style(), doc, "agentx-hook", a.Clock.Now())
	return nil
}

// checkPerson refuses a person [people] does not name.
func (a *App) checkPerson(name string) error {
	cfg, err := a.Config()
	if err != nil {
		return err
	}
	if _, ok := cfg.Person(name); ok {
		return nil
	}
	return errcode.New(errcode.InvalidInput, "--person: unknown person %q (configured: %s)", name, protocol.PeopleList(cfg)).
		WithHint("people are named in [people] of .agentx/agentx.toml: lead = \"@their-github-handle\"")
}
