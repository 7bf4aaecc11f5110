package hookcmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/memory/synth"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

const memoryUsage = `memory search QUERY [--limit N] [--agent A] [--issue N] [--category C] [--since T] [--until T] [--json]
       agentx-hook memory get ID [--json]
       agentx-hook memory stats [--json]
       agentx-hook memory add --agent A --issue N --category C [--session S] TEXT
       agentx-hook memory add --file F      (a JSON array of observations, or an issue file)
       agentx-hook memory remove ID [--json]
       agentx-hook memory rebuild [--json]
       agentx-hook memory generate --observations N --issues M [--seed S] [--json]
       agentx-hook memory capture --agent A --issue N [--file F]
       agentx-hook memory recall --agent A --issue N [--query Q] [--budget TOKENS] [--format text|claude|codex|json] [--write-instructions] [--json]
       agentx-hook memory compact --issue N

Search ranks observations by BM25 over summary and content (any query word
may match; stop words are ignored) and prints compact rows; ` + "`memory get ID`" + `
prints one observation in full. ` + "`generate`" + ` fills the workspace with N
synthetic observations over M issues, for benchmarks and trying agentx at scale.`

// memorySubs are the memory subcommands.
func memorySubs() map[string]func(context.Context, *App, []string) error {
	return map[string]func(context.Context, *App, []string) error{
		"search":   runMemorySearch,
		"get":      runMemoryGet,
		"stats":    runMemoryStats,
		"add":      runMemoryAdd,
		"remove":   runMemoryRemove,
		"rebuild":  runMemoryRebuild,
		"generate": runMemoryGenerate,
		"capture":  runMemoryCapture, // pipeline.go
		"recall":   runMemoryRecall,
		"compact":  runMemoryCompact,
	}
}

func runMemory(ctx context.Context, a *App, args []string) error {
	// A memory command is a short process that allocates a few large
	// buffers (the manifest is rewritten whole); collecting garbage it is
	// about to exit with cost a third of a store's time. The collector
	// runs only if the heap passes 512 MB (far above a 100K store's needs).
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(512 << 20))
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, ok := memorySubs()[args[0]]
		if !ok {
			return usagef("unknown memory subcommand %q (search, get, stats, add, remove, rebuild, generate, capture, recall, compact)", args[0])
		}
		return sub(ctx, a, args[1:])
	}
	fs := newFlags(a, "memory", memoryUsage)
	if _, err := parse(fs, args); err != nil {
		return err
	}
	return usagef("memory needs a subcommand (search, get, stats, add, remove, rebuild, generate, capture, recall, compact)")
}

// Memory returns the observation store, reporting warnings on stderr.
func (a *App) Memory() *memory.Store {
	s := memory.New(a.Workspace().MemoryDir(), a.Locks(), a.Clock)
	s.Events = a.Events()
	s.Warn = func(msg string) { fmt.Fprintf(a.Stderr, "warning: %s\n", msg) }
	s.Progress = a.progress("rebuilding the memory index")
	return s
}

func runMemorySearch(ctx context.Context, a *App, args []string) error {
	fs := newFlags(a, "memory search", "memory search QUERY [--limit N] [--agent A] [--issue N] [--category C] [--since T] [--until T] [--json]")
	limit := fs.Int("limit", 20, "at most `N` rows (0: all)")
	agent := fs.String("agent", "", "only observations by agent `A`")
	issueFlag := fs.String("issue", "", "only observations of issue `N`")
	cat := fs.String("category", "", "only category `C` (decision, code-change, error, key-fact, compaction-summary)")
	since := fs.String("since", "", "only observations at or after `T` (ISO 8601, or a duration such as 7d or 12h)")
	until := fs.String("until", "", "only observations at or before `T` (ISO 8601)")
	asJSON := fs.Bool("json", false, "print one JSON document")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	q := memory.Query{Text: strings.Join(pos, " "), Agent: *agent, Category: memory.Category(*cat), Limit: *limit}
	if *limit == 0 {
		q.Limit = -1
	} else if *limit < 0 {
		return usagef("--limit must not be negative")
	}
	if *issueFlag != "" {
		if q.Issue, err = validate.Issue(*issueFlag); err != nil {
			return err
		}
	}
	if *cat != "" && !q.Category.Known() {
		return errcode.New(errcode.InvalidInput, "unknown category %q (decision, code-change, error, key-fact, compaction-summary)", *cat)
	}
	if q.Since, err = parseWhen(a, *since); err != nil {
		return err
	}
	if q.Until, err = parseWhen(a, *until); err != nil {
		return err
	}
	if strings.TrimSpace(q.Text) == "" && q.Agent == "" && q.Issue == 0 && q.Category == "" && q.Since.IsZero() && q.Until.IsZero() {
		return usagef("memory search needs a QUERY or a filter (--agent, --issue, --category, --since, --until)")
	}
	rows, err := a.Memory().Search(ctx, q)
	if err != nil {
		return err
	}
	if *asJSON {
		out := make([]map[string]any, 0, len(rows))
		for _, r := range rows {
			out = append(out, map[string]any{"id": r.ID, "agent": r.Agent, "issueNumber": r.IssueNumber,
				"category": r.Category, "summary": r.Summary, "tokens": r.Tokens, "timestamp": r.Timestamp,
				"score": roundScore(r.Score)})
		}
		return writeJSON(a.Stdout, map[string]any{"schema_version": SchemaVersion, "query": q.Text, "count": len(out), "results": out})
	}
	if len(rows) == 0 {
		fmt.Fprintln(a.Stdout, "No matching observations.")
		return nil
	}
	st := a.Style()
	for _, r := range rows {
		date := r.Timestamp
		if len(date) >= 10 {
			date = date[:10]
		}
		fmt.Fprintf(a.Stdout, "%s  #%d  %s  %s  %s  (%d tokens)\n", st.Bold(r.ID), r.IssueNumber, r.Agent, r.Category, date, r.Tokens)
		fmt.Fprintf(a.Stdout, "    %s\n", r.Summary)
	}
	fmt.Fprintf(a.Stdout, "%s\n", st.Dim(fmt.Sprintf("%d result(s); `agentx-hook memory get ID` shows one in full", len(rows))))
	return nil
}

func roundScore(s float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(s, 'f', 4, 64), 64)
	return v
}

// parseWhen reads an ISO time or a duration before now (7d, 12h, 30m).
func parseWhen(a *App, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := clock.Parse(s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if d, err := strconv.Atoi(n); err == nil && d >= 0 {
			return a.Clock.Now().Add(-time.Duration(d) * 24 * time.Hour), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return a.Clock.Now().Add(-d), nil
	}
	return time.Time{}, errcode.New(errcode.InvalidInput, "cannot read time %q (use 2026-03-01, an ISO timestamp, or 7d / 12h)", s)
}

func runMemoryGet(ctx context.Context, a *App, args []string) error {
	fs := newFlags(a, "memory get", "memory get ID [--json]")
	asJSON := fs.Bool("json", false, "print one JSON document")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("memory get needs one observation ID")
	}
	o, err := a.Memory().GetByID(ctx, pos[0])
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.Stdout, map[string]any{"schema_version": SchemaVersion, "observation": o})
	}
	st := a.Style()
	fmt.Fprintf(a.Stdout, "%s\n", st.Bold(o.ID))
	fmt.Fprintf(a.Stdout, "Issue: #%d  Agent: %s  Category: %s  Tokens: %d\n", o.IssueNumber, o.Agent, o.Category, o.Tokens)
	fmt.Fprintf(a.Stdout, "Time: %s", o.Timestamp)
	if o.SessionID != "" { // hand-added and generated observations have none
		fmt.Fprintf(a.Stdout, "  Session: %s", o.SessionID)
	}
	if o.RecallCount > 0 {
		fmt.Fprintf(a.Stdout, "  Recalled: %d", o.RecallCount)
	}
	fmt.Fprintf(a.Stdout, "\n\n%s\n", o.Content)
	return nil
}

func runMemoryStats(ctx context.Context, a *App, args []string) error {
	fs := newFlags(a, "memory stats", "memory stats [--json]")
	asJSON := fs.Bool("json", false, "print one JSON document")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	s, err := a.Memory().Stats(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.Stdout, map[string]any{"schema_version": SchemaVersion, "stats": s})
	}
	fmt.Fprintf(a.Stdout, "Observations: %d  Tokens: %d  Issues: %d  Disk: %s\n", s.TotalObservations, s.TotalTokens, s.IssueCount, humanBytes(s.DiskBytes))
	if s.TotalObservations > 0 {
		fmt.Fprintf(a.Stdout, "Oldest: %s  Newest: %s\n", s.OldestTimestamp, s.NewestTimestamp)
	}
	for _, part := range []struct {
		name string
		m    map[string]int
	}{{"By category", s.ByCategory}, {"By agent", s.ByAgent}} {
		if len(part.m) == 0 {
			continue
		}
		var items []string
		for _, k := range memory.SortedKeys(part.m) {
			items = append(items, fmt.Sprintf("%s %d", k, part.m[k]))
		}
		fmt.Fprintf(a.Stdout, "%s: %s\n", part.name, strings.Join(items, ", "))
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(a.Stdout, "warning: %s\n", w)
	}
	return nil
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func runMemoryAdd(ctx context.Context, a *App, args []string) error {
	fs := newFlags(a, "memory add", "memory add --agent A --issue N --category C [--session S] TEXT\n       agentx-hook memory add --file F\n\nStores one observation by hand, or a batch from F (a JSON array of observations\nwith the reference fields, or an issue file); captures normally come from `hook finish`.")
	file := fs.String("file", "", "store the observations in JSON file `F` (- for stdin)")
	agent := fs.String("agent", "", "the observing agent `A`")
	issueFlag := fs.String("issue", "", "issue `N`")
	cat := fs.String("category", "key-fact", "category `C`")
	session := fs.String("session", "", "session ID `S`")
	id := fs.String("id", "", "use this observation `ID` instead of a new one (imports, scripted demos)")
	asJSON := fs.Bool("json", false, "print one JSON document")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *file != "" {
		return addFromFile(ctx, a, *file, *asJSON)
	}
	if *agent == "" || *issueFlag == "" {
		return usagef("memory add needs --agent A and --issue N (or --file F)")
	}
	if !memory.Category(*cat).Known() {
		return errcode.New(errcode.InvalidInput, "unknown category %q (decision, code-change, error, key-fact, compaction-summary)", *cat)
	}
	if err := validate.Agent("agent", *agent); err != nil {
		return err
	}
	issue, err := validate.Issue(*issueFlag)
	if err != nil {
		return err
	}
	text := strings.TrimSpace(strings.Join(pos, " "))
	if text == "" {
		return usagef("memory add needs the observation TEXT")
	}
	// By hand as through capture: the SPEC's size limit, and no private
	// part or secret ever reaches disk.
	if n := utf8.RuneCountInString(text); n > sanitize.MaxChars {
		return errcode.New(errcode.InvalidInput, "observation is %d characters, the limit is %d", n, sanitize.MaxChars)
	}
	if clean := strings.TrimSpace(sanitize.Text(text)); clean != text {
		if clean == "" {
			return errcode.New(errcode.InvalidInput, "nothing left to store once private parts and secrets are removed")
		}
		a.warn("removed private parts or secrets before storing")
		text = clean
	}
	stored, err := a.Memory().Store(ctx, []memory.Observation{{ID: *id, Agent: *agent, IssueNumber: issue,
		Category: memory.Category(*cat), Content: text, SessionID: *session}})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.Stdout, map[string]any{"schema_version": SchemaVersion, "stored": nonNil(stored)})
	}
	if len(stored) == 0 {
		fmt.Fprintln(a.Stdout, "Already stored (same agent, issue and content).")
		return nil
	}
	fmt.Fprintln(a.Stdout, stored[0].ID)
	return nil
}

func addFromFile(ctx context.Context, a *App, path string, asJSON bool) error {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(a.Stdin)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return errcode.Wrap(errcode.InvalidInput, err, "read %s", path)
	}
	obs, err := memory.ParseObservations(path, data)
	if err != nil {
		return err
	}
	for i := range obs { // a hand-made file is outside input like any other
		obs[i].Content = sanitize.Text(obs[i].Content)
		if obs[i].Summary != "" {
			obs[i].Summary = sanitize.Text(obs[i].Summary)
		}
	}
	stored, err := a.Memory().Store(ctx, obs)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(a.Stdout, map[string]any{"schema_version": SchemaVersion, "stored": nonNil(stored)})
	}
	fmt.Fprintf(a.Stdout, "Stored %d of %d observations (the rest were already stored).\n", len(stored), len(obs))
	return nil
}

func runMemoryRemove(ctx context.Context, a *App, args []string) error {
	fs := newFlags(a, "memory remove", "memory remove ID [--json]")
	asJSON := fs.Bool("json", false, "print one JSON document")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("memory remove needs one observation ID")
	}
	ok, err := a.Memory().Remove(ctx, pos[0])
	if err != nil {
		return err
	}
	if !ok {
		return errcode.New(errcode.NotFound, "no observation %q", pos[0])
	}
	if *asJSON {
		return writeJSON(a.Stdout, map[string]any{"schema_version": SchemaVersion, "removed": pos[0]})
	}
	fmt.Fprintf(a.Stdout, "Removed %s.\n", pos[0])
	return nil
}

func runMemoryRebuild(ctx context.Context, a *App, args []string) error {
	fs := newFlags(a, "memory rebuild", "memory rebuild [--json]\n\nRebuilds manifest.json and the search index from the issue files.")
	asJSON := fs.Bool("json", false, "print one JSON document")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	rep, err := a.Memory().Rebuild(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.Stdout, map[string]any{"schema_version": SchemaVersion, "rebuild": rep})
	}
	fmt.Fprintf(a.Stdout, "Manifest rebuilt: %d observations from %d issue files in %s.\n", rep.Entries, rep.IssueFiles, rep.Duration.Round(time.Millisecond))
	for _, f := range rep.Skipped {
		fmt.Fprintf(a.Stdout, "skipped (corrupt, left untouched): %s\n", f)
	}
	return nil
}

// progress reports a long operation on stderr, only when stderr is a
// terminal and the operation is large.
func (a *App) progress(what string) func(done, total int) {
	if !a.StderrTTY {
		return nil
	}
	return func(done, total int) {
		if total < 500 {
			return
		}
		fmt.Fprintf(a.Stderr, "\r%s: %d/%d", what, done, total)
		if done == total {
			fmt.Fprintln(a.Stderr)
		}
	}
}

func runMemoryGenerate(ctx context.Context, a *App, args []string) error {
	fs := newFlags(a, "memory generate", "memory generate --observations N --issues M [--seed S]\n\nAdds N synthetic observations (decisions, code changes, errors and key facts of\na software team) over issues 1..M to this workspace's memory store, for\nbenchmarks and for trying agentx at scale. Run it in a scratch workspace:\n  agentx-hook --root /tmp/big memory generate --observations 100000 --issues 2000")
	n := fs.Int("observations", 10000, "how many observations `N`")
	issues := fs.Int("issues", 200, "spread over issues 1..`M`")
	seed := fs.Uint64("seed", 1, "random seed `S` (same seed, same corpus)")
	asJSON := fs.Bool("json", false, "print one JSON document")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *n <= 0 || *issues <= 0 || *n > 10_000_000 {
		return usagef("--observations and --issues must be positive")
	}
	start := time.Now()
	obs := synth.Observations(*n, *issues, *seed, a.Clock.Now())
	s := a.Memory()
	s.Events = nil
	rep, err := s.Import(ctx, obs)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.Stdout, map[string]any{"schema_version": SchemaVersion, "generated": *n, "issues": *issues,
			"seed": *seed, "storeTotal": rep.Entries, "durationMs": time.Since(start).Milliseconds()})
	}
	fmt.Fprintf(a.Stdout, "Generated %d observations over %d issues in %s (store now holds %d).\n",
		*n, *issues, time.Since(start).Round(time.Millisecond), rep.Entries)
	return nil
}

// demoObservationID is fixed so the tour can show `memory get`.
const demoObservationID = "obs-architect-42-1772384655123-demo01"

func demoMemory() []demoStep {
	return []demoStep{
		{title: "Memory: agents store what they learned (normally captured by `hook finish`)",
			args: []string{"memory", "add", "--agent", "architect", "--issue", "42", "--category", "decision", "--id", demoObservationID,
				"Token validation lives in one middleware that also refreshes expired tokens; controllers never parse JWTs."}},
		{args: []string{"memory", "add", "--agent", "engineer", "--issue", "42", "--category", "error",
			"Error: ECONNREFUSED when the session store (Redis) was down; login now fails closed with a 503."}},
		{args: []string{"memory", "add", "--agent", "product-manager", "--issue", "57", "--category", "key-fact",
			"Lockout lasts 15 minutes after five failed logins; the message must say so."}},
		{title: "Add 2,000 synthetic observations so search has something to rank",
			args: []string{"memory", "generate", "--observations", "2000", "--issues", "60", "--seed", "7"}},
		{title: "Ranked search: compact rows first (progressive disclosure)",
			args: []string{"memory", "search", "token refresh middleware", "--limit", "3"}},
		{title: "Filters: only the product manager's key facts",
			args: []string{"memory", "search", "lockout", "--agent", "product-manager", "--category", "key-fact", "--limit", "2"}},
		{title: "The full observation behind a row", args: []string{"memory", "get", demoObservationID}},
		{title: "What the store holds", args: []string{"memory", "stats"}},
	}
}
