package hookcmd

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/delivery"
	"github.com/agentx-dev/agentx/internal/core/issueref"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/render"
	"github.com/agentx-dev/agentx/internal/core/router"
	"github.com/agentx-dev/agentx/internal/core/validate"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// clarifyUsage is the help of `clarify`, its verbs listed from protocol.Verbs.
func clarifyUsage() string {
	var b strings.Builder
	b.WriteString(`clarify [--issue N] [--all] [--json]
       agentx-hook clarify show CLR-N-NNN [--json]
       agentx-hook clarify stale [--json]
       agentx-hook clarify inbox --human [--person NAME] [--json]
       agentx-hook clarify request --issue N --from A --to B --topic T --question Q [--blocking|--non-blocking] [--workflow W --step S]
`)
	for _, v := range protocol.Verbs {
		fmt.Fprintf(&b, "       agentx-hook clarify %-8s CLR-N-NNN %s\n", v.Verb, v.Args())
	}
	b.WriteString(`
Without a subcommand: the active clarifications (pending, answered, stale,
escalated) of every issue; with --issue, every thread of that issue.`)
	return b.String()
}

// clarifySub is the runner of clarify's subcommand name: request, stale
// or a protocol verb (answer, ask, resolve, ...); false for any other.
func clarifySub(name string) (runFunc, bool) {
	switch name {
	case "request":
		return wire(parseClarifyRequest, runClarifyRequest), true
	case "stale":
		return wire(parseClarifyStale, runClarifyStale), true
	case "show":
		return wire(parseClarifyShow, runClarifyShow), true
	case "inbox":
		return wire(parseClarifyInbox, runClarifyInbox), true
	}
	if v, ok := protocol.Lookup(name); ok {
		return wire(func(a *App, args []string) (*clarifyOpOptions, error) { return parseClarifyOp(a, v, args) }, runClarifyOp), true
	}
	return nil, false
}

// clarifySubNames lists the subcommands for an error message.
func clarifySubNames() string {
	names := []string{string(protocol.Request)}
	for _, v := range protocol.Verbs {
		names = append(names, string(v.Verb))
	}
	return strings.Join(append(names, "show", "stale", "inbox"), ", ")
}

func runClarify(ctx context.Context, a *App, args []string) error {
	withMonitor := func(name string) (runFunc, bool) {
		sub, ok := clarifySub(name)
		if !ok || name == "stale" || name == "show" || name == "inbox" { // they run it themselves
			return sub, ok
		}
		return func(ctx context.Context, a *App, args []string) error {
			err := sub(ctx, a, args)
			if monitorAfter(err) {
				a.monitorSideEffect(ctx) // every clarify command runs the monitor (ADR-1)
			}
			return err
		}, true
	}
	// A known subcommand runs without the group's usage and list of names:
	// building them (fmt, the verbs' arguments) is only for a mistake.
	if len(args) > 0 && args[0] != "" && !strings.HasPrefix(args[0], "-") {
		if run, ok := withMonitor(args[0]); ok {
			return run(ctx, a, args[1:])
		}
	}
	return a.dispatch(ctx, "clarify", clarifyUsage(), clarifySubNames(), withMonitor, wire(parseClarifyList, runClarifyList), args)
}

// clarifyListOptions is `clarify` without a subcommand.
type clarifyListOptions struct {
	Issue string // --issue: every thread of one issue
	All   bool   // --all: closed clarifications too
	jsonFlag
}

func parseClarifyList(a *App, args []string) (*clarifyListOptions, error) {
	o := &clarifyListOptions{}
	flags := newFlags(a, "clarify", clarifyUsage())
	flags.StringVar(&o.Issue, "issue", "", "show every thread of issue `N`")
	flags.BoolVar(&o.All, "all", false, "list closed clarifications too")
	o.register(flags)
	pos, err := parse(flags, args)
	if err == nil && len(pos) > 0 {
		err = usagef("unknown clarify subcommand %q", pos[0])
	}
	return o, err
}

func runClarifyList(ctx context.Context, a *App, o *clarifyListOptions) error {
	a.monitorSideEffect(ctx) // every clarify command runs the monitor (ADR-1)
	var issue *int
	var recs []ledger.Record
	if o.Issue != "" {
		n, err := validate.LedgerIssue(o.Issue)
		if err != nil {
			return err
		}
		l, err := a.Ledgers().Load(n)
		if err != nil {
			return err
		}
		issue, recs = &n, l.Clarifications
	} else {
		var err error
		if recs, err = a.loadRecords(func(r *ledger.Record) bool { return o.All || r.Status.Active() }); err != nil {
			return err
		}
	}
	doc := ledger.NewListDoc(issue, recs)
	doc.Untrusted = a.recordMarks(ctx, recs)
	a.warnEach(doc.TamperedWarning(), untrustedWarning(doc.Untrusted))
	outdated := a.outdatedLines(recs)
	switch {
	case o.JSON:
		a.warnEach(outdated...)
		return a.writeDoc(doc)
	case issue != nil:
		if len(recs) == 0 {
			fmt.Fprintf(a.Stdout, "No clarifications on issue #%d.\n", *issue)
		}
		render.ThreadsMarked(a.Stdout, a.Style(), recs, doc.Untrusted)
		for _, l := range outdated {
			fmt.Fprintln(a.Stdout, "  "+a.Style().Yellow("[MAY BE OUTDATED]")+" "+l)
		}
	case len(recs) == 0:
		fmt.Fprintln(a.Stdout, "No active clarifications.")
	default:
		render.ListMarked(a.Stdout, a.Style(), recs, a.Clock.Now(), doc.Untrusted)
		for _, l := range outdated {
			fmt.Fprintln(a.Stdout, "  "+a.Style().Yellow("[MAY BE OUTDATED]")+" "+l)
		}
	}
	return nil
}

// loadRecords reads every ledger and keeps the records keep accepts.
// Corrupt ledgers are reported on stderr and skipped.
func (a *App) loadRecords(keep func(*ledger.Record) bool) ([]ledger.Record, error) {
	recs, skipped, err := a.Ledgers().Records(keep)
	for _, e := range skipped {
		a.warn("%v; listed without it (the file is left untouched)", e)
	}
	return recs, err
}

// warnEach prints each message that is not empty as a warning.
func (a *App) warnEach(msgs ...string) {
	for _, m := range msgs {
		if m != "" {
			a.warn("%s", m)
		}
	}
}

func (a *App) warn(format string, args ...any) {
	if a.hook.Swallow() {
		return // the hook's deadline passed: its one warning names the step
	}
	msg := fmt.Sprintf(format, args...)
	a.warnings = append(a.warnings, msg) // a hook's go to the hook log
	fmt.Fprintf(a.Stderr, "%s %s\n", a.ErrStyle().Yellow("warning:"), msg)
}

// issueFor resolves --issue, else $AGENTX_ISSUE, else the branch name.
func (a *App) issueFor(ctx context.Context, flagValue string) (int, bool, error) {
	return issueref.Find(flagValue, a.Getenv("AGENTX_ISSUE"), func() string { return workspace.GitBranch(ctx, a.Workspace().Root) })
}

// clarifyRequestOptions is `clarify request`'s command line.
type clarifyRequestOptions struct {
	Issue, From, To, Topic, Question string
	Blocking                         bool // --blocking (default) and not --non-blocking
	Workflow, Step                   string
	// About names the stage artifact the question is about (PRD-42): its
	// blob is stored with the record, so an answer given about it is
	// marked "may be outdated" once it changes.
	About string
	// Wait is how long to wait for the answer (nil: a blocking question
	// to a person waits its SLA, any other returns at once).
	Wait *time.Duration
	jsonFlag
}

const clarifyRequestUsage = "clarify request --issue N --from A --to B --topic T --question Q [--blocking|--non-blocking] [--workflow W --step S] [--about ARTIFACT] [--wait D] [--json]\n\nRecords a new clarification and prints its id. When the target agent has a\nresponder in agentx.toml, the hub runs it and prints the answer. --about\nnames the stage artifact it is about (PRD-42): once that artifact changes,\nthe answer is shown as \"may be outdated\".\n\nA person is a target too: --to human asks anyone, --to NAME or\n--to human:NAME a person of [people] in agentx.toml. A blocking question\nto a person waits for the answer as long as the person's SLA says, with\nprogress on stderr (--wait D waits D instead; --wait 0 returns at once);\nthe person answers with `clarify answer ID --as human:NAME` (see\n`clarify inbox --human`) or, in GitHub Mode, a /clarify answer comment."

func parseClarifyRequest(a *App, args []string) (*clarifyRequestOptions, error) {
	o := &clarifyRequestOptions{}
	flags := newFlags(a, "clarify request", clarifyRequestUsage)
	flags.StringVar(&o.Issue, "issue", "", "issue `N` (else $AGENTX_ISSUE, else the branch name)")
	flags.StringVar(&o.From, "from", "", "requesting `agent`")
	flags.StringVar(&o.To, "to", "", "target `agent`")
	flags.StringVar(&o.Topic, "topic", "", "short subject (1-200 characters)")
	flags.StringVar(&o.Question, "question", "", "the question (1-2000 characters)")
	blocking := flags.Bool("blocking", true, "the requester waits for the answer (default)")
	nonBlocking := flags.Bool("non-blocking", false, "the requester goes on working")
	flags.StringVar(&o.Workflow, "workflow", "", "workflow `name` (default: default_workflow in agentx.toml)")
	flags.StringVar(&o.Step, "step", "", "step `id` (default: the requester's step)")
	flags.StringVar(&o.About, "about", "", "the stage `artifact` the question is about (PRD-42; see `agentx-hook artifact list`)")
	wait := flags.String("wait", "", "wait `D` for the answer (default: a blocking question to a person waits its SLA, others return at once)")
	o.register(flags)
	pos, err := parse(flags, args)
	o.Blocking = *blocking && !*nonBlocking
	if err != nil {
		return o, err
	}
	given := map[string]bool{}
	flags.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if given["blocking"] && *blocking && *nonBlocking {
		return o, usagef("clarify request: --blocking and --non-blocking exclude each other")
	}
	if o.Wait, err = parseWait(*wait); err != nil {
		return o, err
	}
	if len(pos) > 0 {
		return o, usagef("clarify request takes no positional arguments (got %q)", pos[0])
	}
	// Every missing flag is named, in the order the usage lists them.
	var missing []string
	for _, f := range []struct{ name, value string }{
		{"--from", o.From}, {"--to", o.To}, {"--topic", o.Topic}, {"--question", o.Question},
	} {
		if f.value == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return o, usagef("clarify request needs %s", joinAnd(missing))
	}
	return o, nil
}

// joinAnd is "a", "a and b", "a, b and c".
func joinAnd(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

func runClarifyRequest(ctx context.Context, a *App, o *clarifyRequestOptions) error {
	issue, ok, err := a.issueFor(ctx, o.Issue)
	if err != nil {
		return err
	}
	if !ok {
		return usagef("clarify request needs --issue N (or $AGENTX_ISSUE, or a branch named like 42-topic)")
	}
	rt, err := a.Router()
	if err != nil {
		return err
	}
	if err := rt.Config.RequireAgents(a.Workspace().Root); err != nil {
		return err
	}
	var about *artifact.About
	if o.About != "" {
		// Checked before the request: a typo must not leave a record
		// about nothing.
		_, art, err := a.Artifacts().Locate(o.About)
		if err != nil {
			return err
		}
		about = &artifact.About{ID: art.ID, Blob: art.Blob}
	}
	res, err := rt.Request(ctx, router.RequestInput{
		Issue: issue, From: o.From, To: o.To, Topic: o.Topic, Question: o.Question,
		Blocking: o.Blocking, Workflow: o.Workflow, Step: o.Step,
	})
	if err == nil && res != nil && about != nil {
		a.recordAbout(ctx, issue, res.Record.ID, *about)
	}
	if err == nil && res != nil && res.Answer != "" {
		a.answerReceipt(ctx, &res.Record)
	}
	if err != nil || res == nil || !res.Record.Status.Waiting() {
		return a.printResult(res, "requested", o.JSON, err)
	}
	limit := waitLimit(o, &res.Record)
	if limit <= 0 {
		return a.printResult(res, "requested", o.JSON, err)
	}
	if !o.JSON {
		// The id first: whoever stops the wait still has it.
		if err := a.printResult(res, "requested", false, nil); err != nil {
			return err
		}
	}
	final, _, werr := a.waitForAnswer(ctx, rt, res.Record, limit)
	if final == nil {
		return werr
	}
	if final.Answer != "" {
		// The wait printed it to the asker: no hook delivers it again.
		a.answerReceipt(ctx, &final.Record)
	}
	if o.JSON {
		return a.printResult(final, "requested", true, werr)
	}
	if werr == nil && !final.Record.Status.Waiting() {
		a.printAnswered(final)
	}
	return werr
}

// answerReceipt records that the answer a responder gave during the
// request is printed to the agent that asked (issue 34): the host's next
// mid-session hook must not deliver it a second time.
func (a *App) answerReceipt(ctx context.Context, rec *ledger.Record) {
	d := &delivery.Deliverer{WS: a.Workspace(), Ledgers: a.Ledgers(), Clock: a.Clock}
	req := delivery.Request{Agent: rec.From, Session: "cli-" + strconv.Itoa(os.Getpid()), Host: "cli"}
	if err := d.MarkShown(ctx, req, []ledger.Record{*rec}); err != nil {
		a.warn("delivery receipt of %s: %v", rec.ID, err)
	}
}

// clarifyOpOptions is the command line of a verb on one record (answer,
// ask, resolve, escalate, abandon).
type clarifyOpOptions struct {
	Verb protocol.VerbInfo
	ID   string
	Text string // --body or --summary
	As   string // --as: who acts
	// Issue (--issue) names the ledger, so ids of other shapes found in
	// it (`clar-test-001`, written by the old tools) can be acted on.
	Issue string
	jsonFlag
}

func parseClarifyOp(a *App, v protocol.VerbInfo, args []string) (*clarifyOpOptions, error) {
	op := string(v.Verb)
	o := &clarifyOpOptions{Verb: v}
	usage := fmt.Sprintf("clarify %s CLR-N-NNN %s [--json]\n\n%s", op, v.Args(), v.Help)
	flags := newFlags(a, "clarify "+op, usage)
	flags.StringVar(&o.Text, v.Flag, "", v.TextHelp)
	flags.StringVar(&o.As, "as", "", "who acts, `NAME`: the record's target answers, its requester asks, either resolves, escalates or abandons; human:NAME is a person's explicit, audited override (default: $AGENTX_AGENT, else the record's target for answer, its requester for ask, cli otherwise)")
	flags.StringVar(&o.Issue, "issue", "", "the ledger of issue `N` holds the id (needed for ids not shaped CLR-N-NNN)")
	o.register(flags)
	var err error
	if o.ID, err = parseOne(flags, args, "clarify "+op+" needs exactly one id CLR-N-NNN"); err != nil {
		return o, err
	}
	if o.Issue != "" {
		if _, err := validate.LedgerIssue(o.Issue); err != nil {
			return o, err
		}
		return o, v.CheckID(o.ID, true)
	}
	if err := v.CheckID(o.ID, false); err != nil {
		return o, err
	}
	if v.NeedsText && o.Text == "" {
		return o, usagef("clarify %s needs --%s", op, v.Flag)
	}
	return o, nil
}

func runClarifyOp(ctx context.Context, a *App, o *clarifyOpOptions) error {
	rt, err := a.Router()
	if err != nil {
		return err
	}
	issue, _ := validate.LedgerIssue(o.Issue) // checked by parseClarifyOp
	// An agent's session names its agent ($AGENTX_AGENT): without --as the
	// command acts as that agent, checked like --as (issue 32); a person
	// overrides explicitly with --as human:NAME.
	as := o.As
	if as == "" {
		as = a.Getenv("AGENTX_AGENT")
	}
	res, err := rt.Do(ctx, o.Verb.Op(o.ID, as, o.Text, issue, o.Issue != ""))
	return a.printResult(res, string(o.Verb.Verb), o.JSON, err)
}

// printResult prints what an operation did and returns opErr. On a partial
// failure (the record landed, the responder failed) it still prints the
// record in text mode and names it in the error, so the caller learns its
// id either way.
func (a *App) printResult(res *router.Result, op string, asJSON bool, opErr error) error {
	if res == nil {
		return opErr
	}
	rec := &res.Record
	if asJSON {
		if opErr != nil {
			return &landedError{err: opErr, rec: *rec}
		}
		return a.writeDoc(res.Doc())
	}
	fmt.Fprint(a.Stdout, res.Text(a.Style(), op))
	return opErr
}
