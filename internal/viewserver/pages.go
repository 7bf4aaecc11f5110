package viewserver

import (
	"embed"
	"html/template"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/agentstatus"
	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/contenthash"
	"github.com/agentx-dev/agentx/internal/core/digest"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

//go:embed templates/*.html static/*
var assets embed.FS

// PageSize bounds every list a page shows: the work of a request follows
// the page, not the store (a million observations page by page).
const PageSize = 50

// pages renders the view's pages. html/template escapes every value it
// is given: stored text (topics, bodies, observations) reaches the page
// as text whatever it holds; the only markup not written here is the
// digest's and the graph's SVG, built with html.EscapeString.
type pages struct {
	s    *Server
	tmpl *template.Template
}

func newPages(s *Server) (*pages, error) {
	t, err := template.New("view").Funcs(template.FuncMap{
		"tampered":   func(i contenthash.Integrity) bool { return i == contenthash.Tampered },
		"ago":        func(ts string) string { return ago(s.opt.Source.Now(), ts) },
		"categories": memory.Categories,
	}).ParseFS(assets, "templates/*.html")
	if err != nil {
		return nil, err
	}
	return &pages{s: s, tmpl: t}, nil
}

// page is what every page template gets.
type page struct {
	Title   string
	Nav     string
	FP      string
	Version string
	Data    any
}

func (p *pages) render(w http.ResponseWriter, name, title string, data any) {
	var b strings.Builder
	err := p.tmpl.ExecuteTemplate(&b, name, page{Title: title, Nav: name, FP: p.s.opt.Source.Fingerprint(), Version: p.s.opt.Version, Data: data})
	if err != nil {
		http.Error(w, "agentx view: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(b.String()))
}

func (p *pages) fail(w http.ResponseWriter, err error) {
	http.Error(w, "agentx view: "+err.Error(), http.StatusInternalServerError)
}

func (p *pages) static(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	data, err := assets.ReadFile("static/" + name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	switch {
	case strings.HasSuffix(name, ".css"):
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		data = append(append(data, '\n'), digest.HTMLStyle...)
	case strings.HasSuffix(name, ".js"):
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	}
	_, _ = w.Write(data)
}

// counts are the overview's figures over every record.
type counts struct {
	Open, Blocked, Stale, Escalated, Answered int
}

type overviewData struct {
	Agents  []agentstatus.Entry
	Counts  counts
	Issues  []issueRow
	Events  []events.Event
	Skipped []string
	Verify  verifyView
}

type issueRow struct {
	Issue                int
	Open, Blocked, Total int
}

type verifyView struct {
	Checked  bool
	Err      string
	Errors   int
	Warnings int
	First    []string
	At       string
}

func (p *pages) overview(w http.ResponseWriter, r *http.Request) {
	src := p.s.opt.Source
	agents, err := src.Agents()
	if err != nil {
		p.fail(w, err)
		return
	}
	recs, skipped, err := src.Records()
	if err != nil {
		p.fail(w, err)
		return
	}
	d := overviewData{Agents: agents}
	for _, e := range skipped {
		d.Skipped = append(d.Skipped, e.Error())
	}
	byIssue := tally(recs, &d.Counts)
	for _, row := range byIssue {
		d.Issues = append(d.Issues, *row)
	}
	sort.Slice(d.Issues, func(i, j int) bool {
		a, b := d.Issues[i], d.Issues[j]
		if (a.Open > 0) != (b.Open > 0) {
			return a.Open > 0
		}
		return a.Issue > b.Issue
	})
	if len(d.Issues) > PageSize {
		d.Issues = d.Issues[:PageSize]
	}
	evs, err := src.Events(time.Time{})
	if err == nil {
		if len(evs) > 20 {
			evs = evs[len(evs)-20:]
		}
		slices.Reverse(evs)
		d.Events = evs
	}
	rep, at, verr := p.s.verify.state()
	switch {
	case verr != nil:
		d.Verify = verifyView{Checked: true, Err: verr.Error()}
	case rep != nil:
		d.Verify.Checked, d.Verify.At = true, at.UTC().Format("15:04:05 UTC")
		for _, pr := range rep.Problems {
			if string(pr.Severity) == "error" {
				d.Verify.Errors++
			} else {
				d.Verify.Warnings++
			}
			if len(d.Verify.First) < 5 {
				d.Verify.First = append(d.Verify.First, pr.Code+": "+pr.Path+" "+pr.Message)
			}
		}
	}
	p.render(w, "overview", "Overview", d)
}

// tally counts recs into c and by issue.
func tally(recs []ledger.Record, c *counts) map[int]*issueRow {
	byIssue := map[int]*issueRow{}
	for _, rec := range recs {
		row := byIssue[rec.IssueNumber]
		if row == nil {
			row = &issueRow{Issue: rec.IssueNumber}
			byIssue[rec.IssueNumber] = row
		}
		row.Total++
		switch rec.Status {
		case ledger.Escalated:
			c.Escalated++
		case ledger.Answered:
			c.Answered++
		}
		if !rec.Status.Open() {
			continue
		}
		c.Open++
		row.Open++
		if rec.Status == ledger.Stale {
			c.Stale++
		}
		if rec.Blocking && rec.Status != ledger.Answered {
			c.Blocked++
			row.Blocked++
		}
	}
	return byIssue
}

// thread is a record as the issue page shows it.
type thread struct {
	ledger.Record
	Entries  []entryView
	Tampered bool
	Overdue  bool
}

type entryView struct {
	ledger.Entry
	Tampered bool
}

type issueData struct {
	Issue     int
	Stage     *artifact.Stage
	Artifacts []artifactView
	Stale     []string
	Threads   []thread
	Memory    []obsView
	More      int
	Page      int
	NextPage  int
}

// artifactView is a stage artifact as the issue page lists it.
type artifactView struct {
	artifact.Artifact
	Effective artifact.Status
	Tampered  bool
}

type obsView struct {
	memory.Observation
	Tampered bool
	Date     string
}

func (p *pages) issue(w http.ResponseWriter, r *http.Request) {
	n, err := validate.LedgerIssue(r.PathValue("n"))
	if err != nil {
		http.Error(w, "agentx view: "+err.Error(), http.StatusBadRequest)
		return
	}
	src := p.s.opt.Source
	l, err := src.Ledger(n)
	if err != nil {
		p.fail(w, err)
		return
	}
	d := issueData{Issue: n, Page: pageOf(r)}
	now := src.Now()
	for _, rec := range l.Clarifications {
		t := thread{Record: rec, Overdue: rec.Status.Open() && rec.Status != ledger.Answered && now.After(rec.StaleAfterTime())}
		bad := rec.TamperedEntries()
		for i, e := range rec.Thread {
			t.Entries = append(t.Entries, entryView{Entry: e, Tampered: slices.Contains(bad, i)})
		}
		t.Tampered = len(bad) > 0 || rec.RecordIntegrity() == contenthash.Tampered
		d.Threads = append(d.Threads, t)
	}
	var open []ledger.Record
	for _, rec := range l.Clarifications {
		if rec.Status.Open() {
			open = append(open, rec)
		}
	}
	stage, af, err := src.Stage(n, open)
	if err != nil {
		p.fail(w, err)
		return
	}
	d.Stage = stage
	if af != nil {
		for i := range af.Artifacts {
			a := &af.Artifacts[i]
			d.Artifacts = append(d.Artifacts, artifactView{Artifact: *a, Effective: af.EffectiveStatus(a), Tampered: a.Integrity() == contenthash.Tampered})
		}
		for _, fd := range af.Findings() {
			d.Stale = append(d.Stale, fd.String())
		}
	}
	obs, err := src.IssueObservations(r.Context(), n)
	if err != nil {
		p.fail(w, err)
		return
	}
	sort.SliceStable(obs, func(i, j int) bool { return obs[i].Timestamp > obs[j].Timestamp })
	from := d.Page * PageSize
	if from < len(obs) {
		to := min(from+PageSize, len(obs))
		for _, o := range obs[from:to] {
			d.Memory = append(d.Memory, view(o))
		}
		if to < len(obs) {
			d.More, d.NextPage = len(obs)-to, d.Page+1
		}
	}
	p.render(w, "issue", "Issue #"+strconv.Itoa(n), d)
}

func view(o memory.Observation) obsView {
	date := o.Timestamp
	if len(date) >= 10 {
		date = date[:10]
	}
	return obsView{Observation: o, Tampered: o.Integrity() == contenthash.Tampered, Date: date}
}

type graphData struct {
	Graph *monitor.WaitGraph
	SVG   template.HTML
}

func (p *pages) graph(w http.ResponseWriter, r *http.Request) {
	src := p.s.opt.Source
	recs, _, err := src.Records()
	if err != nil {
		p.fail(w, err)
		return
	}
	g := monitor.NewWaitGraph(recs, src.Now(), src.Priority())
	// The SVG is built with every stored string escaped (graph.go).
	p.render(w, "graph", "Who waits on whom", graphData{Graph: g, SVG: template.HTML(graphSVG(g))}) //nolint:gosec // escaped where built
}

type memoryData struct {
	Query    string
	Agent    string
	Issue    string
	Category string
	Rows     []rowView
	Page     int
	NextPage int
	PrevPage int
	Searched bool
	Err      string
}

type rowView struct {
	memory.Row
	Tampered bool
}

func (p *pages) memory(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := memoryData{Query: q.Get("q"), Agent: q.Get("agent"), Issue: q.Get("issue"), Category: q.Get("category"), Page: pageOf(r), PrevPage: -1}
	mq := memory.Query{Text: d.Query, Agent: d.Agent, Category: memory.Category(d.Category)}
	if d.Issue != "" {
		n, err := validate.LedgerIssue(d.Issue)
		if err != nil {
			d.Err = err.Error()
			p.render(w, "memory", "Memory", d)
			return
		}
		mq.Issue, mq.IssueSet = n, true
	}
	if d.Category != "" && !mq.Category.Known() {
		d.Err = "unknown category " + strconv.Quote(d.Category)
		p.render(w, "memory", "Memory", d)
		return
	}
	if strings.TrimSpace(mq.Text) == "" && mq.Agent == "" && !mq.IssueSet && mq.Category == "" {
		p.render(w, "memory", "Memory", d) // the form alone
		return
	}
	d.Searched = true
	// One row past the page says whether there is a next one.
	mq.Limit = (d.Page+1)*PageSize + 1
	rows, err := p.s.opt.Source.Search(r.Context(), mq)
	if err != nil {
		d.Err = err.Error()
		p.render(w, "memory", "Memory", d)
		return
	}
	from := d.Page * PageSize
	if len(rows) > from+PageSize {
		d.NextPage = d.Page + 1
		rows = rows[:from+PageSize]
	}
	if d.Page > 0 {
		d.PrevPage = d.Page - 1
	}
	if from < len(rows) {
		rows = rows[from:]
	} else {
		rows = nil
	}
	marks := p.integrityOf(r, rows)
	for _, row := range rows {
		d.Rows = append(d.Rows, rowView{Row: row, Tampered: marks[row.ID]})
	}
	p.render(w, "memory", "Memory", d)
}

// integrityOf reads the issue files of one page's rows and says which rows
// changed since they were stored: a search ranks the index, which holds no
// hashes, and a tampered note must not look intact here.
func (p *pages) integrityOf(r *http.Request, rows []memory.Row) map[string]bool {
	out := map[string]bool{}
	issues := map[int]bool{}
	for _, row := range rows {
		issues[row.IssueNumber] = true
	}
	for n := range issues {
		obs, err := p.s.opt.Source.IssueObservations(r.Context(), n)
		if err != nil {
			continue
		}
		for i := range obs {
			if obs[i].Integrity() == contenthash.Tampered {
				out[obs[i].ID] = true
			}
		}
	}
	return out
}

func (p *pages) observation(w http.ResponseWriter, r *http.Request) {
	o, err := p.s.opt.Source.Observation(r.Context(), r.PathValue("id"))
	if err != nil {
		http.Error(w, "agentx view: "+err.Error(), http.StatusNotFound)
		return
	}
	p.render(w, "observation", o.ID, view(*o))
}

type digestData struct {
	Days int
	Body template.HTML
	Week string
}

func (p *pages) digest(w http.ResponseWriter, r *http.Request) {
	days := 7
	if v := r.URL.Query().Get("days"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 3660 {
			http.Error(w, "agentx view: days must be 1-3660", http.StatusBadRequest)
			return
		}
		days = n
	}
	rep, err := p.s.opt.Source.Digest(r.Context(), days)
	if err != nil {
		p.fail(w, err)
		return
	}
	// digest.HTMLBody escapes every text it takes from a ledger.
	p.render(w, "digest", digest.Title(rep.Window), digestData{Days: days, Body: template.HTML(digest.HTMLBody(rep)), Week: rep.Week}) //nolint:gosec // escaped where built
}

// pageOf is the ?page= of a request (0 when absent or bad).
func pageOf(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || n < 0 || n > 1_000_000 {
		return 0
	}
	return n
}

// ago is a timestamp as "5 min ago" against now ("" when unreadable).
func ago(now time.Time, ts string) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ts
	}
	d := now.Sub(t)
	switch {
	case d < 0:
		return "in " + (-d).Round(time.Minute).String()
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + " min ago"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + " h ago"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + " days ago"
}
