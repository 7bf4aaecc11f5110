package hookcmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/digest"
	"github.com/agentx-dev/agentx/internal/core/errcode"
)

const digestUsage = `digest [--days 7] [--since DATE --until DATE] [--format md|json] [--json]

The weekly digest: clarifications opened, settled (resolved without a person,
resolved with one, escalated, abandoned) and still open, the SPEC's targets
(auto-resolution > 80%, escalation < 20%, 2-3 average rounds, no stale, no
deadlocks), by agent pair and by issue, recurring topics and memory figures,
each beside the previous window of the same length.

The window is the last --days days, or [--since, --until) (dates like
2026-11-16 or ISO timestamps; --until defaults to now). The Markdown is also
written to .agentx/digests/DIGEST-<ISO year>-W<ISO week>.md, named after the
ISO week of the window's middle.`

// digestOptions is `digest`'s command line.
type digestOptions struct {
	Days         int
	Since, Until string
	Format       string // md or json (--json is --format json)
}

func (o *digestOptions) jsonMode() bool { return o.Format == "json" }

func parseDigest(a *App, args []string) (*digestOptions, error) {
	o := &digestOptions{}
	flags := newFlags(a, "digest", digestUsage)
	flags.IntVar(&o.Days, "days", 7, "the last `N` days")
	flags.StringVar(&o.Since, "since", "", "window start: a `DATE` (2026-11-16) or ISO timestamp")
	flags.StringVar(&o.Until, "until", "", "window end, exclusive: a `DATE` or ISO timestamp (default now)")
	flags.StringVar(&o.Format, "format", "md", "output `form`: md or json")
	asJSON := flags.Bool("json", false, "same as --format json")
	pos, err := parse(flags, args)
	if *asJSON {
		o.Format = "json"
	}
	if err != nil {
		return o, err
	}
	if len(pos) > 0 {
		return o, usagef("digest takes no arguments (got %q)", pos[0])
	}
	if o.Format != "md" && o.Format != "json" {
		return o, usagef("digest: --format is md or json, not %q", o.Format)
	}
	return o, nil
}

// digestDoc is `digest --format json`: the report, which carries its own
// schema_version (digest.SchemaVersion, shared with the Action's
// document), and the file it was written to.
type digestDoc struct {
	*digest.Report
	File string `json:"file"`
}

func (d *digestDoc) stamp() {}

// runDigest prints the digest of this workspace and files its Markdown
// under .agentx/digests/.
func runDigest(ctx context.Context, a *App, o *digestOptions) error {
	w, err := digestWindow(a, o.Days, o.Since, o.Until)
	if err != nil {
		return err
	}
	cfg, err := a.Config()
	if err != nil {
		return err
	}
	// A digest decodes every ledger once and exits: the collector's default
	// pace (a cycle per doubling of a small heap) would run a dozen cycles
	// over garbage the exit frees anyway. Four times the live heap bounds
	// the cost at tens of megabytes for 1,000 issues.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	ws := a.Workspace()
	src := &digest.Local{WS: ws, Store: a.Memory(), Log: a.Events(),
		Warn: a.warn}
	in, err := digest.Load(ctx, src, cfg.KnownAgents())
	if err != nil {
		return err
	}
	opt := digest.Options{Since: w.Since, Until: w.Until, Now: a.Clock.Now()}
	if repo := cfg.Config.GitHub.Repo; repo != "" {
		opt.IssueURL = func(n int) string { return fmt.Sprintf("https://github.com/%s/issues/%d", repo, n) }
	}
	rep := digest.Compute(in, opt)
	text := digest.Markdown(rep, nil)

	// The file is the old tool's weekly record; a workspace that was never
	// initialised gets no .agentx/ from a read-only report.
	file := ""
	if _, err := os.Stat(ws.AgentxDir()); err == nil {
		file = filepath.Join(ws.AgentxDir(), "digests", digest.FileName(rep.Window))
		if err := atomicfile.Write(file, []byte(text), atomicfile.Options{}); err != nil {
			return fmt.Errorf("write digest: %w", err)
		}
	}
	if o.Format == "json" {
		return a.writeDoc(&digestDoc{rep, file})
	}
	fmt.Fprint(a.Stdout, text)
	if file != "" {
		fmt.Fprintf(a.Stderr, "digest written to %s\n", file)
	}
	return nil
}

func digestWindow(a *App, days int, sinceS, untilS string) (digest.Window, error) {
	until := a.Clock.Now().UTC()
	if untilS != "" {
		t, err := parseWhen(a, untilS)
		if err != nil {
			return digest.Window{}, err
		}
		until = t.UTC()
	}
	if sinceS == "" {
		if days < 1 {
			return digest.Window{}, usagef("digest: --days must be at least 1")
		}
		return digest.Window{Since: until.AddDate(0, 0, -days), Until: until}, nil
	}
	since, err := parseWhen(a, sinceS)
	if err != nil {
		return digest.Window{}, err
	}
	if !since.Before(until) {
		return digest.Window{}, errcode.New(errcode.InvalidInput, "digest: --since %s is not before --until %s",
			since.UTC().Format(time.RFC3339), until.Format(time.RFC3339))
	}
	return digest.Window{Since: since.UTC(), Until: until}, nil
}
