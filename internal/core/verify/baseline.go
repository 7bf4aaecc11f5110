package verify

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/statemerge"
	"github.com/agentx-dev/agentx/internal/core/tombstone"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Baseline is an earlier state of `.agentx/` that the present one must
// still hold: the last checkpoint agentx made (or, after a restore, the
// checkpoint restored). No protocol step removes a ledger, a record or a
// thread entry, and none changes what a record keeps from its creation;
// so what the baseline holds and the workspace lacks, or holds changed,
// was removed or edited outside agentx, whatever hashes the editor wrote
// again.
type Baseline struct {
	// Source names it in messages ("checkpoint 1a2b3c4d5e").
	Source string
	// FS holds the files, paths relative to `.agentx/`.
	FS fs.FS
}

// baselineLedgers are the paths of the baseline's ledgers by issue.
type baselineLedgers map[int]string

// clarificationsRel is the ledgers' directory relative to `.agentx/`.
const clarificationsRel = "state/clarifications"

// treeFS is what a checkpoint's tree offers beyond fs.FS: names listed
// and contents compared without reading the blobs (1,000 ledgers equal
// to the checkpoint's cost a hash each, not a blob read).
type treeFS interface {
	Names(dir string) []string
	SameBlob(name string, data []byte) bool
}

func (c *checker) loadBaseline() baselineLedgers {
	b := c.opt.Baseline
	if b == nil || b.FS == nil {
		return nil
	}
	var names []string
	if t, ok := b.FS.(treeFS); ok {
		names = t.Names(clarificationsRel)
	} else if entries, err := fs.ReadDir(b.FS, clarificationsRel); err == nil {
		for _, e := range entries {
			if e.Type().IsRegular() {
				names = append(names, e.Name())
			}
		}
	}
	out := baselineLedgers{}
	for _, name := range names {
		if issue, ok := ledger.FileIssue(name); ok {
			out[issue] = path.Join(clarificationsRel, name)
		}
	}
	return out
}

// baselineCopy returns the baseline's copy of a ledger whose content is
// data; nil when it has none or it is the same.
func (c *checker) baselineCopy(p string, data []byte) []byte {
	if p == "" {
		return nil
	}
	if t, ok := c.opt.Baseline.FS.(treeFS); ok && t.SameBlob(p, data) {
		return nil
	}
	base, err := fs.ReadFile(c.opt.Baseline.FS, p)
	if err != nil || bytes.Equal(base, data) {
		return nil
	}
	return base
}

// ledgersGone reports the baseline's ledgers no ledger file of the
// workspace holds.
func (c *checker) ledgersGone(base baselineLedgers, present map[int]bool) {
	var gone []int
	for issue := range base {
		if !present[issue] {
			gone = append(gone, issue)
		}
	}
	sort.Ints(gone)
	for _, issue := range gone {
		rel := path.Join(workspace.Dir, clarificationsRel, fmt.Sprintf("issue-%d.json", issue))
		c.add(Problem{Code: CodeLedgerDeleted, Severity: Error, Path: rel, Offset: -1,
			Message: fmt.Sprintf("the ledger of issue %d is gone; %s holds it (`agentx-hook checkpoint show` lists what changed)", issue, c.opt.Baseline.Source)})
	}
}

// compareBaseline checks a ledger against the baseline's copy: each of
// its records is still there, with the same lifelong fields and every
// entry it had.
func (c *checker) compareBaseline(rel string, cur *ledger.Ledger, data []byte, basePath string) {
	baseData := c.baselineCopy(basePath, data)
	if baseData == nil {
		return
	}
	base, err := ledger.Decode(baseData)
	if err != nil {
		return // the checkpoint holds a corrupt copy: nothing to compare with
	}
	dead, _ := tombstone.FromExtra(rel, cur.Extra)
	byID := make(map[string]*ledger.Record, len(cur.Clarifications))
	for i := range cur.Clarifications {
		r := &cur.Clarifications[i]
		byID[r.ID] = r
		var from string
		if raw := r.ExtraValue(statemerge.RenamedFromKey); len(raw) > 2 {
			from = strings.Trim(string(raw), `"`)
			if _, taken := byID[from]; !taken {
				byID[from] = r
			}
		}
	}
	for i := range base.Clarifications {
		br := &base.Clarifications[i]
		r := byID[br.ID]
		if r == nil {
			if !dead.Has(tombstone.Record, br.ID) {
				c.add(Problem{Code: CodeRecordDeleted, Severity: Error, Path: rel, ID: br.ID, Offset: -1,
					Message: fmt.Sprintf("the record is gone; %s holds it (%s to %s, %q)", c.opt.Baseline.Source, br.From, br.To, br.Topic)})
			}
			continue
		}
		renamed := r.ID != br.ID
		if diff := lifelongDiff(br, r, renamed); len(diff) > 0 {
			c.add(Problem{Code: CodeRecordRewritten, Severity: Error, Path: rel, ID: r.ID, Offset: -1,
				Message: fmt.Sprintf("%s differs from %s's copy, and no step of the protocol changes it", strings.Join(diff, ", "), c.opt.Baseline.Source)})
		}
		if !renamed {
			c.entriesGone(rel, br, r)
		}
	}
}

// lifelongDiff names the fields a record keeps from its creation that
// differ between the baseline's copy b and r.
func lifelongDiff(b, r *ledger.Record, renamed bool) []string {
	var d []string
	add := func(name string, differs bool, was, now any) {
		if differs {
			d = append(d, fmt.Sprintf("%s (%v, was %v)", name, now, was))
		}
	}
	add("from", b.From != r.From, b.From, r.From)
	add("to", b.To != r.To, b.To, r.To)
	add("topic", b.Topic != r.Topic, fmt.Sprintf("%q", b.Topic), fmt.Sprintf("%q", r.Topic))
	add("blocking", b.Blocking != r.Blocking, b.Blocking, r.Blocking)
	add("maxRounds", b.MaxRounds != r.MaxRounds, b.MaxRounds, r.MaxRounds)
	add("created", b.Created != r.Created, b.Created, r.Created)
	add("issueNumber", b.IssueNumber != r.IssueNumber && b.IssueNumber != 0 && r.IssueNumber != 0, b.IssueNumber, r.IssueNumber)
	bs, rs := string(b.ExtraValue("slaMinutes")), string(r.ExtraValue("slaMinutes"))
	add("slaMinutes", bs != rs && bs != "", bs, rs)
	if !renamed {
		add("id", b.ID != r.ID, b.ID, r.ID)
	}
	return d
}

// entriesGone reports the entries of the baseline's copy of a record
// that its thread no longer holds as they were (removed, or edited and
// hashed again).
func (c *checker) entriesGone(rel string, b, r *ledger.Record) {
	have := make(map[string]int, len(r.Thread))
	for i := range r.Thread {
		have[r.Thread[i].ComputeHash()]++
	}
	for i := range b.Thread {
		e := &b.Thread[i]
		h := e.ComputeHash()
		if have[h] > 0 {
			have[h]--
			continue
		}
		c.add(Problem{Code: CodeRecordRewritten, Severity: Error, Path: rel, ID: fmt.Sprintf("%s#%d", b.ID, i+1), Offset: -1,
			Message: fmt.Sprintf("the %s of round %d from %s at %s that %s holds is gone from the thread or changed (entries are never removed or edited)",
				e.Type, e.Round, e.From, e.Timestamp, c.opt.Baseline.Source)})
	}
}

// noteRecords remembers the ledger's record ids and those its tombstones
// name, for the trail's requests to be looked for.
func (c *checker) noteRecords(rel string, l *ledger.Ledger) {
	for i := range l.Clarifications {
		c.seen = append(c.seen, l.Clarifications[i].ID)
		if from := l.Clarifications[i].ExtraValue(statemerge.RenamedFromKey); len(from) > 2 {
			c.seen = append(c.seen, strings.Trim(string(from), `"`))
		}
	}
	dead, _ := tombstone.FromExtra(rel, l.Extra)
	for _, t := range dead {
		if t.Kind == tombstone.Record && !t.Revived {
			c.seen = append(c.seen, t.ID)
		}
	}
}

// requestsGone reports the records the audit trail says agentx made
// (clarify.request, clarify.ask) that no ledger holds, where no
// checkpoint restore since may have rolled them back: a record removed
// by hand, or its whole ledger, with no checkpoint to compare with. The
// baseline's findings name the same records; only those it did not name
// are added.
func (c *checker) requestsGone(entries []audit.Entry) {
	if c.records == nil {
		return
	}
	named := map[string]bool{}
	for _, p := range c.rep.Problems {
		switch p.Code {
		case CodeRecordDeleted:
			named[p.ID] = true
		case CodeLedgerDeleted, CodeLedgerCorrupt, CodeSymlink, CodeNotRegular, CodeUnreadable:
			// gone, or not read: its records are reported as such
			if n, ok := ledgerIssue(p.Path); ok && strings.Contains(p.Path, clarificationsRel) {
				named[fmt.Sprintf("#%d", n)] = true
			}
		}
	}
	made := map[string]audit.Entry{}
	var order []string
	for _, e := range entries {
		switch e.Op {
		case "checkpoint.restore":
			made, order = map[string]audit.Entry{}, nil // what came before may be rolled back
		case "clarify.request", "clarify.ask":
			for _, id := range e.IDs {
				if _, ok := made[id]; !ok {
					order = append(order, id)
				}
				made[id] = e
			}
		}
	}
	for _, id := range order {
		e := made[id]
		if c.records[id] || named[id] || named[fmt.Sprintf("#%d", e.Issue)] {
			continue
		}
		if c.recordNow(e.Issue, id) {
			// Written after its ledger was read (the trail was read
			// later): present, never reported as deleted (issue 32).
			continue
		}
		rel := path.Join(workspace.Dir, clarificationsRel, fmt.Sprintf("issue-%d.json", e.Issue))
		c.add(Problem{Code: CodeRecordDeleted, Severity: Error, Path: rel, ID: id, Offset: -1,
			Message: fmt.Sprintf("the record is gone: the audit trail says %s made it at %s (%s), and no tombstone or restore since explains its absence", e.Actor, e.Time, e.Op)})
	}
}

// recordNow reads the ledger of issue again and reports whether it holds
// id now (or a tombstone names it, or a record renamed from it), or
// cannot be read (then its own problem says so).
func (c *checker) recordNow(issue int, id string) bool {
	if c.fsys != nil {
		return false
	}
	data, err := os.ReadFile(c.ws.LedgerFile(issue))
	if err != nil {
		return false
	}
	l, err := ledger.Decode(data)
	if err != nil {
		return true
	}
	for i := range l.Clarifications {
		r := &l.Clarifications[i]
		if r.ID == id || strings.Trim(string(r.ExtraValue(statemerge.RenamedFromKey)), `"`) == id {
			return true
		}
	}
	dead, _ := tombstone.FromExtra("", l.Extra)
	return dead.Has(tombstone.Record, id)
}

// ledgerIssue reads the issue of a ledger's path.
func ledgerIssue(p string) (int, bool) {
	return ledger.FileIssue(path.Base(p))
}
