package artifact

import (
	"fmt"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// Entry is one artifact as `artifact list` and `artifact show` print it:
// the stored fields with the status shown (stale derived) and the stale
// dependencies.
type Entry struct {
	Issue      int        `json:"issue"`
	ID         string     `json:"id"`
	Workflow   string     `json:"workflow"`
	Step       string     `json:"step"`
	Agent      string     `json:"agent"`
	Path       string     `json:"path"`
	Blob       string     `json:"blob"`
	Commit     string     `json:"commit,omitempty"`
	Created    string     `json:"created"`
	Updated    string     `json:"updated"`
	Status     Status     `json:"status"`
	Stored     Status     `json:"storedStatus"`
	Reopened   bool       `json:"reopened,omitempty"`
	DependsOn  []DepState `json:"dependsOn"`
	StaleSince []Finding  `json:"stale"`
}

// DepState is one dependency with the upstream's state now.
type DepState struct {
	ID          string `json:"id"`
	Blob        string `json:"blob"`
	CurrentBlob string `json:"currentBlob,omitempty"`
	Status      Status `json:"status,omitempty"`
	Changed     bool   `json:"changed"`
}

// View is the entry of a in f.
func (f *File) View(a *Artifact) Entry {
	e := Entry{Issue: f.IssueNumber, ID: a.ID, Workflow: a.Workflow, Step: a.Step, Agent: a.Agent, Path: a.Path,
		Blob: a.Blob, Commit: a.Commit, Created: a.Created, Updated: a.Updated, Status: f.EffectiveStatus(a),
		Stored: a.Status, Reopened: a.Reopened, StaleSince: jsonfile.List(f.StaleDeps(a)), DependsOn: []DepState{}}
	if e.Stored == "" {
		e.Stored = Draft
	}
	for _, d := range a.DependsOn {
		ds := DepState{ID: d.ID, Blob: d.Blob}
		if up := f.Find(d.ID); up != nil {
			ds.CurrentBlob, ds.Status, ds.Changed = up.Blob, f.EffectiveStatus(up), up.Blob != d.Blob
		}
		e.DependsOn = append(e.DependsOn, ds)
	}
	return e
}

// ListDoc is `artifact list --json`.
type ListDoc struct {
	Artifacts []Entry `json:"artifacts"`
	jsonfile.Versioned
}

// Filter selects entries for `artifact list`.
type Filter struct {
	Issue     int
	Step      string
	StaleOnly bool
}

// List is the entries of files that pass the filter, in issue order.
func List(files []*File, flt Filter) []Entry {
	out := []Entry{}
	for _, f := range files {
		if flt.Issue != 0 && f.IssueNumber != flt.Issue {
			continue
		}
		for i := range f.Artifacts {
			a := &f.Artifacts[i]
			if flt.Step != "" && a.Step != flt.Step {
				continue
			}
			e := f.View(a)
			if flt.StaleOnly && e.Status != Stale {
				continue
			}
			out = append(out, e)
		}
	}
	return out
}

// ListText is the list as a table.
func ListText(es []Entry) string {
	if len(es) == 0 {
		return "No artifacts recorded (a commit that writes a workflow step's output records one; `agentx-hook artifact add` by hand).\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-14s %-6s %-14s %-16s %-10s %s\n", "ID", "ISSUE", "STEP", "AGENT", "STATUS", "PATH")
	for _, e := range es {
		fmt.Fprintf(&b, "%-14s #%-5d %-14s %-16s %-10s %s\n", e.ID, e.Issue, e.Step, e.Agent, e.Status, e.Path)
	}
	for _, e := range es {
		for _, f := range e.StaleSince {
			b.WriteString(f.String() + "\n")
		}
	}
	return b.String()
}

// ShowDoc is `artifact show --json`.
type ShowDoc struct {
	Artifact Entry `json:"artifact"`
	jsonfile.Versioned
}

// ShowText is an artifact's metadata and dependencies.
func ShowText(e Entry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  #%d  %s / %s  (%s)\n", e.ID, e.Issue, e.Workflow, e.Step, e.Agent)
	fmt.Fprintf(&b, "  path:    %s\n  blob:    %s\n", e.Path, e.Blob)
	if e.Commit != "" {
		fmt.Fprintf(&b, "  commit:  %s\n", e.Commit)
	}
	status := string(e.Status)
	if e.Status != e.Stored {
		status += " (stored: " + string(e.Stored) + ")"
	}
	if e.Reopened {
		status += ", reopened"
	}
	fmt.Fprintf(&b, "  status:  %s\n  created: %s\n  updated: %s\n", status, e.Created, e.Updated)
	if len(e.DependsOn) == 0 {
		b.WriteString("  depends on: nothing\n")
	}
	for _, d := range e.DependsOn {
		mark := "unchanged"
		if d.CurrentBlob == "" {
			mark = "no longer recorded"
		} else if d.Changed {
			mark = "CHANGED since (" + Short(d.Blob) + " -> " + Short(d.CurrentBlob) + ")"
		}
		fmt.Fprintf(&b, "  depends on: %s at %s, %s\n", d.ID, Short(d.Blob), mark)
	}
	for _, f := range e.StaleSince {
		b.WriteString("  " + f.String() + "\n")
	}
	return b.String()
}

// Line is one outcome as a command reports it.
func (o Outcome) Line(verb string) string {
	return fmt.Sprintf("%s %s (#%d %s, %s): %s\n", verb, o.ID, o.Issue, o.Step, o.Agent, o.Status)
}

// ChangeDoc is the --json document of add, approve, reject, ack, reopen.
type ChangeDoc struct {
	Artifacts []Outcome `json:"artifacts"`
	Acked     []Finding `json:"acked,omitempty"`
	Message   string    `json:"message"`
	jsonfile.Versioned
}
