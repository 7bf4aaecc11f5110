package sync

import (
	"fmt"
	"maps"
	"path"
	"slices"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/router"
	"github.com/agentx-dev/agentx/internal/core/statediff"
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
	beforeHash, beforeLen := recordState(before, issue, cmd.ID)
	e := router.AuditEntry(protocol.Op{Verb: cmd.Verb, ID: cmd.ID, By: login}, beforeHash, beforeLen, rec)
	return files, appendAudit(read, files, in.Clock, []audit.Entry{e})
}

// OpSeed is the audit name of a file the Action seeded the state branch
// with from the checkout.
const OpSeed = "sync.seed"

// seedAudit is one audit line per ledger or memory file a seed brings to
// the branch, naming its records or observations and their hashes
// (statediff.AuditEntry).
func seedAudit(files map[string][]byte) []audit.Entry {
	var out []audit.Entry
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if p == SyncStatePath {
			continue
		}
		e := statediff.AuditEntry(OpSeed, p, nil, files[p])
		e.Actor, e.Detail = "agentx-action", "seeded from the checkout: "+p
		out = append(out, e)
	}
	return out
}

// recordState is the hash and thread length of record id in a ledger
// file's content ("" and 0 when it is not there).
func recordState(data []byte, issue int, id string) (hash string, entries int) {
	l, err := ledger.Parse(BranchLedgerPath(issue), data, issue)
	if err != nil {
		return "", 0
	}
	if r := l.Find(id); r != nil {
		return r.Hash(), len(r.Thread)
	}
	return "", 0
}

// appendAudit appends entries, stamped now and named as the Action's, to
// the branch's trail as read in this attempt, and puts the result in
// files (with the month's file when the trail rotates).
func appendAudit(read func(string) ([]byte, error), files map[string][]byte, clk clock.Clock, entries []audit.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	if clk == nil {
		clk = clock.Real{}
	}
	trail, err := read(BranchAuditPath)
	if err != nil {
		return fmt.Errorf("read %s: %w", BranchAuditPath, err)
	}
	now := clock.Format(clk.Now())
	for _, e := range entries {
		e.Time, e.Tool = now, "agentx-action"
		next, month, err := audit.AppendRotating(trail, e)
		if err != nil {
			return err
		}
		if month != "" {
			// A new month: the trail so far moves to its month's file, in
			// the same commit.
			p, err := freeRotatedPath(read, month)
			if err != nil {
				return err
			}
			files[p] = trail
		}
		trail = next
	}
	files[BranchAuditPath] = trail
	return nil
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

// monitorAudit is one audit line per step the monitor's check applied: a
// step whose record changed (before holds the ledgers' contents as read,
// ledgers as the check left them), actor agent-x.
func monitorAudit(ledgers []*ledger.Ledger, before map[int][]byte, steps []monitor.Step) []audit.Entry {
	byIssue := make(map[int]*ledger.Ledger, len(ledgers))
	for _, l := range ledgers {
		byIssue[l.IssueNumber] = l
	}
	var out []audit.Entry
	done := map[string]bool{}
	for _, st := range steps {
		l := byIssue[st.Op.Issue]
		if l == nil || st.Op.Verb == "" || done[st.Op.ID] {
			continue
		}
		rec := l.Find(st.Op.ID)
		if rec == nil {
			continue
		}
		beforeHash, beforeLen := recordState(before[st.Op.Issue], st.Op.Issue, st.Op.ID)
		if rec.Hash() == beforeHash {
			continue // no longer applied
		}
		done[st.Op.ID] = true
		out = append(out, router.AuditEntry(st.Op, beforeHash, beforeLen, rec))
	}
	return out
}
