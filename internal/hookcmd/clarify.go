package hookcmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/issueref"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/render"
	"github.com/agentx-dev/agentx/internal/core/router"
	"github.com/agentx-dev/agentx/internal/core/validate"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

const clarifyUsage = `clarify [--issue N] [--all] [--json]
       agentx-hook clarify stale [--json]
       agentx-hook clarify request --issue N --from A --to B --topic T --question Q [--blocking|--non-blocking] [--workflow W --step S]
       agentx-hook clarify answer   CLR-N-NNN --body TEXT [--as AGENT]
       agentx-hook clarify ask      CLR-N-NNN --body TEXT [--as AGENT]
       agentx-hook clarify resolve  CLR-N-NNN [--body TEXT] [--as NAME]
       agentx-hook clarify escalate CLR-N-NNN [--summary TEXT] [--as NAME]
       agentx-hook clarify abandon  CLR-N-NNN [--body TEXT] [--as NAME]

Without a subcommand: the active clarifications (pending, answered, stale,
escalated) of every issue; with --issue, every thread of that issue.`

// clarifySubs are the clarify subcommands; clarifyHooks lets other files add
// theirs (the monitor adds "stale").
var clarifySubs = map[string]func(context.Context, *App, []string) error{
	"request":  runClarifyRequest,
	"answer":   runClarifyOp("answer"),
	"ask":      runClarifyOp("ask"),
	"resolve":  runClarifyOp("resolve"),
	"escalate": runClarifyOp("escalate"),
	"abandon":  runClarifyOp("abandon"),
	"stale":    runClarifyStale,
}

func runClarify(ctx context.Context, a *App, args []string) error {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, ok := clarifySubs[args[0]]
		if !ok {
			return usagef("unknown clarify subcommand %q (request, answer, ask, resolve, escalate, abandon, stale)", args[0])
		}
		err := sub(ctx, a, args[1:])
		if args[0] != "stale" && monitorAfter(err) {
			a.monitorSideEffect(ctx) // every clarify command runs the monitor (ADR-1)
		}
		return err
	}
	fs := newFlags(a, "clarify", clarifyUsage)
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

func runClarifyOp(op string) func(context.Context, *App, []string) error {
	return func(ctx context.Context, a *App, args []string) error {
		usage := fmt.Sprintf("clarify %s CLR-N-NNN", op)
		bodyName, bodyHelp := "body", "text"
		switch op {
		case "answer":
			usage += " --body TEXT [--as AGENT] [--json]\n\nThe target agent's answer to the current round."
			bodyHelp = "the answer (1-2000 characters)"
		case "ask":
			usage += " --body TEXT [--as AGENT] [--json]\n\nThe requester's follow-up question: the next round. Past the round limit the\nclarification is escalated and the command fails with MAX_ROUNDS_EXCEEDED."
			bodyHelp = "the follow-up question (1-2000 characters)"
		case "resolve":
			usage += " [--body TEXT] [--as NAME] [--json]\n\nCloses the clarification (a person may resolve an escalated one)."
			bodyHelp = "the resolution (default \"Resolved.\")"
		case "escalate":
			usage += " [--summary TEXT] [--as NAME] [--json]\n\nHands the clarification to a person with a summary of both positions."
			bodyName, bodyHelp = "summary", "why it needs a person"
		case "abandon":
			usage += " [--body TEXT] [--as NAME] [--json]\n\nCloses the clarification without an outcome."
			bodyHelp = "why it is dropped"
		}
		fs := newFlags(a, "clarify "+op, usage)
		body := fs.String(bodyName, "", bodyHelp)
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
		if (op == "answer" || op == "ask") && *body == "" {
			return usagef("clarify %s needs --body", op)
		}
		by := *as
		if by == "" && (op == "resolve" || op == "escalate" || op == "abandon") {
			by = "cli"
		}
		rt, err := a.Router()
		if err != nil {
			return err
		}
		var res *router.Result
		switch op {
		case "answer":
			res, err = rt.Answer(ctx, id, by, *body)
		case "ask":
			res, err = rt.Ask(ctx, id, by, *body)
		case "resolve":
			res, err = rt.Resolve(ctx, id, by, *body)
		case "escalate":
			res, err = rt.Escalate(ctx, id, by, *body)
		case "abandon":
			res, err = rt.Abandon(ctx, id, by, *body)
		}
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
	switch op {
	case "answer":
		return "answered"
	case "ask":
		return "asked"
	case "resolve":
		return "resolved"
	case "escalate":
		return "escalated"
	case "abandon":
		return "abandoned"
	}
	return op
}
