package hookcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/router"
)

// applyTestClock honours $AGENTX_NOW (RFC 3339) so end-to-end tests and
// the demo can step past SLAs without sleeping: the process's clock starts
// at that instant and runs on. It is a testing aid, not a user setting.
func (a *App) applyTestClock() {
	v := a.Getenv("AGENTX_NOW")
	if v == "" {
		return
	}
	t, err := clock.Parse(v)
	if err != nil {
		a.warn("ignoring AGENTX_NOW: %v", err)
		return
	}
	a.Clock = clock.StartingAt(t)
}

// checkMonitor runs one monitor check against the workspace.
func (a *App) checkMonitor(ctx context.Context) (*monitor.Report, error) {
	rt, err := a.Router()
	if err != nil {
		return nil, err
	}
	return monitor.New(rt).Check(ctx)
}

// monitorSideEffect is the check every clarify command runs (ADR-1: no
// daemon). It never fails the command: what it did and what went wrong go
// to stderr, so stdout (and --json documents) stay the command's own.
// Unreadable ledgers are left to the command itself to report.
func (a *App) monitorSideEffect(ctx context.Context) {
	rt, err := a.Router()
	if err != nil {
		return // the command reports the configuration error itself
	}
	rep, err := sideEffectMonitor(rt).Check(ctx)
	if err != nil {
		a.warn("monitor: %v", err)
		return
	}
	a.printActions(rep, false)
}

// sideEffectMonitor is the monitor of a clarify command's check. After
// the command's own writes only what it wrote is checked against the
// index, the rest is the index's (Scanner.Changed): the work follows what
// changed, not the number of ledgers. A command that wrote nothing runs
// the full check.
func sideEffectMonitor(rt *router.Router) *monitor.Monitor {
	m := monitor.New(rt)
	if rt.Ledgers == nil {
		return m
	}
	dir := filepath.Clean(m.Scanner.Dir)
	for _, p := range rt.Ledgers.WrittenPaths() {
		if filepath.Dir(p) == dir {
			m.Scanner.Changed = append(m.Scanner.Changed, filepath.Base(p))
		}
	}
	return m
}

// printActions prints what a check did, one line each, to stderr.
func (a *App) printActions(rep *monitor.Report, withScan bool) {
	for _, line := range rep.ActionLines() {
		fmt.Fprintln(a.Stderr, line)
	}
	a.printWarnings(rep, withScan)
}

// printWarnings prints failed actions and, with withScan, skipped ledgers.
func (a *App) printWarnings(rep *monitor.Report, withScan bool) {
	a.warnEach(rep.Problems(withScan)...)
}

const monitorUsage = `monitor [--json] [--graph mermaid|dot]

Runs one check over every clarification ledger and acts on what it finds:
  stale      a pending clarification past its SLA: marked stale and its target's
             responder re-invoked once (first timeout); escalated to a person
             at the second timeout
  stuck      the same question asked again (across rounds, or the same topic
             asked back in the opposite direction): escalated with the rounds quoted
  deadlock   agents waiting on each other in a cycle of blocking clarifications:
             the highest-priority agent's request continues, the others are escalated
Each action happens once; hooks and clarify commands run the same check.

--graph prints instead who waits on whom (one edge per clarification still
waiting for its target, deadlock cycles and stale or stuck waits in red) as
a Mermaid flowchart (GitHub renders it in Markdown) or Graphviz DOT
(dot -Tsvg), with what a check would find; it acts on nothing.`

// monitorOptions is `monitor`'s command line.
type monitorOptions struct {
	Graph string // "", mermaid or dot
	jsonFlag
}

func parseMonitor(a *App, args []string) (*monitorOptions, error) {
	o := &monitorOptions{}
	flags := newFlags(a, "monitor", monitorUsage)
	o.register(flags)
	flags.StringVar(&o.Graph, "graph", "", "print the wait-for graph and act on nothing; `FORMAT`, one of mermaid or dot")
	if err := parseFlagsOnly(flags, args); err != nil {
		return o, err
	}
	switch o.Graph {
	case "", "mermaid", "dot":
	default:
		return o, usagef("monitor: --graph is mermaid or dot, not %q", o.Graph)
	}
	if o.Graph != "" && o.JSON {
		return o, usagef("monitor: --graph and --json exclude each other")
	}
	return o, nil
}

func runMonitor(ctx context.Context, a *App, o *monitorOptions) error {
	if o.Graph != "" {
		return a.printWaitGraph(o.Graph)
	}
	rep, err := a.checkMonitor(ctx)
	if err != nil {
		return err
	}
	a.checkArtifacts(ctx, rep, true)
	if o.JSON {
		return a.writeDoc(rep.Doc())
	}
	a.printWarnings(rep, true)
	fmt.Fprint(a.Stdout, rep.Text(a.Style()))
	for _, l := range rep.ArtifactLines() {
		fmt.Fprintln(a.Stdout, l)
	}
	return nil
}

// printWaitGraph prints the wait-for graph of the open clarifications as
// they stand, without a check: a picture of a deadlock must show the
// cycle, not what is left once the check has broken it.
func (a *App) printWaitGraph(format string) error {
	rt, err := a.Router()
	if err != nil {
		return err
	}
	recs, err := a.loadRecords(ledger.IsActive)
	if err != nil {
		return err
	}
	g := monitor.NewWaitGraph(recs, a.Clock.Now(), rt.Config.Priority())
	if format == "dot" {
		_, err = io.WriteString(a.Stdout, g.DOT())
	} else {
		_, err = io.WriteString(a.Stdout, g.Mermaid())
	}
	return err
}

// monitorAfter reports whether a clarify subcommand that returned err
// should still run the monitor: yes after any protocol outcome, no after a
// usage error or --help (nothing was asked of the protocol).
func monitorAfter(err error) bool {
	var ue *usageError
	return !errors.Is(err, errHelp) && !errors.As(err, &ue)
}

// runClarifyStale runs a check (acting like every clarify command) and
// lists what is stale and what is stuck: records waiting past their SLA or
// marked stale, and records the monitor escalated as stuck (with those the
// check found still open, should its escalation have failed).
func parseClarifyStale(a *App, args []string) (*jsonOnlyOptions, error) {
	return parseNoArgs("clarify stale", "clarify stale [--json]\n\nStale clarifications (the target owes an answer past the SLA) and stuck ones\n(the same question asked again), after one monitor check.")(a, args)
}

func runClarifyStale(ctx context.Context, a *App, o *jsonOnlyOptions) error {
	rep, err := a.checkMonitor(ctx)
	if err != nil {
		return err
	}
	a.printActions(rep, false)
	recs, err := a.loadRecords(ledger.IsActive)
	if err != nil {
		return err
	}
	now := a.Clock.Now()
	stale, stuck := rep.StaleAndStuck(recs, now)
	return a.emit(o.JSON, monitor.NewStaleDoc(stale, stuck), monitor.StaleText(a.Style(), stale, stuck, now))
}
