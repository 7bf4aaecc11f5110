package hookcmd

import (
	"context"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/render"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

const clarifyShowUsage = `clarify show CLR-N-NNN [--json]

One clarification with its whole thread, as the MCP server's clarify_show
gives it: who asked whom, its status and rounds, every question, answer
and resolution. Entries changed since they were written are marked
[TAMPERED].

Examples:
  agentx-hook clarify show CLR-42-001
  agentx-hook clarify show CLR-42-001 --json`

type clarifyShowOptions struct {
	ID string
	jsonFlag
}

func parseClarifyShow(a *App, args []string) (*clarifyShowOptions, error) {
	o := &clarifyShowOptions{}
	flags := newFlags(a, "clarify show", clarifyShowUsage)
	o.register(flags)
	pos, err := parse(flags, args)
	if err != nil {
		return o, err
	}
	if len(pos) != 1 {
		return o, usagef("clarify show needs one clarification id (CLR-N-NNN)")
	}
	o.ID = pos[0]
	return o, nil
}

// clarifyShowDoc is `clarify show --json`: the record, and its entries
// changed since written.
type clarifyShowDoc struct {
	Clarification ledger.Record `json:"clarification"`
	Tampered      []string      `json:"tampered,omitempty"`
	// Untrusted says why verify's checks find the record rewritten.
	Untrusted string `json:"untrusted,omitempty"`
	schemaVersion
}

func runClarifyShow(ctx context.Context, a *App, o *clarifyShowOptions) error {
	a.monitorSideEffect(ctx) // every clarify command runs the monitor (ADR-1)
	issue, err := validate.ClarificationID(o.ID)
	if err != nil {
		return err
	}
	l, err := a.Ledgers().Load(issue)
	if err != nil {
		return err
	}
	rec := l.Find(o.ID)
	if rec == nil {
		return errcode.New(errcode.NotFound, "Clarification %s not found in ledger", o.ID).
			WithHint(protocol.ListHint(o.ID))
	}
	recs := []ledger.Record{*rec}
	list := ledger.NewListDoc(&issue, recs)
	marks := a.recordMarks(ctx, recs)
	if o.JSON {
		return a.writeDoc(&clarifyShowDoc{Clarification: *rec, Tampered: list.Tampered, Untrusted: marks[rec.ID]})
	}
	a.warnEach(list.TamperedWarning(), untrustedWarning(marks))
	render.ThreadsMarked(a.Stdout, a.Style(), recs, marks)
	return nil
}
