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

const digestUsage = `digest [--days 7] [--since DATE --until DATE] [--format md|json] [--json] [--save | --out FILE]

The weekly digest: clarifications opened, settled (resolved without a person,
resolved with one, escalated, abandoned) and still open, the SPEC's targets
(auto-resolution > 80%, escalation < 20%, 2-3 average rounds, no stale, no
deadlocks), by agent pair and by issue, recurring topics and memory figures,
each beside the previous window of the same length.

The window is the last --days days, or [--since, --until) (dates like
2026-11-16 or ISO timestamps; --until defaults to now). It prints and writes
nothing; --save also files the Markdown under .agentx/digests/: a 7-day
window as DIGEST-<ISO year>-W<ISO week>.md (the ISO week of the window's
middle), any other as DIGEST-<since>_<until>.md, so --days 30 never replaces
a week's file; --out FILE writes it to FILE instead.`

// digestOptions is `digest`'s command line.
type digestOptions struct {
	Days         int
	Since, Until string
	Format       string // md or json (--json is --format json)
	Save         bool   // file it under .agentx/digests/
	Out          string // write the Markdown to this file
}

func (o *digestOptions) jsonMode() bool { return o.Format == "json" }

func parseDigest(a *App, args []string) (*digestOptions, error) {
	o := &digestOptions{}
	flags := newFlags(a, "digest", digestUsage)
	flags.IntVar(&o.Days, "days", 7, "the last `N` days")
	flags.StringVar(&o.Since, "since", "", "window start: a `DATE` (2026-11-16) or ISO timestamp")
	flags.StringVar(&o.Until, "until", "", "window end, exclusive: a `DATE` or ISO timestamp (default now)")
	flags.StringVar(&o.Format, "format", "md", "output `form`: md or json")
	flags.BoolVar(&o.Save, "save", false, "also file the Markdown under .agentx/digests/ (a week's file for a 7-day window)")
	flags.StringVar(&o.Out, "out", "", "also write the Markdown to `FILE`")
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

	// A report writes nothing unless asked: --save files it (the old
	// tool's weekly record, under the week's name only for a week's
	// window), --out where the user says.
	file := ""
	switch {
	case o.Out != "":
		file = o.Out
	case o.Save:
		if _, err := os.Stat(ws.AgentxDir()); err != nil {
			return errcode.New(errcode.InvalidInput, "digest --save: no .agentx/ in %s", ws.Root).
				WithHint("run `agentx-hook init` first, or use --out FILE")
		}
		file = filepath.Join(ws.AgentxDir(), "digests", digestFileName(rep.Window))
	}
	if file != "" {
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

// digestFileName is the file --save writes: the ISO week's name for a
// window of exactly seven days, the window's dates for any other (a
// 30-day digest must not replace a week's).
func digestFileName(w digest.Window) string {
	if w.Until.Sub(w.Since) == 7*24*time.Hour {
		return digest.FileName(w)
	}
	return "DIGEST-" + w.Since.UTC().Format("2006-01-02") + "_" + w.Until.UTC().Format("2006-01-02") + ".md"
}
