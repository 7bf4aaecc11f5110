package verify

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/contenthash"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/shorten"
)

func (c *checker) ledgers() {
	jobs := c.files(c.ws.ClarificationsDir(), ledger.FileIssue)
	base := c.loadBaseline()
	subs := make([]*checker, len(jobs))
	parallel(len(jobs), func(i int) {
		sub := c.sub()
		subs[i] = sub
		if data, ok := sub.read(jobs[i].path); ok {
			sub.rep.Counts.Ledgers++
			if l := sub.ledger(jobs[i].path, jobs[i].issue, data); l != nil {
				sub.noteRecords(sub.rel(jobs[i].path), l)
				if base != nil {
					sub.compareBaseline(sub.rel(jobs[i].path), l, data, base[jobs[i].issue])
				}
			}
		}
	})
	c.records = map[string]bool{}
	for _, sub := range subs {
		c.merge(sub)
		if sub != nil {
			for _, id := range sub.seen {
				c.records[id] = true
			}
		}
	}
	if base != nil {
		present := make(map[int]bool, len(jobs))
		for _, j := range jobs {
			present[j.issue] = true
		}
		c.ledgersGone(base, present)
	}
}

// ledger checks one ledger file's content and returns it (nil when it
// does not parse).
func (c *checker) ledger(path string, issue int, data []byte) *ledger.Ledger {
	rel := c.rel(path)
	l, err := ledger.Decode(data)
	if err != nil {
		c.add(Problem{Code: CodeLedgerCorrupt, Severity: Error, Path: rel, Offset: jsonfile.CorruptOffset(data, err), Message: err.Error()})
		return nil
	}
	if l.IssueNumber != issue {
		c.add(Problem{Code: CodeLedgerIssue, Severity: Error, Path: rel, Offset: int64(bytes.Index(data, []byte(`"issueNumber"`))),
			Message: fmt.Sprintf("issueNumber is %d in the ledger of issue %d", l.IssueNumber, issue)})
	}
	seen := map[string]bool{}
	unhashed, unhashedRecords := 0, 0
	var from int64
	for i := range l.Clarifications {
		r := &l.Clarifications[i]
		c.rep.Counts.Records++
		off := idOffset(data, r.ID, from)
		if off >= 0 {
			from = off + 1
		}
		p := func(code string, sev Severity, at int64, format string, args ...any) {
			c.add(Problem{Code: code, Severity: sev, Path: rel, ID: r.ID, Offset: at, Message: fmt.Sprintf(format, args...)})
		}
		if seen[r.ID] {
			p(CodeRecordIDDuplicate, Error, off, "a second record with id %s", r.ID)
		}
		seen[r.ID] = true
		if n, ok := clrIssue(r.ID); ok && n != issue {
			p(CodeRecordIDForeign, Error, off, "id %s belongs to issue %d, not %d", r.ID, n, issue)
		}
		if r.IssueNumber != 0 && r.IssueNumber != issue {
			p(CodeRecordIssue, Error, off, "the record's issueNumber is %d in the ledger of issue %d", r.IssueNumber, issue)
		}
		if recordFields(r, off, p) {
			unhashedRecords++
		}
		unhashed += c.thread(rel, data, r, off)
	}
	if unhashed > 0 || unhashedRecords > 0 {
		c.rep.Counts.Unhashed += unhashed + unhashedRecords
		c.add(Problem{Code: CodeUnhashed, Severity: Info, Path: rel, Offset: -1,
			Message: unhashedMessage(unhashed, unhashedRecords)})
	}
	return l
}

// recordFields checks a record's own fields (status, round, times, its
// record hash) and reports whether it carries no record hash.
func recordFields(r *ledger.Record, off int64, p func(code string, sev Severity, at int64, format string, args ...any)) (unhashed bool) {
	if !r.Status.Known() {
		p(CodeRecordStatus, Error, off, "unknown status %q", r.Status)
	}
	if r.Round < 0 || r.MaxRounds > 0 && r.Round > r.MaxRounds {
		p(CodeRoundInvalid, Error, off, "round %d with maxRounds %d", r.Round, r.MaxRounds)
	}
	for _, ts := range []struct{ name, v string }{{"created", r.Created}, {"staleAfter", r.StaleAfter}} {
		if _, err := clock.Parse(ts.v); err != nil {
			p(CodeTimestamp, Error, off, "%s %q is not an ISO 8601 time", ts.name, ts.v)
		}
	}
	if r.ResolvedAt != nil {
		if _, err := clock.Parse(*r.ResolvedAt); err != nil {
			p(CodeTimestamp, Error, off, "resolvedAt %q is not an ISO 8601 time", *r.ResolvedAt)
		}
	}
	switch r.RecordIntegrity() {
	case contenthash.Tampered:
		h, _ := r.StoredRecordHash()
		p(CodeRecordHash, Error, off, "a field the record keeps from its creation (id, from, to, topic, blocking, maxRounds, created, slaMinutes) changed since it was made (stored hash %s, the fields hash to %s)",
			shorten.Hash(h), shorten.Hash(r.ComputeRecordHash()))
	case contenthash.Unhashed:
		unhashed = true
	}
	return unhashed
}

// unhashedMessage says how many entries and records of a ledger carry no
// hash.
func unhashedMessage(entries, records int) string {
	var parts []string
	if entries > 0 {
		parts = append(parts, fmt.Sprintf("%d thread entries carry no content hash", entries))
	}
	if records > 0 {
		rec := "records carry"
		if records == 1 {
			rec = "record carries"
		}
		parts = append(parts, fmt.Sprintf("%d %s no record hash", records, rec))
	}
	return strings.Join(parts, " and ") + " (written by another tool or before hashes); they cannot be checked for changes"
}

// thread checks a record's entries against the protocol's rules: entries
// belong to rounds the record reached; after a resolution nothing follows,
// after an escalation only a resolution (a person's decision); the status
// is the one the last entry leads to; each entry matches its hash.
func (c *checker) thread(rel string, data []byte, r *ledger.Record, recOff int64) (unhashed int) {
	final, escalated := false, false
	from := recOff
	for i := range r.Thread {
		e := &r.Thread[i]
		c.rep.Counts.Entries++
		id := fmt.Sprintf("%s#%d", r.ID, i+1)
		off := recOff
		if at := entryOffset(data, e, from); at >= 0 {
			off, from = at, at+1
		}
		p := func(code string, format string, args ...any) {
			c.add(Problem{Code: code, Severity: Error, Path: rel, ID: id, Offset: off, Message: fmt.Sprintf(format, args...)})
		}
		switch e.Type {
		case ledger.Question, ledger.Answer, ledger.Resolution, ledger.Escalation:
		default:
			p(CodeEntryType, "entry type %q", e.Type)
		}
		if e.Round > r.Round {
			p(CodeEntryBeyondRound, "a %s of round %d in a record at round %d", e.Type, e.Round, r.Round)
		}
		if final || escalated && e.Type != ledger.Resolution {
			c.afterFinal(rel, id, off, e, final)
		}
		switch e.Type {
		case ledger.Resolution:
			final = true
		case ledger.Escalation:
			escalated = true
		}
		if _, err := clock.Parse(e.Timestamp); err != nil {
			p(CodeTimestamp, "timestamp %q is not an ISO 8601 time", e.Timestamp)
		}
		if h, ok := e.StoredHash(); !ok {
			unhashed++
		} else if want := e.ComputeHash(); h != want {
			p(CodeEntryHash, "the entry changed since it was written (stored hash %s, content hashes to %s)", shorten.Hash(h), shorten.Hash(want))
		}
	}
	if want, ok := statusOf(r); ok && want != r.Status && r.Status.Known() {
		c.add(Problem{Code: CodeStatusThread, Severity: Error, Path: rel, ID: r.ID, Offset: recOff,
			Message: fmt.Sprintf("status %s, but its last entry makes it %s", r.Status, want)})
	}
	return unhashed
}

// afterFinal reports an entry the protocol allows neither after a
// resolution nor, but for a resolution, after an escalation. Merging two
// copies of a ledger (the state branch, the git merge driver) puts
// concurrent work in this order: an answer written on one side while the
// other resolved. An entry that carries its intact hash was written
// through the protocol, so that is information; one without is an error.
func (c *checker) afterFinal(rel, id string, off int64, e *ledger.Entry, final bool) {
	what := "after the record's resolution"
	if !final {
		what = "after the record's escalation (only a person's resolution may follow)"
	}
	if h, ok := e.StoredHash(); ok && h == e.ComputeHash() {
		c.add(Problem{Code: CodeEntryAfterFinal, Severity: Info, Path: rel, ID: id, Offset: off,
			Message: fmt.Sprintf("a %s %s, written through the protocol: concurrent work brought together by a merge", e.Type, what)})
		return
	}
	c.add(Problem{Code: CodeEntryAfterFinal, Severity: Error, Path: rel, ID: id, Offset: off, Message: fmt.Sprintf("a %s %s", e.Type, what)})
}

// statusOf is the status a record's thread leads to under the protocol's
// lifecycle, which a merge follows too: resolved or abandoned once there
// is a resolution, else escalated once there is an escalation, else what
// the last entry makes it (ok false when the thread is empty).
func statusOf(r *ledger.Record) (ledger.Status, bool) {
	if len(r.Thread) == 0 {
		return "", false
	}
	if r.LastOf(ledger.Resolution) != nil {
		if r.Status == ledger.Abandoned {
			return ledger.Abandoned, true
		}
		return ledger.Resolved, true
	}
	if r.LastOf(ledger.Escalation) != nil {
		return ledger.Escalated, true
	}
	last := r.Thread[len(r.Thread)-1]
	switch last.Type {
	case ledger.Answer:
		return ledger.Answered, true
	case ledger.Question:
		if r.Status == ledger.Pending || r.Status == ledger.Stale {
			return r.Status, true
		}
		return ledger.Pending, true
	}
	return "", false
}

// entryOffset finds an entry in data after from by its timestamp and type.
func entryOffset(data []byte, e *ledger.Entry, from int64) int64 {
	if e.Timestamp == "" {
		return -1
	}
	return idOffsetKey(data, "timestamp", e.Timestamp, from)
}

func idOffsetKey(data []byte, key, value string, from int64) int64 {
	if from < 0 || from > int64(len(data)) {
		from = 0
	}
	q := strconv.Quote(value)
	for _, pat := range []string{`"` + key + `": ` + q, `"` + key + `":` + q} {
		if i := bytes.Index(data[from:], []byte(pat)); i >= 0 {
			return from + int64(i)
		}
	}
	return -1
}

// clrIssue reads the issue of a CLR-N-NNN id.
func clrIssue(id string) (int, bool) {
	rest, ok := strings.CutPrefix(id, "CLR-")
	if !ok {
		return 0, false
	}
	num, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	return n, err == nil
}
