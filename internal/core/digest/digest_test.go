package digest

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/metrics"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// entry is a thread entry: round, from, type, time.
func entry(round int, from string, typ ledger.EntryType, t string) ledger.Entry {
	return ledger.Entry{Round: round, From: from, Type: typ, Body: string(typ), Timestamp: t}
}

func rec(id, from, to, topic string, status ledger.Status, created string, thread ...ledger.Entry) ledger.Record {
	var issue int
	fmt.Sscanf(id, "CLR-%d-", &issue)
	r := ledger.Record{ID: id, IssueNumber: issue, From: from, To: to, Topic: topic, Status: status, Round: 1,
		MaxRounds: 5, Created: created, StaleAfter: created}
	r.Thread = append([]ledger.Entry{entry(1, from, ledger.Question, created)}, thread...)
	for _, e := range r.Thread {
		r.Round = max(r.Round, e.Round)
	}
	if status == ledger.Resolved {
		ts := r.Thread[len(r.Thread)-1].Timestamp
		r.ResolvedAt = &ts
	}
	return r
}

func withExtra(r ledger.Record, key, raw string) ledger.Record {
	r.SetExtra(key, json.RawMessage(raw))
	return r
}

func ledgersOf(recs ...ledger.Record) []*ledger.Ledger {
	by := map[int]*ledger.Ledger{}
	var out []*ledger.Ledger
	for _, r := range recs {
		l := by[r.IssueNumber]
		if l == nil {
			l = &ledger.Ledger{IssueNumber: r.IssueNumber}
			by[r.IssueNumber] = l
			out = append(out, l)
		}
		l.Clarifications = append(l.Clarifications, r)
	}
	return out
}

func event(t *testing.T, typ, when string, payload any) events.Event {
	raw, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	return events.Event{Type: typ, Time: when, Payload: raw}
}

// window is the week of 2026-11-16 (ISO 2026-W47); the previous is W46.
var (
	since = at("2026-11-16T00:00:00Z")
	until = at("2026-11-23T00:00:00Z")
)

// fixture is a week with known answers (worked out in the comments).
func fixture(t *testing.T) *Input {
	const hub = ledger.HubName
	recs := []ledger.Record{
		// 1: opened and auto-resolved in the window; answer 30m, resolve 1h.
		rec("CLR-1-001", "engineer", "architect", "Auth flow", ledger.Resolved, "2026-11-17T10:00:00.000Z",
			entry(1, "architect", ledger.Answer, "2026-11-17T10:30:00.000Z"),
			entry(1, "engineer", ledger.Resolution, "2026-11-17T11:00:00.000Z")),
		// 2: opened in the previous window, settled in this one (spans the
		// edge), two rounds; answers 90m and 60m in the window; resolve 4h.
		rec("CLR-1-002", "engineer", "architect", "cache keys", ledger.Resolved, "2026-11-15T23:00:00.000Z",
			entry(1, "architect", ledger.Answer, "2026-11-16T00:30:00.000Z"),
			entry(2, "engineer", ledger.Question, "2026-11-16T01:00:00.000Z"),
			entry(2, "architect", ledger.Answer, "2026-11-16T02:00:00.000Z"),
			entry(2, "engineer", ledger.Resolution, "2026-11-16T03:00:00.000Z")),
		// 3: a person (GitHub login alice) answered: resolved with a person; answer 2h, resolve 3h.
		rec("CLR-2-001", "architect", "pm", "scope", ledger.Resolved, "2026-11-18T09:00:00.000Z",
			entry(1, "alice", ledger.Answer, "2026-11-18T11:00:00.000Z"),
			entry(1, "architect", ledger.Resolution, "2026-11-18T12:00:00.000Z")),
		// 4: escalated by the monitor (stale twice); the event log has its stale event.
		withExtra(withExtra(rec("CLR-2-002", "pm", "architect", "budget", ledger.Escalated, "2026-11-19T09:00:00.000Z",
			entry(1, hub, ledger.Escalation, "2026-11-20T09:00:00.000Z")), "staleRound", "1"), "monitorReason", `"stale"`),
		// 5: escalated by a person (bob, with /clarify escalate).
		rec("CLR-3-001", "engineer", "pm", "pricing", ledger.Escalated, "2026-11-20T09:00:00.000Z",
			entry(1, "bob", ledger.Escalation, "2026-11-21T09:00:00.000Z")),
		// 6: the monitor broke a deadlock, then carol resolved it: the
		// outcome stays "escalated", and it waits for nobody now.
		withExtra(rec("CLR-3-002", "engineer", "architect", "schema", ledger.Resolved, "2026-11-21T04:00:00.000Z",
			entry(1, hub, ledger.Escalation, "2026-11-21T05:00:00.000Z"),
			entry(1, "carol", ledger.Resolution, "2026-11-22T05:00:00.000Z")), "monitorReason", `"deadlock"`),
		// 7: stuck (the same question came back), escalated by the monitor.
		withExtra(rec("CLR-3-003", "architect", "engineer", "retries", ledger.Escalated, "2026-11-20T10:00:00.000Z",
			entry(1, hub, ledger.Escalation, "2026-11-22T10:00:00.000Z")), "monitorReason", `"stuck"`),
		// 8: opened in the window's last millisecond, marked stale, no event
		// in the log (it was trimmed): the mark dates it by its question.
		withExtra(rec("CLR-4-001", "engineer", "architect", "logging", ledger.Pending, "2026-11-22T23:59:59.999Z"), "staleRound", "1"),
		// 9: opened exactly at the window's end: the next window's.
		rec("CLR-4-002", "engineer", "architect", "metrics", ledger.Pending, "2026-11-23T00:00:00.000Z"),
		// 10: abandoned in the previous window.
		rec("CLR-5-001", "pm", "engineer", "copy", ledger.Abandoned, "2026-11-10T09:00:00.000Z",
			entry(1, "pm", ledger.Resolution, "2026-11-12T09:00:00.000Z")),
		// 11: old, answered, the requester never followed up: open in both windows.
		rec("CLR-5-002", "engineer", "pm", "naming", ledger.Answered, "2026-11-01T09:00:00.000Z",
			entry(1, "pm", ledger.Answer, "2026-11-02T09:00:00.000Z")),
		// 12: opened at the window's first instant, answered in 5m, auto-resolved 10m later; its
		// topic recurs with 1. (Answers in the window: 5, 30, 60, 90, 120 minutes: median 60.)
		rec("CLR-6-001", "engineer", "architect", "auth  FLOW", ledger.Resolved, "2026-11-16T00:00:00.000Z",
			entry(1, "architect", ledger.Answer, "2026-11-16T00:05:00.000Z"),
			entry(1, "engineer", ledger.Resolution, "2026-11-16T00:10:00.000Z")),
		// 13: resolved in the previous window's last second.
		rec("CLR-6-002", "engineer", "architect", "paging", ledger.Resolved, "2026-11-09T09:00:00.000Z",
			entry(1, "architect", ledger.Answer, "2026-11-09T10:00:00.000Z"),
			entry(1, "engineer", ledger.Resolution, "2026-11-15T23:59:59.000Z")),
	}
	evs := []events.Event{
		event(t, events.ClarificationStale, "2026-11-19T12:00:00.000Z", events.ClarificationPayload{ClarificationID: "CLR-2-002", IssueNumber: 2}),
		event(t, events.MemoryRecalled, "2026-11-10T08:00:00.000Z", events.MemoryPayload{Agent: "engineer", Count: 1}),
		event(t, events.MemoryRecalled, "2026-11-17T08:00:00.000Z", events.MemoryPayload{Agent: "engineer", Count: 3}),
		event(t, events.MemoryRecalled, "2026-11-18T08:00:00.000Z", events.MemoryPayload{Agent: "architect", Count: 2}),
		event(t, metrics.EventType, "2026-11-18T08:00:00.000Z", metrics.Line{Command: "hook start", Counters: metrics.Counters{Lines: 1, RecallRuns: 1, RecallMS: 30, Recalled: 2, RecallTokens: 120, Displaced: 900}}),
		event(t, metrics.EventType, "2026-11-19T08:00:00.000Z", metrics.Line{Command: "hook start", Counters: metrics.Counters{Lines: 1, RecallRuns: 1, RecallMS: 10, RecallMisses: 1}}),
		event(t, metrics.EventType, "2026-11-19T09:00:00.000Z", metrics.Line{Command: "hook finish", Counters: metrics.Counters{Lines: 1, CaptureRuns: 1, CaptureMS: 40, Captured: 3, LockWaitMS: 2}}),
		event(t, metrics.EventType, "2026-11-12T09:00:00.000Z", metrics.Line{Command: "memory search", Counters: metrics.Counters{Lines: 1, Searches: 1, SearchMS: 5, SearchResults: 4}}),
	}
	mem := &MemoryInput{Times: []int64{
		at("2026-11-10T00:00:00Z").UnixMilli(), at("2026-11-17T00:00:00Z").UnixMilli(),
		at("2026-11-18T00:00:00Z").UnixMilli(), at("2026-11-25T00:00:00Z").UnixMilli(),
	}, Tokens: 1234}
	return &Input{Ledgers: ledgersOf(recs...), Events: evs, Memory: mem,
		Agents: map[string]bool{"engineer": true, "architect": true, "pm": true}}
}

func fp(v float64) *float64 { return &v }

func opts() Options {
	return Options{Since: since, Until: until,
		IssueURL: func(n int) string { return fmt.Sprintf("https://github.com/acme/app/issues/%d", n) }}
}

func TestComputeKnownAnswers(t *testing.T) {
	t.Parallel()
	rep := Compute(fixture(t), opts())
	want := Figures{
		Opened: 8, Settled: 8, Resolved: 4, AutoResolved: 3, ResolvedWithPerson: 1,
		Escalated: 4, EscalatedByMonitor: 3, EscalatedByPerson: 1, StillOpen: 2,
		AutoResolutionRate: fp(0.375), EscalationRate: fp(0.5), AverageRounds: fp(1.125),
		Rounds: [5]int{7, 1, 0, 0, 0}, MedianAnswerSeconds: fp(3600), MedianResolveSeconds: fp(7200),
		Stale: 2, Stuck: 1, Deadlocks: 1,
		Memory: MemoryFigures{Stored: 2, Recalled: 5, RecallEvents: 2, StoreSize: 3, RecallHitRate: fp(0.5),
			Metrics: metrics.NewReport(metrics.Counters{Lines: 3, RecallRuns: 2, RecallMS: 40, RecallMisses: 1, Recalled: 2,
				RecallTokens: 120, Displaced: 900, CaptureRuns: 1, CaptureMS: 40, Captured: 3, LockWaitMS: 2}, rep.Window.Since, rep.Window.Until)},
	}
	assertFigures(t, "current", rep.Current, want)
	wantPrev := Figures{
		Opened: 3, Settled: 2, Resolved: 1, AutoResolved: 1, Abandoned: 1, StillOpen: 2,
		AutoResolutionRate: fp(0.5), EscalationRate: fp(0), AverageRounds: fp(1),
		Rounds: [5]int{2, 0, 0, 0, 0}, MedianAnswerSeconds: fp(3600), MedianResolveSeconds: fp(572399),
		Memory: MemoryFigures{Stored: 1, Recalled: 1, RecallEvents: 1, StoreSize: 1,
			Metrics: metrics.NewReport(metrics.Counters{Lines: 1, Searches: 1, SearchMS: 5, SearchResults: 4}, rep.Previous.Since, rep.Previous.Until)},
	}
	assertFigures(t, "previous", rep.Prior, wantPrev)
	if rep.Week != "2026-W47" || FileName(rep.Window) != "DIGEST-2026-W47.md" || Title(rep.Window) != "AgentX digest 2026-W47" {
		t.Errorf("week %q, file %q, title %q", rep.Week, FileName(rep.Window), Title(rep.Window))
	}

	met := map[string]bool{}
	for _, c := range rep.Checks {
		if c.Met == nil {
			t.Fatalf("check %s has no verdict", c.Name)
		}
		met[c.Name] = *c.Met
	}
	if want := map[string]bool{"autoResolutionRate": false, "escalationRate": false, "averageRounds": false, "stale": false, "deadlocks": false}; fmt.Sprint(met) != fmt.Sprint(want) {
		t.Errorf("checks %v, want %v", met, want)
	}

	wantPairs := "engineer→architect 4/4 auto 3 esc 1 rounds 1.25; architect→engineer 1/1 auto 0 esc 1 rounds 1; " +
		"architect→pm 1/1 auto 0 esc 0 rounds 1; engineer→pm 1/1 auto 0 esc 1 rounds 1; pm→architect 1/1 auto 0 esc 1 rounds 1"
	var got []string
	for _, p := range rep.Pairs {
		got = append(got, fmt.Sprintf("%s→%s %d/%d auto %d esc %d rounds %s", p.From, p.To, p.Opened, p.Settled, p.AutoResolved, p.Escalated, num(p.AverageRounds)))
	}
	if strings.Join(got, "; ") != wantPairs {
		t.Errorf("pairs:\n got %s\nwant %s", strings.Join(got, "; "), wantPairs)
	}
	if len(rep.Topics) != 1 || rep.Topics[0].Topic != "auth flow" || rep.Topics[0].Count != 2 || fmt.Sprint(rep.Topics[0].Issues) != "[1 6]" {
		t.Errorf("topics %+v", rep.Topics)
	}
	var esc, long []string
	for _, w := range rep.Escalations {
		esc = append(esc, w.ID)
	}
	for _, w := range rep.Longest {
		long = append(long, w.ID)
	}
	if fmt.Sprint(esc) != "[CLR-2-002 CLR-3-001 CLR-3-003]" || fmt.Sprint(long) != "[CLR-5-002 CLR-4-001 CLR-4-002]" {
		t.Errorf("needs a person: escalations %v, longest %v", esc, long)
	}
	if w := rep.Longest[0]; w.Since != "2026-11-02T09:00:00.000Z" || w.WaitSeconds != int64(until.Sub(at("2026-11-02T09:00:00Z")).Seconds()) {
		t.Errorf("the answered record waits since its answer: %+v", w)
	}
	var trend []string
	for _, p := range rep.Trend {
		trend = append(trend, fmt.Sprintf("%s:%d/%d", p.Week, p.Opened, p.Settled))
	}
	if fmt.Sprint(trend) != "[2026-W44:1/0 2026-W45:0/0 2026-W46:3/2 2026-W47:8/8]" {
		t.Errorf("trend %v", trend)
	}
}

func assertFigures(t *testing.T, name string, got, want Figures) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if !bytes.Equal(g, w) {
		t.Errorf("%s figures:\n got %s\nwant %s", name, g, w)
	}
}

func TestEmptyWindow(t *testing.T) {
	t.Parallel()
	for name, in := range map[string]*Input{
		"nothing at all":     {},
		"history elsewhere":  fixture(t),
		"memory but no data": {Memory: &MemoryInput{Times: []int64{}}},
	} {
		t.Run(name, func(t *testing.T) {
			o := Options{Since: at("2030-01-07T00:00:00Z"), Until: at("2030-01-14T00:00:00Z")}
			rep := Compute(in, o)
			f := rep.Current
			if f.Opened+f.Settled+f.Stale+f.Memory.Stored+f.Memory.Recalled != 0 || f.AutoResolutionRate != nil || f.EscalationRate != nil || f.AverageRounds != nil {
				t.Errorf("empty window has figures: %+v", f)
			}
			for _, c := range rep.Checks[:3] {
				if c.Met != nil {
					t.Errorf("%s judged without data", c.Name)
				}
			}
			text := Markdown(rep, nil)
			if !strings.Contains(text, "No clarification was opened, settled or open in this window.") && f.StillOpen == 0 {
				t.Errorf("empty window not said:\n%s", text)
			}
			if strings.Contains(text, "pie") != (f.StillOpen > 0) || strings.Contains(text, "Rounds per settled") {
				t.Errorf("charts drawn without data:\n%s", text)
			}
			checkMermaid(t, text)
			var doc map[string]any
			if err := json.Unmarshal(mustJSON(t, rep), &doc); err != nil || doc["schemaVersion"] != float64(SchemaVersion) {
				t.Errorf("json %v %v", doc["schemaVersion"], err)
			}
		})
	}
}

func TestWeekNaming(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ mid, want string }{
		{"2026-11-19T12:00:00Z", "DIGEST-2026-W47.md"},
		{"2026-12-31T12:00:00Z", "DIGEST-2026-W53.md"},
		{"2027-01-01T12:00:00Z", "DIGEST-2026-W53.md"},
		{"2027-01-04T00:00:00Z", "DIGEST-2027-W01.md"},
		{"2020-12-31T12:00:00Z", "DIGEST-2020-W53.md"},
		{"2021-01-03T23:59:59Z", "DIGEST-2020-W53.md"},
		{"2021-01-04T00:00:00Z", "DIGEST-2021-W01.md"},
		{"2019-12-30T00:00:00Z", "DIGEST-2020-W01.md"},
	} {
		mid := at(c.mid)
		w := Window{Since: mid.Add(-84 * time.Hour), Until: mid.Add(84 * time.Hour)}
		if got := FileName(w); got != c.want {
			t.Errorf("window around %s: %s, want %s", c.mid, got, c.want)
		}
	}
	// A Monday-morning run reports the week that just ended.
	if got := WeekOf(LastDays(at("2026-11-23T06:00:00Z"), 7)); got != "2026-W47" {
		t.Errorf("Monday run names %s", got)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", name, got)
	}
}

func TestGolden(t *testing.T) {
	t.Parallel()
	o := opts()
	o.Now = at("2026-11-23T06:00:00Z")
	rep := Compute(fixture(t), o)
	text := Markdown(rep, func(s string) string { return strings.ReplaceAll(s, "@", "@\u200b") })
	golden(t, "digest.md", []byte(text))
	golden(t, "digest.json", mustJSON(t, rep))
	checkMermaid(t, text)
	if n := strings.Count(text, "```mermaid"); n != 3 {
		t.Errorf("%d mermaid blocks, want 3 (outcomes, rounds, trend)", n)
	}
}

func TestMarkdownEscapesLedgerText(t *testing.T) {
	t.Parallel()
	in := &Input{Ledgers: ledgersOf(
		rec("CLR-7-001", "eng|ineer", "arch`itect", "a | b\n# heading <script>", ledger.Pending, "2026-11-17T10:00:00.000Z"),
		rec("CLR-7-002", "eng|ineer", "arch`itect", "A | b # heading <script>", ledger.Pending, "2026-11-17T11:00:00.000Z"),
	)}
	text := Markdown(Compute(in, opts()), func(s string) string { return strings.ReplaceAll(s, "@", "(at)") })
	for _, bad := range []string{"eng|ineer", "arch`itect", "<script>", "\n# heading"} {
		if strings.Contains(text, bad) {
			t.Errorf("unescaped %q in:\n%s", bad, text)
		}
	}
	if !strings.Contains(text, `a \| b \# heading \<script\>`) {
		t.Errorf("topic not escaped on one line:\n%s", text)
	}
}

// checkMermaid is a small syntax check of the mermaid blocks the digest
// draws: the diagram types GitHub renders, the lines each allows, and bars
// and lines with one value per x-axis label.
func checkMermaid(t *testing.T, text string) {
	t.Helper()
	for _, e := range mermaidErrors(text) {
		t.Error(e)
	}
}

func mermaidErrors(text string) (errs []string) {
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	blocks := regexp.MustCompile("(?s)```mermaid\n(.*?)```").FindAllStringSubmatch(text, -1)
	var (
		pieTitle  = regexp.MustCompile(`^pie( showData)?( title [^"\n]+)?$`)
		pieSlice  = regexp.MustCompile(`^"[^"]+" : [0-9]+(\.[0-9]+)?$`)
		xyTitle   = regexp.MustCompile(`^title "[^"]*"$`)
		xAxis     = regexp.MustCompile(`^x-axis \[("[^"]+"(, "[^"]+")*)\]$`)
		yAxis     = regexp.MustCompile(`^y-axis "[^"]+" -?[0-9.]+ --> [0-9.]+$`)
		series    = regexp.MustCompile(`^(bar|line) \[(-?[0-9.]+(, -?[0-9.]+)*)\]$`)
		lineCount = 0
	)
	for _, b := range blocks {
		lines := strings.Split(strings.TrimRight(b[1], "\n"), "\n")
		lineCount += len(lines)
		switch head := lines[0]; {
		case pieTitle.MatchString(head):
			if len(lines) < 2 {
				fail("pie without slices:\n%s", b[1])
			}
			for _, l := range lines[1:] {
				if !pieSlice.MatchString(strings.TrimSpace(l)) {
					fail("bad pie line %q", l)
				}
			}
		case head == "xychart-beta":
			labels := -1
			for _, l := range lines[1:] {
				l = strings.TrimSpace(l)
				switch {
				case xyTitle.MatchString(l), yAxis.MatchString(l):
				case xAxis.MatchString(l):
					labels = len(strings.Split(xAxis.FindStringSubmatch(l)[1], ", "))
				case series.MatchString(l):
					if n := len(strings.Split(series.FindStringSubmatch(l)[2], ", ")); n != labels {
						fail("%d values for %d x-axis labels: %q", n, labels, l)
					}
				default:
					fail("bad xychart line %q", l)
				}
			}
		default:
			fail("unknown mermaid diagram %q", head)
		}
	}
	if strings.Count(text, "```mermaid") != len(blocks) {
		fail("an unterminated mermaid block")
	}
	_ = lineCount
	return errs
}

// TestMermaidCheckCatchesErrors keeps the checker honest.
func TestMermaidCheckCatchesErrors(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{
		"```mermaid\npie title X\n    \"a\" 3\n```\n",
		"```mermaid\nxychart-beta\n    x-axis [\"1\", \"2\"]\n    bar [1, 2, 3]\n```\n",
		"```mermaid\nbarchart\n```\n",
		"```mermaid\nxychart-beta\n    x-axis [1, 2]\n```\n",
	} {
		if len(mermaidErrors(bad)) == 0 {
			t.Errorf("checker accepted:\n%s", bad)
		}
	}
}

// The digest's headings are for its readers: no reference to the
// project's internal specs ("Measured (seed 000 §12)" was one, issue 37).
// The review section, the Action's only, is rendered here too.
func TestHeadingsAreUserFacing(t *testing.T) {
	t.Parallel()
	o := opts()
	o.Now = at("2026-11-23T06:00:00Z")
	rep := Compute(fixture(t), o)
	rep.Reviews = &ReviewFigures{Available: false, Reason: "no pull requests"}
	text := Markdown(rep, func(s string) string { return s })
	headings := 0
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		headings++
		if strings.Contains(line, "seed ") || strings.Contains(line, "§") || strings.Contains(line, "SPEC") {
			t.Errorf("heading %q names an internal spec", line)
		}
	}
	if headings < 5 || !strings.Contains(text, "## Review rejections") {
		t.Fatalf("rendered %d headings, no review section?\n%s", headings, text)
	}
}
