// Package viewcmd is the web view's command: it wires internal/viewserver
// to an agentx-hook App (workspace, ledgers, memory store, events, verify,
// digest) for the agentx-view binary. It lives apart from hookcmd so that
// agentx-hook, which every hook and git hook starts, links no web server.
package viewcmd

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/agentstatus"
	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/digest"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/verify"
	"github.com/agentx-dev/agentx/internal/hookcmd"
	"github.com/agentx-dev/agentx/internal/viewserver"
)

// LastTabGrace is how long the view waits for a page after the last one
// closed: following a link closes a page's stream and opens the next.
const LastTabGrace = 5 * time.Second

// Serve runs the view of a's workspace until ctx ends or the last tab
// closes (unless o.Stay).
func Serve(ctx context.Context, a *hookcmd.App, o hookcmd.ViewOptions) error {
	if err := a.Workspace().CheckExists(); err != nil {
		return err
	}
	if _, err := a.Config(); err != nil {
		return err
	}
	srv, err := viewserver.New(viewserver.Options{Source: &source{a: a}, Version: hookcmd.BuildVersion(), LastTabGrace: grace(o.Stay)})
	if err != nil {
		return err
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", net.JoinHostPort(o.Host, strconv.Itoa(o.Port)))
	if err != nil {
		return errcode.Wrap(errcode.InvalidInput, err, "view: listen on %s", net.JoinHostPort(o.Host, strconv.Itoa(o.Port))).
			WithHint("another program holds that port: leave --port out for a free one")
	}
	if !viewserver.IsLoopback(o.Host) {
		a.Warn("view: serving on %s, which other machines on that network can reach; anyone with the printed address (its token) can read this workspace", o.Host)
	}
	url := srv.URL(ln)
	fmt.Fprintf(a.Stdout, "agentx view: %s\n", url)
	if o.Stay {
		fmt.Fprintln(a.Stdout, "Read-only. Ctrl-C stops it.")
	} else {
		fmt.Fprintln(a.Stdout, "Read-only. Ctrl-C stops it; so does closing the last tab.")
	}
	if o.Open {
		if err := openBrowser(ctx, url); err != nil {
			a.Warn("view: could not open a browser (%v); open the address above", err)
		}
	}
	return srv.Serve(ctx, ln)
}

func grace(stay bool) time.Duration {
	if stay {
		return 0
	}
	if v := os.Getenv("AGENTX_VIEW_GRACE"); v != "" { // tests
		if d, err := time.ParseDuration(v); err == nil {
			return d
		}
	}
	return LastTabGrace
}

// openBrowser asks the desktop to open url.
func openBrowser(ctx context.Context, url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.CommandContext(ctx, "open", url)
	case "windows":
		cmd = exec.CommandContext(ctx, "rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.CommandContext(ctx, "xdg-open", url)
	}
	return cmd.Start()
}

// Main runs agentx-view: agentx-hook's commands with the view linked in;
// with no command (or flags only) it serves the view.
func Main(args []string) int {
	hookcmd.ViewServer = Serve
	return hookcmd.Main(withView(args))
}

// withView puts `view` in args when no command is named.
func withView(args []string) []string { return hookcmd.WithDefaultCommand(args, "view") }

// source reads the workspace for the pages through the App, as the CLI's
// commands do: the same stores, the same decoders.
type source struct{ a *hookcmd.App }

func (s *source) Agents() ([]agentstatus.Entry, error) {
	f, err := agentstatus.Load(s.a.Workspace().AgentStatusFile())
	if err != nil {
		return nil, err
	}
	return f.Sorted(), nil
}

func (s *source) Records() ([]ledger.Record, []error, error) {
	return s.a.Ledgers().Records(func(*ledger.Record) bool { return true })
}

func (s *source) Ledger(issue int) (*ledger.Ledger, error) { return s.a.Ledgers().Load(issue) }

func (s *source) Events(since time.Time) ([]events.Event, error) {
	evs, _, err := s.a.Events().Read(since)
	return evs, err
}

func (s *source) Search(ctx context.Context, q memory.Query) ([]memory.Row, error) {
	return s.a.Memory().Search(ctx, q)
}

func (s *source) IssueObservations(ctx context.Context, issue int) ([]memory.Observation, error) {
	return s.a.Memory().GetByIssue(ctx, issue)
}

func (s *source) Observation(ctx context.Context, id string) (*memory.Observation, error) {
	return s.a.Memory().GetByID(ctx, id)
}

func (s *source) Digest(ctx context.Context, days int) (*digest.Report, error) {
	cfg, err := s.a.Config()
	if err != nil {
		return nil, err
	}
	now := s.a.Clock.Now()
	src := &digest.Local{WS: s.a.Workspace(), Store: s.a.Memory(), Log: s.a.Events(), Warn: func(string, ...any) {}}
	in, err := digest.Load(ctx, src, cfg.KnownAgents())
	if err != nil {
		return nil, err
	}
	w := digest.LastDays(now, days)
	return digest.Compute(in, digest.Options{Since: w.Since, Until: w.Until, Now: now, IssueURL: digest.IssueURLs(cfg.Config.GitHub.Repo)}), nil
}

func (s *source) Verify() (*verify.Report, error) { return s.a.VerifyReport() }

// Stage derives the issue's stage as `ready` does: the agents that asked an
// open clarification are at work, its blocking waits block it.
func (s *source) Stage(issue int, open []ledger.Record) (*artifact.Stage, *artifact.File, error) {
	f, err := (&artifact.Store{WS: s.a.Workspace()}).Load(issue)
	if err != nil || f == nil || len(f.Artifacts) == 0 {
		return nil, nil, err
	}
	cfg, err := s.a.Config()
	if err != nil {
		return nil, f, err
	}
	wf, ok := artifact.WorkflowOf(cfg, f, cfg.Config.DefaultWorkflow)
	if !ok {
		return nil, f, nil
	}
	active := map[string]bool{}
	var blocked []string
	for _, r := range open {
		active[r.From] = true
		if r.Blocking && r.Status.Waiting() {
			blocked = append(blocked, r.ID)
		}
	}
	st := artifact.DeriveStage(wf, f, active, blocked)
	return &st, f, nil
}

func (s *source) Priority() []string {
	cfg, err := s.a.Config()
	if err != nil {
		return nil
	}
	return cfg.Priority()
}

func (s *source) Now() time.Time { return s.a.Clock.Now() }

// Fingerprint is a few stats: every agentx write renames a new file into
// its directory (a new directory time) or appends to the event log, so
// these change whenever a page's content may have. A tool that rewrites a
// ledger in place changes neither: its change shows at the next event.
func (s *source) Fingerprint() string {
	ws := s.a.Workspace()
	var b strings.Builder
	for _, p := range []string{ws.ClarificationsDir(), ws.StateDir(), ws.MemoryDir(), ws.EventsFile(), ws.AgentStatusFile()} {
		if fi, err := os.Stat(p); err == nil {
			fmt.Fprintf(&b, "%d.%d;", fi.ModTime().UnixNano(), fi.Size())
		} else {
			b.WriteString("-;")
		}
	}
	return b.String()
}
