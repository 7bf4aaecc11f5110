package audit

import (
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/shorten"
)

// Listing is what `agentx-hook audit` lists: the entries a filter
// selects from the local trail or from every trail of the state branch,
// with how much the chains they were read from can be believed.
type Listing struct {
	Entries []TrailEntry `json:"entries"`
	// Problems counts what is wrong with the trails read (their chains
	// checked as verify does): the entries may not be what happened.
	Problems int `json:"problems"`
	// Ref and Commit name the state branch read (empty for the local
	// trail).
	Ref    string `json:"ref,omitempty"`
	Commit string `json:"commit,omitempty"`
	// RenamedFrom is the first id of a record a merge renumbered: lines
	// naming it before the renumbering are listed too (FollowRename).
	RenamedFrom string `json:"renamedFrom,omitempty"`
}

// LocalListing reads the history of the trail in dir that f selects, and
// checks its chain.
func LocalListing(dir string, f Filter) (*Listing, error) {
	entries, findings, err := CheckedHistory(dir, f)
	if err != nil {
		return nil, errcode.Wrap(errcode.CorruptState, err, "read the audit trail")
	}
	l := &Listing{Entries: []TrailEntry{}, Problems: Errors(findings)}
	for _, e := range entries {
		l.Entries = append(l.Entries, TrailEntry{Entry: e})
	}
	return l, nil
}

// BranchListing reads the history of every trail on the state branch at
// ref (tree, the files of commit) that f selects, and checks their chains.
func BranchListing(tree fs.FS, ref, commit string, f Filter) (*Listing, error) {
	entries, findings, err := CheckedBranchHistory(tree, f)
	if err != nil {
		ce := errcode.Wrap(errcode.CorruptState, err, "read the audit trails of the state branch %s", ref)
		ce.Hint = "`agentx-hook verify --state-branch` says what is wrong with them"
		return nil, ce
	}
	return &Listing{Entries: entries, Problems: Errors(findings), Ref: ref, Commit: commit}, nil
}

// Errors counts the findings that are errors (a torn last line is not).
func Errors(findings []Finding) int {
	n := 0
	for _, f := range findings {
		if !f.Info {
			n++
		}
	}
	return n
}

// Warning says the listing may not be what happened, and where to look
// ("" when its chains are whole).
func (l *Listing) Warning() string {
	if l.Problems == 0 {
		return ""
	}
	s := "s"
	if l.Problems == 1 {
		s = ""
	}
	if l.Ref != "" {
		return fmt.Sprintf("the audit trails of %s have %d problem%s (a line edited, removed or out of order): what is listed may not be what happened; `agentx-hook verify --state-branch` says where",
			l.Ref, l.Problems, s)
	}
	return fmt.Sprintf("the audit trail has %d problem%s (a line edited, removed or out of order): what is listed may not be what happened; `agentx-hook verify` says where",
		l.Problems, s)
}

// FollowRename adds to the entries (the lines naming id) the lines that
// named the record under its first id, old (aliased: the lines naming
// old): in the trail that renamed it, up to the line where the new id
// first appears. Lines of that trail after it, and of other trails, name
// the record that kept old. It returns a note saying so ("" when no line
// was added).
func (l *Listing) FollowRename(aliased []TrailEntry, id, old string) string {
	if len(l.Entries) == 0 {
		return ""
	}
	first := l.Entries[0]
	var out []TrailEntry
	for _, e := range aliased {
		if e.Trail == first.Trail && e.Time <= first.Time && !containsEntry(l.Entries, e) {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return ""
	}
	out = append(out, l.Entries...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time < out[j].Time })
	l.Entries, l.RenamedFrom = out, old
	return fmt.Sprintf("%s was %s until a merge renumbered it (%s): the %d lines before name it %s",
		id, old, first.Time, len(out), old)
}

func containsEntry(list []TrailEntry, e TrailEntry) bool {
	for _, x := range list {
		if x.Trail == e.Trail && x.Time == e.Time && x.Op == e.Op && x.Actor == e.Actor {
			return true
		}
	}
	return false
}

// The table's columns stay narrow whatever one entry holds: a sync that
// touched 200 records would otherwise pad every row to its id list (the
// full list is in --json and `audit --id`).
const (
	maxIDsShown   = 2
	maxActorShown = 24
)

// Table is the listing as `audit` prints it: one row per entry, with a
// TRAIL column for the state branch's trails.
func (l *Listing) Table() string {
	if len(l.Entries) == 0 {
		return "No audit entries.\n"
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 2, 4, 2, ' ', 0)
	trail := func(string) string { return "" }
	if l.Ref != "" {
		trail = func(s string) string { return s + "\t" }
		fmt.Fprint(tw, "TRAIL\t")
	}
	fmt.Fprintln(tw, "TIME\tACTOR\tOPERATION\tISSUE\tIDS\tDETAIL")
	for _, e := range l.Entries {
		issue := "-"
		if e.Issue != 0 {
			issue = "#" + strconv.Itoa(e.Issue)
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%s\t%s\n", trail(e.Trail), e.Time, shorten.Runes(e.Actor, maxActorShown), e.Op, issue, idsShown(e.IDs, e.MoreIDs), e.Detail)
	}
	_ = tw.Flush() // a strings.Builder does not fail
	return b.String()
}

// idsShown is the first ids of an entry and how many more there are.
func idsShown(ids []string, more int) string {
	if len(ids) > maxIDsShown {
		more += len(ids) - maxIDsShown
		ids = ids[:maxIDsShown]
	}
	s := strings.Join(ids, ",")
	if more > 0 {
		s += fmt.Sprintf(" +%d", more)
	}
	return s
}

// Actor is who runs a command that names no agent, from the environment
// getenv reads: $AGENTX_AGENT, else the login name ($USER, $USERNAME),
// else "cli".
func Actor(getenv func(string) string) string {
	for _, v := range []string{"AGENTX_AGENT", "USER", "USERNAME"} {
		if s := strings.TrimSpace(getenv(v)); s != "" {
			return s
		}
	}
	return "cli"
}

// IsID reports whether id may be asked about (`audit --id`): a
// clarification or observation id (old tools' ids too), never a path.
// Checked by hand, not a regexp: compiling one at start cost every
// process 0.3 ms and 1,700 allocations for a flag few commands take.
func IsID(id string) bool {
	if id == "" || len(id) > 128 || strings.Contains(id, "..") {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '_' && c != '.' && c != ':' && c != '-') {
			return false
		}
	}
	return true
}
