package hookcmd

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/verify"
)

const verifyUsage = `verify [--repair] [--json]

Check everything agentx keeps under .agentx/: the configuration (agentx.toml
and workflows/*.toml load; unknown keys are warnings), ledgers (parse, issue numbers,
ids, rounds and statuses against the protocol, timestamps, entry hashes),
agent-status.json, the event log, the audit trail's chain, the memory store
(manifest against the issue files, observation hashes, the archive), derived
indexes, and leftovers of crashed writers. Each problem is printed with its
code, path, id and byte offset; the codes are listed at
https://github.com/agentx-dev/agentx/blob/main/docs/verify.md. Exit 1 when
anything is wrong, 0 with a one-line summary otherwise; stale derived
indexes and files from before hashes are reported but are not errors.

--repair first takes a checkpoint, then fixes only what follows from the
files without guessing: the manifest and search index rebuilt from the issue
files, a stale monitor index deleted, dead writers' temporaries and dead
processes' locks removed. Ledger records and observations are never changed.`

// verifyOptions is `verify`'s command line.
type verifyOptions struct {
	Repair bool
	jsonFlag
	// printed: the report document is out, so a failure must not print a
	// second one (wire asks jsonMode).
	printed bool
}

func (o *verifyOptions) jsonMode() bool { return o.JSON && !o.printed }

func parseVerify(a *App, args []string) (*verifyOptions, error) {
	o := &verifyOptions{}
	flags := newFlags(a, "verify", verifyUsage)
	flags.BoolVar(&o.Repair, "repair", false, "fix what can be derived from the files (after a checkpoint), then check again")
	o.register(flags)
	pos, err := parse(flags, args)
	if err == nil && len(pos) > 0 {
		err = usagef("verify takes no arguments (got %q)", pos[0])
	}
	return o, err
}

type verifyDoc struct {
	Counts verify.Counts `json:"counts"`
	// Error is set when verify fails, as in every failure document.
	Error    *errorBody       `json:"error,omitempty"`
	Errors   int              `json:"errors"`
	OK       bool             `json:"ok"`
	Problems []verify.Problem `json:"problems"`
	Repairs  []verify.Done    `json:"repairs,omitempty"`
	schemaVersion
}

func runVerify(ctx context.Context, a *App, o *verifyOptions) error {
	// verify reads the whole store once: fewer collections (bounded by
	// the same memory limit as the memory commands) are a third of its CPU.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(512 << 20))
	ws := a.Workspace()
	opt := verify.Options{Now: a.Clock.Now}
	rep, err := verify.Run(ws, opt)
	if err != nil {
		return errcode.Wrap(errcode.NotFound, err, "verify")
	}
	var repairs []verify.Done
	if o.Repair && verify.Repairable(rep) {
		if err := checkpointBefore(ctx, a, "verify --repair"); err != nil {
			return fmt.Errorf("checkpoint before repairing (nothing was repaired): %w", err)
		}
		repairs = verify.Repair(ctx, ws, a.Locks(), rep)
		a.auditRepairs(ctx, repairs)
		if rep, err = verify.Run(ws, opt); err != nil {
			return err
		}
	}
	errs := rep.Errors()
	var failure *errcode.Error
	if errs > 0 {
		failure = errcode.New(errcode.CorruptState, "verify found %d problem%s under %s", errs, plural(errs), ws.AgentxDir())
		if hasRepair(rep) && !o.Repair {
			failure.Hint = "`agentx-hook verify --repair` fixes those marked repairable; the others need a person"
		} else {
			failure.Hint = "nothing was changed; the problems listed need a person (see https://github.com/agentx-dev/agentx/blob/main/docs/verify.md)"
		}
	}
	if o.JSON {
		o.printed = true
		doc := &verifyDoc{Counts: rep.Counts, Errors: errs, OK: errs == 0, Problems: rep.Problems, Repairs: repairs}
		if failure != nil {
			doc.Error = &errorBody{Code: string(failure.Code), Message: failure.Message, Hint: failure.Hint}
		}
		if err := a.writeDoc(doc); err != nil {
			return err
		}
	} else {
		printVerify(a, rep, repairs)
	}
	if failure != nil {
		return failure
	}
	return nil
}

func printVerify(a *App, rep *verify.Report, repairs []verify.Done) {
	for _, d := range repairs {
		if d.Err != "" {
			fmt.Fprintf(a.Stdout, "repair failed %s %s: %s: %s\n", d.Code, d.Path, d.Action, d.Err)
		} else {
			fmt.Fprintf(a.Stdout, "repaired %s %s: %s\n", d.Code, d.Path, d.Action)
		}
	}
	for _, p := range rep.Problems {
		var where strings.Builder
		where.WriteString(p.Path)
		if p.Line > 0 {
			fmt.Fprintf(&where, ":%d", p.Line)
		}
		if p.Offset >= 0 {
			fmt.Fprintf(&where, " @%d", p.Offset)
		}
		if p.ID != "" {
			where.WriteString(" " + p.ID)
		}
		line := fmt.Sprintf("%-5s %s %s: %s", p.Severity, p.Code, where.String(), p.Message)
		if p.Repair != "" {
			line += " [repairable: " + p.Repair + "]"
		}
		fmt.Fprintln(a.Stdout, line)
	}
	c := rep.Counts
	status := "ok"
	if n := rep.Errors(); n > 0 {
		status = fmt.Sprintf("%d problem%s", n, plural(n))
	}
	fmt.Fprintf(a.Stdout, "verify: %s: %d ledgers (%d records, %d entries), %d observations in %d issue files, %d archived, %d audit lines\n",
		status, c.Ledgers, c.Records, c.Entries, c.Observations, c.IssueFiles, c.Archived, c.AuditLines)
}

func hasRepair(rep *verify.Report) bool {
	for _, p := range rep.Problems {
		if p.Severity == verify.Error && p.Repair != "" {
			return true
		}
	}
	return false
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// auditRepairs records the repairs made as one line.
func (a *App) auditRepairs(ctx context.Context, repairs []verify.Done) {
	if len(repairs) == 0 {
		return
	}
	var paths []string
	for _, d := range repairs {
		if d.Err == "" {
			paths = append(paths, d.Path)
		}
	}
	a.auditAppend(ctx, audit.Entry{Op: "verify.repair", IDs: paths,
		Detail: fmt.Sprintf("%d repairs (%d failed)", len(paths), len(repairs)-len(paths))})
}
