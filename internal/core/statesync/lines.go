package statesync

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/shorten"
	"github.com/agentx-dev/agentx/internal/core/statebranch"
	"github.com/agentx-dev/agentx/internal/core/statemerge"
)

// Summary is the one line a person reads after a sync.
func Summary(res *statebranch.Result) string {
	var parts []string
	switch {
	case res.Fetches == 0:
		parts = append(parts, "not fetched")
	case !res.RemoteExists:
		parts = append(parts, fmt.Sprintf("fetched (%s has no %s yet)", res.Remote, res.Branch))
	default:
		parts = append(parts, "fetched")
	}
	if len(res.Seeded) > 0 {
		parts = append(parts, fmt.Sprintf("seeded %d files", len(res.Seeded)))
	}
	parts = append(parts, fmt.Sprintf("merged %d files", len(res.Merged)), fmt.Sprintf("updated %d local files", len(res.Written)))
	if n := len(res.Restored); n > 0 {
		parts = append(parts, fmt.Sprintf("restored %d missing local files from the branch", n))
	}
	if n := len(res.Corrupt); n > 0 {
		parts = append(parts, fmt.Sprintf("%d do not parse", n))
	}
	if len(res.Conflicts) > 0 {
		parts = append(parts, fmt.Sprintf("%d not merged", len(res.Conflicts)))
	}
	switch {
	case res.Pushed && res.Created:
		parts = append(parts, fmt.Sprintf("created %s at %s and pushed", res.Branch, shorten.Runes(res.Commit, 10)))
	case res.Pushed:
		parts = append(parts, fmt.Sprintf("committed %s and pushed", shorten.Runes(res.Commit, 10)))
	default:
		parts = append(parts, "nothing to push")
	}
	if res.Retries > 0 {
		parts = append(parts, fmt.Sprintf("after %d lost push races", res.Retries))
	}
	return "sync: " + strings.Join(parts, ", ")
}

// RenameLine tells the agent holding a renumbered id its new one.
func RenameLine(r statemerge.Rename) string {
	return fmt.Sprintf("renumbered %s to %s on issue %d: another clone had allocated the id first; use %s from now on (the record keeps renamedFrom, and `agentx-hook audit --id %s` follows it)",
		r.From, r.To, r.Issue, r.To, r.To)
}

// DivergenceLine says, once, that the remote history was not the one
// this clone synchronised with, and what the union kept.
func DivergenceLine(res *statebranch.Result) string {
	d := res.Diverged
	kept := "nothing was missing from it"
	if n := len(d.Kept); n > 0 {
		kept = fmt.Sprintf("pushed back %d files it lacked or held less of: %s", n, strings.Join(FirstN(d.Kept, 5), ", "))
		if n > 5 {
			kept += fmt.Sprintf(" and %d more (--json lists them)", n-5)
		}
	}
	switch d.Reason {
	case "gone":
		return fmt.Sprintf("sync: %s has no %s although this clone synchronised with it (deleted, or a new remote or state_branch): nothing was removed here; %s",
			res.Remote, res.Branch, kept)
	default:
		return fmt.Sprintf("sync: %s/%s was rewritten (its tip %s does not descend from the last sync %s: a force-push, a recreated or renamed branch, or another remote): merged as a union, nothing removed; %s",
			res.Remote, res.Branch, shorten.Runes(d.Tip, 10), shorten.Runes(d.Base, 10), kept)
	}
}

// FirstN is at most the first n of list.
func FirstN(list []string, n int) []string {
	if len(list) > n {
		return list[:n]
	}
	return list
}

// CorruptLine names a state file that does not parse and what was kept.
func CorruptLine(c statebranch.Corrupt) string {
	if c.Side == "local" {
		return fmt.Sprintf("%s does not parse here: kept as it is and not pushed; the branch keeps its copy (%s). Repair it, or move it aside and sync again to restore the branch's copy",
			c.Path, c.Reason)
	}
	return fmt.Sprintf("%s does not parse on the state branch (commit %s): the local copy was kept and the branch's replaced with the merge of the copies that parse (%s)",
		c.Path, shorten.Runes(c.Commit, 10), c.Reason)
}

// CorruptFailure is the error a sync that met unparsable files ends with,
// after everything else was synchronised; nil when it met none.
func CorruptFailure(res *statebranch.Result) *errcode.Error {
	if res == nil || len(res.Corrupt) == 0 {
		return nil
	}
	paths := make([]string, len(res.Corrupt))
	for i, c := range res.Corrupt {
		paths[i] = c.Side + " " + c.Path
	}
	return errcode.New(errcode.CorruptState, "%d state files do not parse: %s; nothing unparsable was pushed or copied over a valid file",
		len(res.Corrupt), strings.Join(paths, ", ")).
		WithHint("repair the local file or move it aside (the next sync restores the branch's copy); `agentx-hook verify` shows where it breaks")
}

// MemoryIssues lists the issues of the memory issue files among lists of
// paths relative to .agentx/.
func MemoryIssues(lists ...[]string) []int {
	var out []int
	for _, list := range lists {
		for _, p := range list {
			name, ok := strings.CutPrefix(p, "memory/")
			if !ok {
				continue
			}
			if n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, "issue-"), ".json")); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// LedgersWritten reports whether a sync wrote a clarification ledger: the
// paths a delivery hook must hear of.
func LedgersWritten(lists ...[]string) bool {
	for _, list := range lists {
		for _, p := range list {
			if strings.HasPrefix(p, "state/clarifications/issue-") {
				return true
			}
		}
	}
	return false
}

// firstLine is s up to its first newline (shorten.Line would fold the
// rest in; a git error's first line is the one that says what failed).
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
