// Package statediff owns the record-level comparison of two versions of a
// durable state file: which clarification records (ledgers) and
// observations (memory issue files) were added, changed or removed, with
// their content hashes. `checkpoint show` reports it; a sync records it in
// the audit trail (AuditEntry).
package statediff

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Change kinds, from the old version to the new one.
const (
	Added   = "added"
	Changed = "changed"
	Removed = "removed"
)

// Item is one clarification record or observation that differs.
type Item struct {
	ID     string `json:"id"`
	Issue  int    `json:"issue"`
	Change string `json:"change"`
	// Detail says what changed in a changed record (round, status, thread
	// entries) or observation.
	Detail string `json:"detail,omitempty"`
	// Before and After are its content hashes (a record's canonical hash,
	// an observation's agentxHash); "" on the side it is absent.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// Changes is what differs in one file.
type Changes struct {
	Records      []Item
	Observations []Item
}

// Items are the records and observations that differ.
func (c Changes) Items() []Item { return slices.Concat(c.Records, c.Observations) }

// File compares two versions of the state file p (relative to .agentx/,
// slash-separated; nil: absent). Files other than ledgers and memory issue
// files have no records: no changes. An error means one side does not
// parse; the file-level change is the caller's to report.
func File(p string, old, cur []byte) (Changes, error) {
	dir, name := path.Split(p)
	issue, isIssue := workspace.LedgerIssue(name)
	switch {
	case !isIssue:
		return Changes{}, nil
	case dir == "state/clarifications/":
		a, err := ledgerRecords(p, old, issue)
		if err != nil {
			return Changes{}, err
		}
		b, err := ledgerRecords(p, cur, issue)
		if err != nil {
			return Changes{}, err
		}
		return Changes{Records: items(a, b, issue, recordDetail)}, nil
	case dir == "memory/":
		a, err := observations(p, old)
		if err != nil {
			return Changes{}, err
		}
		b, err := observations(p, cur)
		if err != nil {
			return Changes{}, err
		}
		return Changes{Observations: items(a, b, issue, observationDetail)}, nil
	}
	return Changes{}, nil
}

// AuditEntry is the audit line (op) of a change of file p from old to cur
// (nil: absent): its issue, the records and observations that differ with
// their hashes before and after; or, for a file without records or one
// side of which does not parse, the file itself (its path) with the
// hashes of its bytes. The caller fills in actor and detail.
func AuditEntry(op, p string, old, cur []byte) audit.Entry {
	e := audit.Entry{Op: op}
	if issue, ok := workspace.LedgerIssue(path.Base(p)); ok {
		e.Issue = issue
	}
	c, err := File(p, old, cur)
	items := c.Items()
	if err != nil || len(items) == 0 {
		e.IDs, e.Before, e.After = []string{p}, bytesHash(p, old), bytesHash(p, cur)
		return e
	}
	e.Before, e.After = map[string]string{}, map[string]string{}
	for _, it := range items {
		e.IDs = append(e.IDs, it.ID)
		if it.Before != "" {
			e.Before[it.ID] = it.Before
		}
		if it.After != "" {
			e.After[it.ID] = it.After
		}
	}
	return e
}

// bytesHash is {p: SHA-256 of data}, nil for an absent file.
func bytesHash(p string, data []byte) map[string]string {
	if data == nil {
		return nil
	}
	sum := sha256.Sum256(data)
	return map[string]string{p: "sha256:" + hex.EncodeToString(sum[:])}
}

// item is one record or observation: its JSON form for comparison, its
// content hash and the value for details.
type item struct {
	raw  []byte
	hash string
	val  any
}

func ledgerRecords(p string, data []byte, issue int) (map[string]item, error) {
	out := map[string]item{}
	if data == nil {
		return out, nil
	}
	l, err := ledger.Parse(p, data, issue)
	if err != nil {
		return nil, err
	}
	for i := range l.Clarifications {
		r := &l.Clarifications[i]
		raw, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		out[r.ID] = item{raw: raw, hash: r.Hash(), val: r}
	}
	return out, nil
}

func observations(p string, data []byte) (map[string]item, error) {
	out := map[string]item{}
	if data == nil {
		return out, nil
	}
	obs, err := memory.ParseObservations(p, data)
	if err != nil {
		return nil, err
	}
	for i := range obs {
		o := &obs[i]
		raw, err := json.Marshal(o)
		if err != nil {
			return nil, err
		}
		out[o.ID] = item{raw: raw, hash: o.ComputeHash(), val: o}
	}
	return out, nil
}

func items(then, now map[string]item, issue int, detail func(a, b any) string) []Item {
	var ids []string
	for id := range then {
		ids = append(ids, id)
	}
	for id := range now {
		if _, ok := then[id]; !ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var out []Item
	for _, id := range ids {
		a, inThen := then[id]
		b, inNow := now[id]
		switch {
		case !inThen:
			out = append(out, Item{ID: id, Issue: issue, Change: Added, After: b.hash})
		case !inNow:
			out = append(out, Item{ID: id, Issue: issue, Change: Removed, Before: a.hash})
		case !bytes.Equal(a.raw, b.raw):
			out = append(out, Item{ID: id, Issue: issue, Change: Changed, Detail: detail(a.val, b.val), Before: a.hash, After: b.hash})
		}
	}
	return out
}

func recordDetail(a, b any) string {
	x, y := a.(*ledger.Record), b.(*ledger.Record)
	var parts []string
	if x.Round != y.Round {
		parts = append(parts, fmt.Sprintf("round %d -> %d", x.Round, y.Round))
	}
	if x.Status != y.Status {
		parts = append(parts, fmt.Sprintf("status %s -> %s", x.Status, y.Status))
	}
	if n := len(y.Thread) - len(x.Thread); n != 0 {
		parts = append(parts, fmt.Sprintf("%+d thread entries", n))
	}
	if len(parts) == 0 {
		parts = append(parts, "fields changed")
	}
	return strings.Join(parts, ", ")
}

func observationDetail(a, b any) string {
	x, y := a.(*memory.Observation), b.(*memory.Observation)
	var parts []string
	if x.Content != y.Content {
		parts = append(parts, "content")
	}
	if x.Summary != y.Summary {
		parts = append(parts, "summary")
	}
	if x.RecallCount != y.RecallCount {
		parts = append(parts, fmt.Sprintf("recall count %d -> %d", x.RecallCount, y.RecallCount))
	}
	if len(parts) == 0 {
		return "fields changed"
	}
	return strings.Join(parts, ", ") + " changed"
}
