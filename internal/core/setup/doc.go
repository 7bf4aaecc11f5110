package setup

import (
	"fmt"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/githooks"
	"github.com/agentx-dev/agentx/internal/core/hostsettings"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// Doc is `setup --json`.
type Doc struct {
	Check bool `json:"check"`
	// Error is set when --check found changes pending (exit 1).
	Error    *errcode.Body   `json:"error,omitempty"`
	DryRun   bool            `json:"dryRun"`
	Files    []File          `json:"files"`
	GitHooks []githooks.Step `json:"gitHooks"`
	// InPlace is set when nothing would change (--check's answer).
	InPlace bool     `json:"inPlace"`
	Notes   []string `json:"notes"`
	Remove  bool     `json:"remove"`
	Root    string   `json:"root"`
	jsonfile.Versioned
}

// Doc is what a run of o did in the workspace at root, as `setup --json`
// prints it, and its failure: with --check, changes pending (nil: none).
func (r *Result) Doc(o Options, root string) (*Doc, *errcode.Error) {
	pending := r.Pending()
	doc := &Doc{Check: o.Check, DryRun: o.DryRun, Files: r.Files, GitHooks: jsonfile.List(r.GitHooks),
		InPlace: pending == 0, Notes: jsonfile.List(r.Notes), Remove: o.Remove, Root: root}
	if !o.Check || pending == 0 {
		return doc, nil
	}
	s := "s"
	if pending == 1 {
		s = ""
	}
	what := "change"
	if o.Remove {
		what = "removal"
	}
	failure := errcode.New(errcode.ChangesPending, "%s --check: %d %s%s pending", o.Command(), pending, what, s).
		WithHint("`agentx-hook " + o.Command() + "` makes them")
	doc.Error = errcode.BodyOf(failure)
	return doc, failure
}

// Lines are what a run of o did, one line each, as `setup` prints them
// (a --dry-run's diffs whole); notes go to stderr.
func (r *Result) Lines(o Options) []string {
	var out []string
	for _, f := range r.Files {
		if o.DryRun && f.Diff != "" {
			out = append(out, f.Diff)
			continue
		}
		action := f.Action
		if o.Check && action != string(hostsettings.Unchanged) {
			action = "would be " + action
		}
		out = append(out, fmt.Sprintf("%-9s %s\n", action, f.Path))
	}
	for _, st := range r.GitHooks {
		if st.Changes() || st.Kind == githooks.Conflict || st.Kind == githooks.Managed {
			kind := string(st.Kind)
			if !o.Writes() && st.Changes() {
				kind = "would " + kind // "git hook post-commit: would create"
			}
			out = append(out, fmt.Sprintf("git hook %s: %s\n", st.Hook, kind))
		}
	}
	if o.Check && r.Pending() == 0 {
		if o.Remove {
			out = append(out, "nothing of agentx's to remove\n")
		} else {
			out = append(out, "everything is in place\n")
		}
	}
	return out
}
