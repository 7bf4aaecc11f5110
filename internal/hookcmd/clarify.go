package hookcmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
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
       agentx-hook clarify stale [--json]
       agentx-hook clarify request --issue N --from A --to B --topic T --question Q [--blocking|--non-blocking] [--workflow W --step S]
`)
	for _, v := range protocol.Verbs {
		fmt.Fprintf(&b, "       agentx-hook clarify %-8s CLR-N-NNN %s\n", v.Verb, verbArgs(v))
	}
	b.WriteString(`
Without a subcommand: the active clarifications (pending, answered, stale,
escalated) of every issue; with --issue, every thread of that issue.`)
	return b.String()
}

// verbArgs is a verb's arguments after the id, as usage texts show them.
func verbArgs(v protocol.VerbInfo) string {
	text := "--" + v.Flag + " TEXT"
	if !v.NeedsText {
		text = "[" + text + "]"
	}
	return text + " [--as " + v.ByHelp + "]"
}

// clarifySub returns the clarify subcommand name.
func clarifySub(name string) (func(context.Context, *App, []string) error, bool) {
	switch name {
	case "request":
		return runClarifyRequest, true
	case "stale":
		return runClarifyStale, true
	}
	if v, ok := protocol.Lookup(name); ok {
		return runClarifyOp(v), true
	}
	return nil, false
}

// clarifySubNames lists the subcommands for an error message.
func clarifySubNames() string {
	names := []string{string(protocol.Request)}
	for _, v := range protocol.Verbs {
		names = append(names, string(v.Verb))
	}
	return strings.Join(append(names, "stale"), ", ")
}

func runClarify(ctx context.Context, a *App, args []string) error {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, ok := clarifySub(args[0])
		if !ok {
			return usagef("unknown clarify subcommand %q (%s)", args[0], clarifySubNames())
		}
		err := sub(ctx, a, args[1:])
		if args[0] != "stale" && monitorAfter(err) {
			a.monitorSideEffect(ctx) // every clarify command runs the monitor (ADR-1)
		}
		return err
	}
	fs := newFlags(a, "clarify", clarifyUsage())
	issueFlag := fs.String("issue", "", "show every thread of issue `N`")
	all := fs.Bool("all", false, "list closed clarifications too")
	asJSON := fs.Bool("json", false, "print one JSON document")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unknown clarify subcommand %q", pos[0])
	}
	a.monitorSideEffect(ctx) // every clarify command runs the monitor (ADR-1)
	store := a.Ledgers()
	if *issueFlag != "" {
		issue, err := validate.Issue(*issueFlag)
		if err != nil {
			return err
		}
		l, err := store.Load(issue)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(a.Stdout, map[string]any{"schema_version": SchemaVersion, "issueNumber": issue,
				"clarifications": nonNil(l.Clarifications)})
		}
		if len(l.Clarifications) == 0 {
			fmt.Fprintf(a.Stdout, "No clarifications on issue #%d.\n", issue)
			return nil
		}
		st := a.Style()
		for i := range l.Clarifications {
			if i > 0 {
				fmt.Fprintln(a.Stdout)
			}
			render.Thread(a.Stdout, st, &l.Clarifications[i])
		}
		return nil
	}
	recs, err := a.loadRecords(func(r *ledger.Record) bool {
		return *all || r.Status.Open() || r.Status == ledger.Escalated
	})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.Stdout, map[string]any{"schema_version": SchemaVersion, "clarifications": nonNil(recs)})
	}
	if len(recs) == 0 {
		fmt.Fprintln(a.Stdout, "No active clarifications.")
		return nil
	}
	render.List(a.Stdout, a.Style(), recs, a.Clock.Now())
	return nil
}

// loadRecords reads every ledger and keeps the records keep accepts.
// Corrupt ledgers are reported on stderr and skipped.
func (a *App) loadRecords(keep func(*ledger.Record) bool) ([]ledger.Record, error) {
	loaded, err := a.Ledgers().LoadAll()
	if err != nil {
		return nil, err
	}
	var recs []ledger.Record
	for _, l := range loaded {
		if l.Err != nil {
			a.warn("%v; listed without it (the file is left untouched)", l.Err)
			continue
		}
		for i := range l.Ledger.Clarifications {
			if keep(&l.Ledger.Clarifications[i]) {
				recs = append(recs, l.Ledger.Clarifications[i])
			}
		}
	}
	return recs, nil
}

func (a *App) warn(format string, args ...any) {
	fmt.Fprintf(a.Stderr, "%s %s\n", a.ErrStyle().Yellow("warning:"), fmt.Sprintf(format, args...))
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// issueFor resolves --issue, else $AGENTX_ISSUE, else the branch name.
func (a *App) issueFor(flagValue string) (int, bool, error) {
	branch := ""
	if flagValue == "" && a.Getenv("AGENTX_ISSUE") == "" {
		branch = workspace.GitBranch(context.TODO(), a.Workspace().Root) // issueFor has no caller context yet
	}
	return issueref.Resolve(flagValue, a.Getenv("AGENTX_ISSUE"), branch)
}

func runClarifyRequest(ctx context.Context, a *App, args []string) error {
	fs := newFlags(a, "clarify request", "clarify request --issue N --from A --to B --topic T --question Q [--blocking|--non-blocking] [--workflow W --step S] [--json]\n\nRecords a new clarification and prints its id. When the target agent has a\nresponder in agentx.toml, the hub runs it and prints the answer.")
	issueFlag := fs.String("issue", "", "issue `N` (else $AGENTX_ISSUE, else the branch name)")
	from := fs.String("from", "", "requesting `agent`")
	to := fs.String("to", "", "target `agent`")
	topic := fs.String("topic", "", "short subject (1-200 characters)")
	question := fs.String("question", "", "the question (1-2000 characters)")
	blocking := fs.Bool("blocking", true, "the requester waits for the answer (default)")
	nonBlocking := fs.Bool("non-blocking", false, "the requester goes on working")
	workflow := fs.String("workflow", "", "workflow `name` (default: default_workflow in agentx.toml)")
	step := fs.String("step", "", "step `id` (default: the requester's step)")
	asJSON := fs.Bool("json", false, "print one JSON document")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("clarify request takes no positional arguments (got %q)", pos[0])
	}
	for name, v := range map[string]string{"--from": *from, "--to": *to, "--topic": *topic, "--question": *question} {
		if v == "" {
			return usagef("clarify request needs %s", name)
		}
	}
	issue, ok, err := a.issueFor(*issueFlag)
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
	if len(rt.Config.KnownAgents()) == 0 {
		// Before `init` there are no workflows: say that, rather than
		// "unknown agent (known: )".
		return errcode.New(errcode.InvalidInput, "no agents are configured in %s (no workflows in .agentx/workflows/)",
			a.Workspace().Root).WithHint("run `agentx-hook init` to create the default config and workflows")
	}
	res, err := rt.Request(ctx, router.RequestInput{
		Issue: issue, From: *from, To: *to, Topic: *topic, Question: *question,
		Blocking: *blocking && !*nonBlocking, Workflow: *workflow, Step: *step,
	})
	if res != nil {
		a.printResult(res, "requested", *asJSON, err)
	}
	return err
}

func runClarifyOp(v protocol.VerbInfo) func(context.Context, *App, []string) error {
	op := string(v.Verb)
	return func(ctx context.Context, a *App, args []string) error {
		usage := fmt.Sprintf("clarify %s CLR-N-NNN %s [--json]\n\n%s", op, verbArgs(v), v.Help)
		fs := newFlags(a, "clarify "+op, usage)
		body := fs.String(v.Flag, "", v.TextHelp)
		as := fs.String("as", "", "who acts, `NAME` (default: the record's target for answer, its requester for ask, cli otherwise)")
		asJSON := fs.Bool("json", false, "print one JSON document")
		pos, err := parse(fs, args)
		if err != nil {
			return err
		}
		if len(pos) != 1 {
			return usagef("clarify %s needs exactly one id CLR-N-NNN", op)
		}
		id := pos[0]
		if _, err := validate.ClarificationID(id); err != nil {
			return err
		}
		if v.NeedsText && *body == "" {
			return usagef("clarify %s needs --%s", op, v.Flag)
		}
		by := *as
		if by == "" {
			by = v.DefaultBy
		}
		rt, err := a.Router()
		if err != nil {
			return err
		}
		res, err := rt.Do(ctx, protocol.Op{Verb: v.Verb, ID: id, By: by, Text: *body})
		if res != nil {
			a.printResult(res, op, *asJSON, err)
		}
		return err
	}
}

// printResult prints what an operation did. On a partial failure (the
// record landed, the responder failed) it still prints the record so the
// caller learns its id.
func (a *App) printResult(res *router.Result, op string, asJSON bool, opErr error) {
	rec := &res.Record
	if asJSON {
		if opErr != nil {
			// fail() prints the error document; the record did land, so
			// it names it, as text mode prints the id.
			a.errDoc = map[string]any{"id": rec.ID, "status": rec.Status, "round": rec.Round}
			return
		}
		doc := map[string]any{"schema_version": SchemaVersion, "id": rec.ID, "status": rec.Status,
			"round": rec.Round, "clarification": rec, "escalated": res.Escalated}
		if res.Answer != "" {
			doc["answer"] = res.Answer
		}
		_ = writeJSON(a.Stdout, doc)
		return
	}
	st := a.Style()
	if op == "requested" {
		fmt.Fprintln(a.Stdout, rec.ID)
	} else if res.Escalated {
		fmt.Fprintf(a.Stdout, "%s escalated (round %d/%d)\n", rec.ID, rec.Round, rec.MaxRounds)
	} else {
		fmt.Fprintf(a.Stdout, "%s %s (round %d/%d, status %s)\n", rec.ID, pastTense(op), rec.Round, rec.MaxRounds, rec.Status)
	}
	if res.Answer != "" {
		fmt.Fprintf(a.Stdout, "%s answered (round %d):\n%s\n", rec.To, rec.Round, res.Answer)
	}
	if res.Escalated {
		if e := rec.LastOf(ledger.Escalation); e != nil {
			fmt.Fprintln(a.Stdout, st.Red(strings.SplitN(e.Body, "\n", 2)[0]))
			if rest := strings.SplitN(e.Body, "\n", 2); len(rest) == 2 {
				fmt.Fprintln(a.Stdout, rest[1])
			}
		}
	}
}

func pastTense(op string) string {
	if v, ok := protocol.Lookup(op); ok {
		return v.Past
	}
	return op
}
