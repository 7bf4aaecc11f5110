package hookcmd

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/digest"
)

const digestUsage = `digest [--days 7] [--since DATE --until DATE] [--format md|json|html] [--json] [--save | --out FILE]

The weekly digest: clarifications opened, settled (resolved without a person,
resolved with one, escalated, abandoned) and still open, agentx's targets
(auto-resolution > 80%, escalation < 20%, 2-3 average rounds, no stale, no
deadlocks), by agent pair and by issue, recurring topics and memory figures,
each beside the previous window of the same length.

The window is the last --days days, or [--since, --until) (dates like
2026-11-16 or ISO timestamps; --until defaults to now). It prints and writes
nothing; --save also files the Markdown under .agentx/digests/: a 7-day
window as DIGEST-<ISO year>-W<ISO week>.md (the ISO week of the window's
middle), any other as DIGEST-<since>_<until>.md, so --days 30 never replaces
a week's file; --out FILE writes it to FILE instead. --format html prints
one self-contained page (charts as inline SVG, nothing loaded from
elsewhere) to open in a browser; with --save or --out that page is what is
written (DIGEST-....html).`

// digestOptions is `digest`'s command line.
type digestOptions struct {
	Days         int
	Since, Until string
	formatFlag          // md, json or html
	Save         bool   // file it under .agentx/digests/
	Out          string // write the Markdown to this file
}

func parseDigest(a *App, args []string) (*digestOptions, error) {
	o := &digestOptions{}
	flags := newFlags(a, "digest", digestUsage)
	flags.IntVar(&o.Days, "days", 7, "the last `N` days (1 to 3660)")
	flags.StringVar(&o.Since, "since", "", "window start: a `DATE` (2026-11-16) or ISO timestamp")
	flags.StringVar(&o.Until, "until", "", "window end, exclusive: a `DATE` or ISO timestamp (default now)")
	o.register(flags, "md", "output `form`: md, json or html")
	flags.BoolVar(&o.Save, "save", false, "also file the Markdown under .agentx/digests/ (a week's file for a 7-day window)")
	flags.StringVar(&o.Out, "out", "", "also write the Markdown to `FILE`")
	pos, err := o.parse(flags, args)
	if err == nil && len(pos) > 0 {
		err = usagef("digest takes no arguments (got %q)", pos[0])
	}
	if err != nil {
		return o, err
	}
	if o.Format != "md" && o.Format != "json" && o.Format != "html" {
		return o, usagef("digest: --format is md, json or html, not %q", o.Format)
	}
	if o.Save && o.Out != "" {
		return o, usagef("digest: --save and --out exclude each other")
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

func (d *digestDoc) SetSchemaVersion(int) {} // digest.SchemaVersion is stamped by digest

// runDigest prints the digest of this workspace and files its Markdown
// under .agentx/digests/.
func runDigest(ctx context.Context, a *App, o *digestOptions) error {
	w, err := digest.WindowFor(a.Clock.Now(), o.Since, o.Until, o.Days)
	if errors.Is(err, digest.ErrDays) {
		return usagef("%v", err)
	}
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
	in.Workflows = cfg // each issue's stage from its artifacts
	rep := digest.Compute(in, digest.Options{Since: w.Since, Until: w.Until, Now: a.Clock.Now(), IssueURL: digest.IssueURLs(cfg.Config.GitHub.Repo)})
	text := digest.Markdown(rep, nil)
	if o.Format == "html" {
		text = digest.HTML(rep)
	}

	// A report writes nothing unless asked: --save files it (the old
	// tool's weekly record, under the week's name only for a week's
	// window), --out where the user says.
	file := o.Out
	if o.Save {
		if file, err = digest.SavePath(ws, rep.Window); err != nil {
			return err
		}
		if o.Format == "html" {
			file = strings.TrimSuffix(file, ".md") + ".html"
		}
	}
	if file != "" {
		if err := digest.Write(file, text); err != nil {
			return err
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
