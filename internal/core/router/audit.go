package router

import (
	"context"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/protocol"
)

// Every operation the hub writes (the CLI's, a responder's answer, the
// monitor's actions) is one audit line, appended after the ledger write
// landed: the trail never names a change that did not happen. A failed
// append is a warning, like the event log's: the operation stands.

// OpName is how the audit trail names a protocol verb: clarify.answer,
// monitor.escalate-stale.
func OpName(v protocol.Verb) string {
	switch v {
	case protocol.MarkStale, protocol.EscalateStale, protocol.EscalateStuck, protocol.EscalateDeadlock:
		return "monitor." + string(v)
	}
	return "clarify." + string(v)
}

// Actor is who performed op on rec: the author of the entry it added, else
// op.By, else the hub.
//
// A person's explicit override (`--as human:NAME`) is named as such, so
// the trail tells it from the agent of the same name (issue 32).
func Actor(op protocol.Op, before int, rec *ledger.Record) string {
	if name, ok := protocol.AsPerson(op.By); ok {
		return protocol.PersonPrefix + name
	}
	if len(rec.Thread) > before {
		return rec.Thread[len(rec.Thread)-1].From
	}
	if op.By != "" {
		return op.By
	}
	return ledger.HubName
}

// AuditEntry is the audit line of op applied to a record whose hash was
// beforeHash ("" for a new record) and whose thread held beforeLen
// entries.
func AuditEntry(op protocol.Op, beforeHash string, beforeLen int, rec *ledger.Record) audit.Entry {
	e := audit.Entry{Actor: Actor(op, beforeLen, rec), Op: OpName(op.Verb), Issue: rec.IssueNumber, IDs: []string{rec.ID},
		After: map[string]string{rec.ID: rec.Hash()}}
	if beforeHash != "" {
		e.Before = map[string]string{rec.ID: beforeHash}
	}
	return e
}

func (r *Router) audit(ctx context.Context, op protocol.Op, beforeHash string, beforeLen int, rec *ledger.Record) {
	if r.Audit == nil {
		return
	}
	if err := r.Audit.Append(ctx, AuditEntry(op, beforeHash, beforeLen, rec)); err != nil {
		r.warn(err, "audit trail")
	}
}
