package checkpoint

import (
	"fmt"
	"strings"
)

// The text forms of the results, as `agentx-hook checkpoint` prints them;
// the command writes them, nothing here touches a terminal.

// timeLayout is how a checkpoint's time reads.
const timeLayout = "2006-01-02 15:04:05Z"

// Line is what Create did, in one line.
func (r *Result) Line() string {
	if r.Created {
		return fmt.Sprintf("%s checkpoint of %d files (%d new blobs)\n", r.Short, r.Files, r.Blobs)
	}
	return fmt.Sprintf("%s unchanged: the state equals the last checkpoint\n", r.Short)
}

// ListText is one line per checkpoint, those the trail does not name
// marked [UNAUDITED] (Trail.MarkUnaudited).
func ListText(list []Checkpoint) string {
	if len(list) == 0 {
		return "No checkpoints yet (agentx-hook checkpoint create makes one).\n"
	}
	var b strings.Builder
	for _, c := range list {
		mark := ""
		if c.Unaudited {
			mark = "  [UNAUDITED]"
		}
		fmt.Fprintf(&b, "%s  %s  %s%s\n", c.Short, c.Time.Format(timeLayout), c.Message, mark)
	}
	return b.String()
}

// UnauditedWarning explains n checkpoints marked [UNAUDITED] ("" for none).
func UnauditedWarning(n int) string {
	s := "s"
	switch n {
	case 0:
		return ""
	case 1:
		s = ""
	}
	return fmt.Sprintf("%d checkpoint%s marked [UNAUDITED]: no %s line of the audit trail names it, so agentx did not make it (git commit-tree?) or the line was lost; restore refuses it without --force",
		n, s, OpCreate)
}

// Text is the diff as `checkpoint show` prints it: the checkpoint, then
// the files, records and observations changed since.
func (d *Diff) Text() string {
	var b strings.Builder
	c := d.Checkpoint
	fmt.Fprintf(&b, "checkpoint %s  %s  %s\n", c.Short, c.Time.Format(timeLayout), c.Message)
	if len(d.Files) == 0 {
		b.WriteString("No changes since this checkpoint.\n")
		return b.String()
	}
	b.WriteString("\nSince then (added: new now; removed: only in the checkpoint):\n")
	for _, f := range d.Files {
		fmt.Fprintf(&b, "  %-8s .agentx/%s\n", f.Change, f.Path)
	}
	items := func(title string, list []ItemChange) {
		if len(list) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s:\n", title)
		for _, it := range list {
			fmt.Fprintf(&b, "  %-8s %s (issue #%d)", it.Change, it.ID, it.Issue)
			if it.Detail != "" {
				b.WriteString(": " + it.Detail)
			}
			b.WriteByte('\n')
		}
	}
	items("Clarification records", d.Records)
	items("Observations", d.Observations)
	return b.String()
}

// Text is the restore as `checkpoint restore` prints it: each file
// written, removed or rebuilt (or that would be, dry), then the outcome.
func (r *RestoreResult) Text() string {
	var b strings.Builder
	verb := func(done, dry string) string {
		if r.DryRun {
			return dry
		}
		return done
	}
	for _, p := range r.Written {
		fmt.Fprintf(&b, "%s .agentx/%s\n", verb("restored", "would restore"), p)
	}
	for _, p := range r.Removed {
		fmt.Fprintf(&b, "%s .agentx/%s\n", verb("removed", "would remove"), p)
	}
	for _, p := range r.Derived {
		fmt.Fprintf(&b, "%s .agentx/%s (from the restored files)\n", verb("rebuilt", "would rebuild"), p)
	}
	switch {
	case !r.Changed():
		fmt.Fprintf(&b, "Nothing to do: the state equals checkpoint %s.\n", r.Target.Short)
	case r.DryRun:
		b.WriteString("Dry run: nothing changed.\n")
	default:
		fmt.Fprintf(&b, "Restored checkpoint %s; the state before is checkpoint %s (agentx-hook checkpoint restore %s undoes this).\n",
			r.Target.Short, r.Before.Short, r.Before.Short)
	}
	return b.String()
}

// Warnings are what a take left out: each file that is not a regular one.
func (r *Result) Warnings() []string {
	var out []string
	for _, p := range r.Skipped {
		out = append(out, "not a regular file, left out: .agentx/"+p)
	}
	return out
}

// Warnings are the files compared as files only: one side does not parse.
func (d *Diff) Warnings() []string {
	var out []string
	for _, p := range d.Unreadable {
		out = append(out, ".agentx/"+p+" does not parse on one side; compared as a file only")
	}
	return out
}
