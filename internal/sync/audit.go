package sync

import (
	"fmt"
	"path"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/router"
)

// BranchAuditPath is the audit trail of what the Action changes on the
// state branch: one line per command ingested from a comment, naming the
// comment's author, committed with the ledger change it records, rotated
// by month like the local one (state/audit-YYYY-MM.jsonl). The local
// binary keeps its own trail (`.agentx/state/audit.jsonl` on each
// machine); a local sync leaves these files on the branch as they are.
const BranchAuditPath = "state/audit.jsonl"

// withAudit adds to files, the change a command makes to its ledger
// (before is the ledger as read, after as written), the audit line that
// records it, appended to the branch's trail as read in the same attempt:
// a retry after a lost race appends to the fresh trail.
func (in *Ingester) withAudit(read func(string) ([]byte, error), files map[string][]byte, before []byte, after *ledger.Ledger, cmd Command, issue int, login string) (map[string][]byte, error) {
	rec := after.Find(cmd.ID)
	if rec == nil {
		return files, nil
	}
	beforeHash, beforeLen := "", 0
	if old, err := ledger.Parse(BranchLedgerPath(issue), before, issue); err == nil {
		if r := old.Find(cmd.ID); r != nil {
			beforeHash, beforeLen = r.Hash(), len(r.Thread)
		}
	}
	e := router.AuditEntry(protocol.Op{Verb: cmd.Verb, ID: cmd.ID, By: login}, beforeHash, beforeLen, rec)
	now := clock.Clock(clock.Real{})
	if in.Clock != nil {
		now = in.Clock
	}
	e.Time, e.Tool = clock.Format(now.Now()), "agentx-action"
	trail, err := read(BranchAuditPath)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", BranchAuditPath, err)
	}
	next, month, err := audit.AppendRotating(trail, e)
	if err != nil {
		return nil, err
	}
	if month != "" {
		// A new month: the trail so far moves to its month's file, in the
		// same commit.
		p, err := freeRotatedPath(read, month)
		if err != nil {
			return nil, err
		}
		files[p] = trail
	}
	files[BranchAuditPath] = next
	return files, nil
}

// freeRotatedPath is where the branch's trail of month goes: its month's
// file, or beside it when that exists (a month rotated twice).
func freeRotatedPath(read func(string) ([]byte, error), month string) (string, error) {
	for i := 1; i < 100; i++ {
		name := audit.RotatedName(month)
		if i > 1 {
			name = fmt.Sprintf("audit-%s.%d.jsonl", month, i)
		}
		p := path.Join(path.Dir(BranchAuditPath), name)
		data, err := read(p)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", p, err)
		}
		if data == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no free name for the audit trail of %s", month)
}
