package hookcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/demo"
)

// demoOptions is `demo`'s command line.
type demoOptions struct {
	Keep bool   // keep the temporary workspace
	Dir  string // use this directory instead of a temporary one
}

func parseDemo(a *App, args []string) (*demoOptions, error) {
	o := &demoOptions{}
	flags := newFlags(a, "demo", "demo [--keep] [--dir DIR]\n\nRuns a scripted tour of agentx in a temporary workspace and prints every\ncommand with its real output. Nothing outside the temporary directory changes.")
	flags.BoolVar(&o.Keep, "keep", false, "keep the temporary workspace and print its path")
	flags.StringVar(&o.Dir, "dir", "", "use this new or empty directory instead of a temporary one (one that holds anything is refused)")
	return o, parseFlagsOnly(flags, args)
}

func runDemo(ctx context.Context, a *App, o *demoOptions) (err error) {
	dir := o.Dir
	if dir != "" {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(a.Cwd, dir)
		}
		if err := demo.CheckDir(dir); errors.Is(err, demo.ErrDirNotEmpty) {
			return usagef("demo --dir %s: %v (the demo needs a new or empty one; without --dir it uses a temporary one)", o.Dir, err)
		} else if err != nil {
			return err
		}
	}
	root, done, err := demo.Root(dir, o.Keep)
	if err != nil {
		return err
	}
	defer func() {
		if rerr := done(); rerr != nil && err == nil {
			err = rerr
		}
	}()
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("demo needs its own binary for the responder: %w", err)
	}
	st := a.Style()
	fmt.Fprintf(a.Stdout, "%s\n", st.Bold("agentx demo: a clarification protocol between agents, on plain files"))
	fmt.Fprintf(a.Stdout, "%s\n", st.Dim("workspace: "+root))
	shownStdin := map[string]bool{} // summaries already shown
	for _, section := range demo.Sections() {
		for i, step := range section {
			if demo.NeedsResponder(section, i) {
				if err := demo.AddResponder(root, exe); err != nil {
					return err
				}
				fmt.Fprintf(a.Stdout, "\n%s\n", st.Dim(demo.ResponderNote))
			}
			runDemoStep(ctx, a, root, step, shownStdin)
		}
	}
	fmt.Fprintf(a.Stdout, "\n%s\n", st.Green("Demo complete."))
	if o.Keep || o.Dir != "" {
		fmt.Fprintf(a.Stdout, "The workspace is kept at %s; try `agentx-hook --root %s clarify --issue 57`.\n", root, root)
	}
	return nil
}

// runDemoStep prints one step's command line and runs it as its own
// invocation in the workspace at root, its output and errors inline.
func runDemoStep(ctx context.Context, a *App, root string, step demo.Step, shownStdin map[string]bool) {
	st := a.Style()
	if step.Title != "" {
		fmt.Fprintf(a.Stdout, "\n%s\n", st.Bold("== "+step.Title))
	}
	if step.Stdin != "" && !shownStdin[step.Stdin] {
		shownStdin[step.Stdin] = true
		for _, line := range step.StdinLines() {
			fmt.Fprintf(a.Stdout, "%s\n", st.Dim(line))
		}
	}
	fmt.Fprintf(a.Stdout, "%s\n", st.Dim(step.CommandLine()))
	sub := &App{Stdin: strings.NewReader(step.Stdin), Stdout: a.Stdout, Stderr: a.Stdout,
		Getenv: demo.Env(a.Getenv, step.Env), Cwd: root, Clock: a.Clock, StdoutTTY: a.StdoutTTY, StderrTTY: a.StdoutTTY, rootFlag: root}
	if code := sub.Run(ctx, step.Args); code != 0 {
		fmt.Fprintf(a.Stdout, "%s\n", st.Dim(fmt.Sprintf("(exit status %d)", code)))
	}
}

// runDemoResponder is the architect the demo wires in: it reads the hub's
// request and answers it.
func runDemoResponder(_ context.Context, a *App, _ []string) error {
	data, err := io.ReadAll(a.Stdin)
	if err != nil {
		return err
	}
	answer, err := demo.Respond(data)
	if err != nil {
		return err
	}
	fmt.Fprint(a.Stdout, answer)
	return nil
}
