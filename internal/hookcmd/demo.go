package hookcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/responder"
)

// demoStep is one command of the scripted tour.
type demoStep struct {
	title string
	args  []string
	env   map[string]string
	stdin string // what the command reads on stdin (a hook's payload)
}

// demoSteps are the tour's sections, one per capability; each section
// lives beside its commands (demoMonitor in monitor.go, and so on).
func demoSteps() [][]demoStep {
	return [][]demoStep{demoClarify(), demoMonitor(), demoMemory(), demoPipeline()}
}

func demoClarify() []demoStep {
	return []demoStep{
		{title: "Set up a workspace with the default workflows", args: []string{"init"}},
		{title: "The engineer asks the architect (a responder answers for the architect)",
			args: []string{"clarify", "request", "--issue", "42", "--from", "engineer", "--to", "architect",
				"--topic", "authentication flow", "--question", "Should token validation live in middleware or in each controller?"}},
		{title: "A follow-up question: round 2, answered again", args: []string{"clarify", "ask", "CLR-42-001", "--body", "Does the middleware also refresh expired tokens?"}},
		{title: "The engineer is satisfied and resolves it", args: []string{"clarify", "resolve", "CLR-42-001", "--as", "engineer", "--body", "Going with middleware that validates and refreshes."}},
		{title: "The whole thread, as the old CLI showed it", args: []string{"clarify", "--issue", "42"}},
		{title: "A bug fix with a 3-round limit: the engineer asks the product manager (no responder: answered by hand)",
			args: []string{"clarify", "request", "--workflow", "bug", "--issue", "57", "--from", "engineer", "--to", "product-manager",
				"--topic", "error message wording", "--question", "Should the lockout message mention the 15 minute wait?"}},
		{args: []string{"clarify", "answer", "CLR-57-001", "--body", "Yes, mention it."}},
		{args: []string{"clarify", "ask", "CLR-57-001", "--body", "Exactly 15, or 'a few minutes'?"}},
		{args: []string{"clarify", "answer", "CLR-57-001", "--body", "Whatever the config says."}},
		{args: []string{"clarify", "ask", "CLR-57-001", "--body", "The config has no such value; which one?"}},
		{args: []string{"clarify", "answer", "CLR-57-001", "--body", "Ask the architect."}},
		{title: "Round 4 would pass the limit: the hub escalates to a person", args: []string{"clarify", "ask", "CLR-57-001", "--body", "So which number do I print?"}},
		{title: "Scope guard: the engineer's step may not ask the reviewer",
			args: []string{"clarify", "request", "--issue", "42", "--from", "engineer", "--to", "reviewer",
				"--topic", "review checklist", "--question", "What will you check?"}},
		{title: "What is still open", args: []string{"clarify"}},
		{title: "Agent statuses", args: []string{"state"}},
	}
}

// demoOptions is `demo`'s command line.
type demoOptions struct {
	Keep bool   // keep the temporary workspace
	Dir  string // use this directory instead of a temporary one
}

func parseDemo(a *App, args []string) (*demoOptions, error) {
	o := &demoOptions{}
	flags := newFlags(a, "demo", "demo [--keep] [--dir DIR]\n\nRuns a scripted tour of agentx in a temporary workspace and prints every\ncommand with its real output. Nothing outside the temporary directory changes.")
	flags.BoolVar(&o.Keep, "keep", false, "keep the temporary workspace and print its path")
	flags.StringVar(&o.Dir, "dir", "", "use this (new or empty) directory instead of a temporary one")
	_, err := parse(flags, args)
	return o, err
}

func runDemo(ctx context.Context, a *App, o *demoOptions) (err error) {
	root := o.Dir
	if root == "" {
		tmp, err := os.MkdirTemp("", "agentx-demo-")
		if err != nil {
			return err
		}
		root = tmp
		if !o.Keep {
			defer func() {
				if rerr := os.RemoveAll(tmp); rerr != nil && err == nil {
					err = fmt.Errorf("remove the demo workspace: %w", rerr)
				}
			}()
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("demo needs its own binary for the responder: %w", err)
	}
	st := a.Style()
	fmt.Fprintf(a.Stdout, "%s\n", st.Bold("agentx demo: a clarification protocol between agents, on plain files"))
	fmt.Fprintf(a.Stdout, "%s\n", st.Dim("workspace: "+root))
	tour := &demoTour{a: a, root: root, shownStdin: map[string]bool{}}
	for _, section := range demoSteps() {
		for i, step := range section {
			if i == 1 && step.args[0] == "clarify" && step.args[1] == "request" && section[0].args[0] == "init" {
				// After init: give the architect a responder, as a team would.
				if err := writeDemoResponder(root, exe); err != nil {
					return err
				}
				fmt.Fprintf(a.Stdout, "\n%s\n", st.Dim("# .agentx/agentx.toml gains: [responders.architect] command = [\"agentx-hook\", \"__demo-responder\"]"))
			}
			tour.run(ctx, step)
		}
	}
	fmt.Fprintf(a.Stdout, "\n%s\n", st.Green("Demo complete."))
	if o.Keep || o.Dir != "" {
		fmt.Fprintf(a.Stdout, "The workspace is kept at %s; try `agentx-hook --root %s clarify --issue 57`.\n", root, root)
	}
	return nil
}

// demoTour runs the tour's steps in one workspace.
type demoTour struct {
	a          *App
	root       string
	shownStdin map[string]bool // summaries already shown
}

// run prints one step's command line and runs it as its own invocation,
// its output and errors inline.
func (t *demoTour) run(ctx context.Context, step demoStep) {
	a, st := t.a, t.a.Style()
	if step.title != "" {
		fmt.Fprintf(a.Stdout, "\n%s\n", st.Bold("== "+step.title))
	}
	cmdline := "$ agentx-hook " + quoteArgs(step.args)
	if step.stdin != "" {
		// Show what the command reads, once, so the output that
		// follows (what was stored, what was dropped) makes sense.
		cmdline += " < summary.md"
		if !t.shownStdin[step.stdin] {
			t.shownStdin[step.stdin] = true
			fmt.Fprintf(a.Stdout, "%s\n", st.Dim("# summary.md, as the agent's host hands it over at session end:"))
			for _, line := range strings.Split(step.stdin, "\n") {
				fmt.Fprintf(a.Stdout, "%s\n", st.Dim(strings.TrimRight("#   "+line, " ")))
			}
		}
	}
	fmt.Fprintf(a.Stdout, "%s\n", st.Dim(cmdline))
	sub := &App{Stdin: strings.NewReader(step.stdin), Stdout: a.Stdout, Stderr: a.Stdout,
		Getenv: demoEnv(a.Getenv, step.env), Cwd: t.root, Clock: a.Clock, StdoutTTY: a.StdoutTTY, StderrTTY: a.StdoutTTY, rootFlag: t.root}
	if code := sub.Run(ctx, step.args); code != 0 {
		fmt.Fprintf(a.Stdout, "%s\n", st.Dim(fmt.Sprintf("(exit status %d)", code)))
	}
}

func writeDemoResponder(root, exe string) error {
	path := filepath.Join(root, ".agentx", "agentx.toml")
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	q, _ := json.Marshal(exe)
	data = append(data, []byte(fmt.Sprintf("\n[responders.architect]\ncommand = [%s, \"__demo-responder\"]\ntimeout = \"10s\"\n", q))...)
	return os.WriteFile(path, data, 0o644)
}

func demoEnv(parent func(string) string, extra map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := extra[k]; ok {
			return v
		}
		switch k {
		case "AGENTX_ROOT", "AGENTX_ISSUE":
			return ""
		}
		return parent(k)
	}
}

func quoteArgs(args []string) string {
	out := make([]string, len(args))
	for i, s := range args {
		if strings.ContainsAny(s, " '\"?$*") || s == "" {
			out[i] = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		} else {
			out[i] = s
		}
	}
	return strings.Join(out, " ")
}

// runDemoResponder is the architect the demo wires in: it reads the hub's
// request and answers from a small script, like a real agent CLI would.
func runDemoResponder(_ context.Context, a *App, _ []string) error {
	data, err := io.ReadAll(a.Stdin)
	if err != nil {
		return err
	}
	var req responder.Request
	if err := json.Unmarshal(data, &req); err != nil {
		return fmt.Errorf("demo responder: bad request: %w", err)
	}
	q := strings.ToLower(req.Question)
	switch {
	case strings.Contains(q, "refresh"):
		fmt.Fprintln(a.Stdout, "Yes: refresh in the middleware when the token expires within 5 minutes, so controllers never see an expired token.")
	case strings.Contains(q, "middleware"):
		fmt.Fprintln(a.Stdout, "Middleware. Validate once per request in auth middleware (ADR-7); controllers read the verified claims from the context.")
	default:
		fmt.Fprintf(a.Stdout, "Round %d: see the architecture doc for %q.\n", req.Round, req.Topic)
	}
	return nil
}
