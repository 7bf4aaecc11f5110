package hookcmd

import (
	"bufio"
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/contenthash"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/memanchor"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/metrics"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/shorten"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

const memoryUsage = `memory search QUERY [--limit N] [--agent A] [--issue N] [--category C] [--since T] [--until T] [--archived] [--json]
       agentx-hook memory get ID [--json]
       agentx-hook memory stats [--json]
       agentx-hook memory add --agent A --issue N --category C [--session S] TEXT
       agentx-hook memory add --file F      (a JSON array of observations, or an issue file)
       agentx-hook memory remove ID [--json]
       agentx-hook memory restore ID [--json]   (an archived observation back into its issue)
       agentx-hook memory rebuild [--reference] [--after-sync [--pull-first]] [--json]
       agentx-hook memory generate --observations N --issues M [--seed S] [--json] (DIR | --into-store)
       agentx-hook memory capture --agent A --issue N [--file F]
       agentx-hook memory recall --agent A --issue N [--query Q] [--budget TOKENS] [--format text|claude|codex|json] [--write-instructions] [--json]
       agentx-hook memory compact --issue N | --auto

Search ranks observations by BM25 over summary and content (any query word
may match; stop words are ignored) and prints compact rows; ` + "`memory get ID`" + `
prints one observation in full. ` + "`generate`" + ` fills the workspace with N
synthetic observations over M issues, for benchmarks and trying agentx at scale.`

// memorySubs are the memory subcommands.
func memorySubs() map[string]runFunc {
	return map[string]runFunc{
		"search":   wire(parseMemorySearch, runMemorySearch),
		"get":      wire(parseMemoryGet, runMemoryGet),
		"stats":    wire(parseMemoryStats, runMemoryStats),
		"add":      wire(parseMemoryAdd, runMemoryAdd),
		"remove":   wire(parseMemoryRemove, runMemoryRemove),
		"rebuild":  wire(parseMemoryRebuild, runMemoryRebuild),
		"generate": wire(parseMemoryGenerate, runMemoryGenerate),
		"capture":  wire(parseMemoryCapture, runMemoryCapture), // pipeline.go
		"recall":   wire(parseRecall, runMemoryRecall),
		"compact":  wire(parseMemoryCompact, runMemoryCompact),
		"restore":  wire(parseMemoryRestore, runMemoryRestore), // retention.go
	}
}

func runMemory(ctx context.Context, a *App, args []string) error {
	// A memory command is a short process that allocates a few large
	// buffers (the manifest is rewritten whole); collecting garbage it is
	// about to exit with cost a third of a store's time. The collector
	// runs only if the heap passes 512 MB (far above a 100K store's needs).
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(512 << 20))
	return a.dispatch(ctx, "memory", memoryUsage, "search, get, stats, add, remove, restore, rebuild, generate, capture, recall, compact",
		inMap(memorySubs()), nil, args)
}

// Memory returns the observation store, reporting warnings on stderr.
func (a *App) Memory() *memory.Store {
	s := memory.New(a.Workspace().MemoryDir(), a.Locks(), a.Clock)
	s.Events = a.Events()
	s.Warn = a.warn
	s.Progress = a.progress("rebuilding the memory index")
	s.Audit, s.Actor = a.AuditTrail(), a.actor()
	// A configuration that does not load is reported by the command that
	// needs it; the store then keeps its default: no manifest.json.
	set, err := a.Config()
	switch {
	case err == nil && set.Config.Memory.ReferenceManifest():
		s.DeltaLimit = -1
	case err == nil && !set.Config.Memory.NoManifest(): // "delta"
	default:
		s.FileBase = true
	}
	return s
}

// memorySearchOptions is `memory search`'s command line; Query holds
// the query and its filters as the store takes them.
type memorySearchOptions struct {
	Query memory.Query
	Since string // --since as given (parsed against the clock when run)
	Until string
	// Archived searches the archive (retention.go) instead of the store.
	Archived bool
	// Step keeps the observations captured in that workflow step.
	Step string
	jsonFlag
}

func parseMemorySearch(a *App, args []string) (*memorySearchOptions, error) {
	o := &memorySearchOptions{}
	flags := newFlags(a, "memory search", "memory search QUERY [--limit N] [--agent A] [--issue N] [--category C] [--step S] [--since T] [--until T] [--archived] [--json]")
	flags.StringVar(&o.Step, "step", "", "only observations captured in workflow step `S` (prd, architecture, implement, ...)")
	flags.BoolVar(&o.Archived, "archived", false, "search what was archived (by retention, and compaction's originals); memory restore ID brings one back")
	flags.IntVar(&o.Query.Limit, "limit", 20, "at most `N` rows (0: all)")
	flags.StringVar(&o.Query.Agent, "agent", "", "only observations by agent `A`")
	issueFlag := flags.String("issue", "", "only observations of issue `N`")
	cat := flags.String("category", "", "only category `C`, one of decision, code-change, error, key-fact or compaction-summary")
	flags.StringVar(&o.Since, "since", "", "only observations at or after `T` (ISO 8601, or a duration such as 7d or 12h)")
	flags.StringVar(&o.Until, "until", "", "only observations at or before `T` (ISO 8601)")
	o.register(flags)
	pos, err := parse(flags, args)
	o.Query.Text, o.Query.Category = strings.Join(pos, " "), memory.Category(*cat)
	if err != nil {
		return o, err
	}
	if o.Query.Limit == 0 {
		o.Query.Limit = -1
	} else if o.Query.Limit < 0 {
		return o, usagef("--limit must not be negative")
	}
	if *issueFlag != "" {
		// Issue 0 holds what the old chat integration stored: searched
		// like any issue, though nothing new is stored under it.
		if o.Query.Issue, err = validate.LedgerIssue(*issueFlag); err != nil {
			return o, err
		}
		o.Query.IssueSet = true
	}
	if *cat != "" && !o.Query.Category.Known() {
		return o, errcode.New(errcode.InvalidInput, "unknown category %q (decision, code-change, error, key-fact, compaction-summary)", *cat)
	}
	q := &o.Query
	if strings.TrimSpace(q.Text) == "" && q.Agent == "" && !q.IssueSet && q.Category == "" && o.Since == "" && o.Until == "" && o.Step == "" {
		return o, usagef("memory search needs a QUERY or a filter (--agent, --issue, --category, --step, --since, --until)")
	}
	if o.Step != "" && o.Archived {
		return o, usagef("memory search: --step searches the store, not the archive (drop --archived)")
	}
	return o, nil
}

func runMemorySearch(ctx context.Context, a *App, o *memorySearchOptions) error {
	q := o.Query
	var err error
	if q.Since, err = parseWhen(a, o.Since); err != nil {
		return err
	}
	if q.Until, err = parseWhen(a, o.Until); err != nil {
		return err
	}
	// Read-only (issue 14): `memory search` logs no metrics line; the
	// searches measured are the recall's at `hook start`.
	limit := q.Limit
	if o.Step != "" {
		q.Limit = -1 // the step filter comes after the ranking
	}
	var skipped memory.LeftOut
	rows, stats, err := a.searchStoreOrArchive(ctx, q, o.Archived, skipped.Add)
	if err != nil {
		return err
	}
	if o.Step != "" {
		if rows, err = a.Memory().FilterStep(ctx, rows, o.Step, limit); err != nil {
			return err
		}
	}
	var marks *memanchor.Report
	if !o.Archived {
		marks = a.anchorMarksOf(ctx, rowIssues(rows), stats)
	}
	if o.JSON {
		doc := memory.NewSearchDoc(q.Text, rows)
		doc.Warnings = skipped.List()
		for i := range doc.Results {
			doc.Results[i].Untrusted = marks.Mark(doc.Results[i].ID)
		}
		return a.writeDoc(doc)
	}
	if len(rows) == 0 {
		fmt.Fprintln(a.Stdout, "No matching observations.")
		return nil
	}
	st := a.Style()
	// One write for the listing, not three a row (issue 35: 40 system
	// calls of a 4 ms search).
	out := bufio.NewWriter(a.Stdout)
	// Summaries are stored text: framed and quoted as data (issue 32).
	fmt.Fprintln(out, sanitize.NotesLine)
	for _, r := range rows {
		fmt.Fprintf(out, "%s  #%d  %s  %s  %s  (%d tokens)\n", st.Bold(r.ID), r.IssueNumber, r.Agent, r.Category, r.Date(), r.Tokens)
		if m := marks.Mark(r.ID); m != nil {
			fmt.Fprintf(out, "    %s\n", st.Red(untrustedLine(m)))
		}
		fmt.Fprintf(out, "    %s\n", sanitize.Quote(shorten.Flatten(sanitize.Neutralize(r.Summary))))
	}
	next := "`agentx-hook memory get ID` shows one in full"
	if o.Archived {
		next = "archived; `agentx-hook memory restore ID` brings one back"
	}
	fmt.Fprintf(out, "%s\n", st.Dim(fmt.Sprintf("%d result(s); %s", len(rows), next)))
	_ = out.Flush() // as the writes it gathers: stdout's errors are not the search's
	return nil
}

// parseWhen reads --since, --until and the like against the clock.
func parseWhen(a *App, s string) (time.Time, error) { return clock.ParseWhen(s, a.Clock.Now()) }

// idOptions is the command line of a memory command on one observation.
type idOptions struct {
	ID string
	jsonFlag
}

// parseID returns the parser of `memory NAME ID [--json]`.
func parseID(name, usage string) func(*App, []string) (*idOptions, error) {
	return func(a *App, args []string) (*idOptions, error) {
		o := &idOptions{}
		flags := newFlags(a, "memory "+name, usage)
		o.register(flags)
		var err error
		o.ID, err = parseOne(flags, args, "memory "+name+" needs one observation ID")
		return o, err
	}
}

func parseMemoryGet(a *App, args []string) (*idOptions, error) {
	return parseID("get", "memory get ID [--json]")(a, args)
}

func runMemoryGet(ctx context.Context, a *App, opts *idOptions) error {
	o, err := a.Memory().GetByID(ctx, opts.ID)
	if err != nil {
		return err
	}
	integrity := o.Integrity()
	if integrity == contenthash.Tampered {
		a.warn("%s changed since it was stored: `agentx-hook verify` says what changed, `agentx-hook checkpoint restore ID` brings back the stored version; recall leaves it out", o.ID)
	}
	mark := a.anchorMarks(ctx, []int{o.IssueNumber}).Mark(o.ID)
	if mark != nil && integrity != contenthash.Tampered {
		a.warn("%s: %s; `agentx-hook verify` names it, recall leaves it out", o.ID, mark.Reason)
	}
	if opts.JSON {
		return a.writeDoc(&memory.ObservationDoc{Observation: o, Integrity: integrity, Untrusted: mark})
	}
	st := a.Style()
	fmt.Fprintf(a.Stdout, "%s\n", st.Bold(o.ID))
	switch {
	case integrity == contenthash.Tampered:
		fmt.Fprintln(a.Stdout, st.Red("[TAMPERED: changed since it was stored]"))
	case mark != nil:
		fmt.Fprintln(a.Stdout, st.Red(untrustedLine(mark)))
	}
	fmt.Fprintln(a.Stdout, o.Header())
	// The content is stored text: framed and quoted as data (issue 32).
	fmt.Fprintf(a.Stdout, "\n%s", sanitize.Framed(o.Content))
	return nil
}

func parseMemoryStats(a *App, args []string) (*jsonOnlyOptions, error) {
	return parseJSONOnly("memory stats", "memory stats [--json]")(a, args)
}

// metricsDays is the window of `memory stats`'s metrics.
const metricsDays = 7

func runMemoryStats(ctx context.Context, a *App, o *jsonOnlyOptions) error {
	s, err := a.Memory().Stats(ctx)
	if err != nil {
		return err
	}
	m, err := metrics.Recent(a.Events(), a.Clock.Now(), metricsDays)
	if err != nil {
		a.warn("memory stats: metrics: %v", err)
	}
	// The store's warnings go to stderr, as every warning: stdout stays the figures.
	return a.emit(o.JSON, &memory.StatsDoc{Stats: s, Metrics: m}, s.Text()+m.Section(metricsDays), s.Warnings...)
}

func parseMemoryRemove(a *App, args []string) (*idOptions, error) {
	return parseID("remove", "memory remove ID [--json]")(a, args)
}

func runMemoryRemove(ctx context.Context, a *App, o *idOptions) error {
	autoCheckpoint(ctx, a, "before memory remove "+o.ID)
	ok, err := a.Memory().Remove(ctx, o.ID)
	if err != nil {
		return err
	}
	if !ok {
		return errcode.New(errcode.NotFound, "no observation %q", o.ID)
	}
	return a.emit(o.JSON, &memory.RemovedDoc{Removed: o.ID}, "Removed "+o.ID+".\n")
}

const memoryRebuildUsage = `memory rebuild [--reference] [--after-sync [--pull-first]] [--json]

Rebuilds the search index from the issue files, taking in the delta
(search.delta: what writes stored since the index was last written whole).
A checkpoint is taken first.

By default ([memory] manifest = "index") no manifest.json is written: the
search index points into the issue files, and a manifest.json only agentx
wrote is removed (one the old tools rewrote is left as it is).
--reference writes manifest.json in the old tools' exact layout (2-space
indent, every observation listed) for the reference TypeScript and
PowerShell tools; it stays until the next compaction of the delta.
[memory] manifest = "reference" in agentx.toml keeps it current at every
write; "delta" writes it one entry a line at each compaction.

--after-sync is the rebuild a hook starts in the background when its state
branch pull wrote more memory files than it can index within its budget (a
fresh clone's first hook start): no checkpoint (the files just came from
the state branch), and the hook's marker (.agentx/memory/index-rebuild) is
removed when the index is in line, which ends "recall ran without the
search index" in the hooks. --pull-first first completes the state pull
the hook's sync_budget cut short (within [github] sync_timeout).`

// memoryRebuildOptions is `memory rebuild`'s command line.
type memoryRebuildOptions struct {
	AfterSync, PullFirst bool
	// Reference renders manifest.json in the reference tools' layout.
	Reference bool
	jsonFlag
}

func parseMemoryRebuild(a *App, args []string) (*memoryRebuildOptions, error) {
	o := &memoryRebuildOptions{}
	flags := newFlags(a, "memory rebuild", memoryRebuildUsage)
	flags.BoolVar(&o.AfterSync, "after-sync", false, "the background rebuild after a hook's state branch pull (no checkpoint; clears the hook's marker)")
	flags.BoolVar(&o.PullFirst, "pull-first", false, "with --after-sync: first complete the state pull a hook's budget cut short")
	flags.BoolVar(&o.Reference, "reference", false, "write manifest.json in the old tools' exact layout (2-space indent), for the reference tools")
	o.register(flags)
	err := parseFlagsOnly(flags, args)
	if err == nil && o.PullFirst && !o.AfterSync {
		err = usagef("--pull-first goes with --after-sync")
	}
	return o, err
}

// pullBeforeRebuild completes a state pull a hook's budget cut short; the
// rebuild that follows indexes it all.
func (a *App) pullBeforeRebuild(ctx context.Context) {
	s, err := a.stateSyncer()
	if err != nil {
		a.warn("state pull skipped: %v", err)
		return
	}
	if line := s.PullBeforeRebuild(ctx); line != "" {
		fmt.Fprintln(a.Stderr, line) // stdout is the rebuild's (--json)
	}
}

func runMemoryRebuild(ctx context.Context, a *App, o *memoryRebuildOptions) error {
	if o.AfterSync {
		a.indexRebuild().Claim()
		if o.PullFirst {
			a.pullBeforeRebuild(ctx)
		}
	} else {
		autoCheckpoint(ctx, a, "before memory rebuild")
	}
	st := a.Memory()
	if o.Reference {
		st.ReferenceManifest, st.FileBase = true, false
	}
	rep, err := st.Rebuild(ctx)
	if err != nil {
		return err
	}
	if o.AfterSync {
		// After the report: whoever waits for the marker to go (a hook, a
		// reader of the rebuild's log) then finds the log complete.
		defer a.indexRebuild().Done()
	}
	a.refreshAnchors(ctx)
	return a.emit(o.JSON, &memory.RebuildDoc{Rebuild: rep}, rep.Text())
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
