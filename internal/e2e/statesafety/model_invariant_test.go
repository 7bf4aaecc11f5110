//go:build unix

// The model's invariant: nothing acknowledged is lost. What every place
// holds after each step (observe, after, ack), and after the final syncs of
// every work tree (final, checkFinal): every surviving item everywhere, ids
// unique, the user's work untouched.

package statesafety

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/statemerge"
)

// observe reads every place; one that cannot be read (a ref file a
// killed process left empty) is a finding, once, and holds nothing.
func (s *sequence) observe() map[string]*holdings {
	hs, problems, err := s.w.places()
	s.must(err)
	for _, p := range problems {
		if !s.reported[p] {
			s.reported[p] = true
			s.findf("after step %d %s", len(s.log), p)
		}
	}
	return hs
}

// after checks the conservation of what was acknowledged after step
// desc. A step of agentx in tree sut reads that tree's local files, its
// sync base and the state branch it is set to, and merges them as a
// union: whatever one of those three held before, one of them holds after
// (a SIGKILL in the middle included: the local files are written before
// the base moves, the branch only ever gets a descendant). A step of the
// user's (sut "") may destroy places: an item no place holds any more is
// gone with them, by the user's own act.
func (s *sequence) after(desc, sut string) {
	took := time.Since(s.stepStart)
	desc += fmt.Sprintf(" [%s]", took.Round(time.Millisecond))
	s.cost[stepKind(desc)] = append(s.cost[stepKind(desc)], took)
	s.log = append(s.log, desc)
	hs := s.observe()
	if s.trace {
		s.t.Logf("seed %d step %d: %s", s.seed, len(s.log), desc)
		for _, it := range s.items {
			s.t.Logf("    %s %q: %s", it.kind, it.text, strings.Join(where(hs, it), ", "))
		}
	}
	defer func() { s.stepStart = time.Now() }()
	var scope []string
	if sut != "" {
		scope = []string{"local " + sut, "base " + sut, "branch " + s.branchOf(sut)}
	}
	for _, it := range s.items {
		if it.gone != "" {
			continue
		}
		if sut != "" && heldBy(s.last, it, scope) && !heldBy(hs, it, scope) {
			s.findf("step %d (%s) lost %s from %s (before the step: %s; after: %s)", len(s.log), desc, it,
				strings.Join(scope, ", "), strings.Join(where(s.last, it), ", "), strings.Join(where(hs, it), ", "))
			it.gone = "lost"
			continue
		}
		if len(where(hs, it)) > 0 {
			continue
		}
		was := strings.Join(where(s.last, it), ", ")
		if sut != "" {
			s.findf("step %d (%s) lost %s: no place holds it any more (before the step: %s)", len(s.log), desc, it, was)
			it.gone = "lost"
			continue
		}
		it.gone = fmt.Sprintf("destroyed by step %d (%s), which took its last places (%s)", len(s.log), desc, was)
	}
	s.last = hs
}

// heldBy says whether one of the places named holds it.
func heldBy(hs map[string]*holdings, it *item, places []string) bool {
	for _, p := range places {
		if h, ok := hs[p]; ok && h.holds(it) {
			return true
		}
	}
	return false
}

// ack records an acknowledged item and checks it is where it was made.
func (s *sequence) ack(it *item) {
	it.op = len(s.log)
	s.items = append(s.items, it)
	if !s.last["local "+it.tree].holds(it) {
		s.findf("step %d acknowledged %s but %s does not hold it", it.op, it, it.tree)
	}
}

// final restores one state_branch everywhere, moves the files that do not
// parse aside (the documented repair), syncs every work tree round-robin
// twice and checks the invariant.
func (s *sequence) final() {
	for _, n := range treeNames {
		if s.branch[n] != "" {
			s.must(s.w.setStateBranch(s.w.tree(n), ""))
			s.branch[n] = ""
		}
	}
	var aside []string
	for _, n := range treeNames {
		files, err := localFiles(s.w.tree(n))
		s.must(err)
		for p, data := range files {
			if statemerge.Valid(p, data) == nil {
				continue
			}
			dst := filepath.Join(s.w.dir, "aside", n, filepath.FromSlash(p))
			s.must(os.MkdirAll(filepath.Dir(dst), 0o755))
			s.must(os.Rename(filepath.Join(s.w.tree(n), ".agentx", filepath.FromSlash(p)), dst))
			aside = append(aside, n+":"+p)
		}
	}
	sort.Strings(aside)
	s.after(fmt.Sprintf("final: state_branch back to %s everywhere; moved aside what does not parse: %v", stateBranch, aside), "")
	// What only the other branch holds is on a branch nobody syncs now.
	for _, it := range s.items {
		if it.gone != "" {
			continue
		}
		if places := where(s.last, it); len(places) == 1 && places[0] == "branch "+altBranch {
			it.gone = "only on " + altBranch + ", which no work tree syncs any more"
		}
	}
	for round := 1; round <= 2; round++ {
		for _, n := range treeNames {
			res, note := s.syncIn(n)
			s.after(fmt.Sprintf("final round %d: %s: sync -> exit %d%s", round, n, res.code, note), n)
			switch paths := remoteCorrupt(res); {
			case res.code == 0:
			case paths == nil:
				s.findf("final round %d: sync in %s failed: %s", round, n, res)
			case round == 2:
				s.unreplaced(n, paths)
			}
		}
	}
	s.checkFinal()
}

// remoteCorrupt lists the files a failed sync reported as unparsable on
// the branch; nil when it failed for anything else. The first final sync
// after a junk commit fails so, having replaced the junk with the merge of
// the copies that parse.
func remoteCorrupt(res result) []string {
	var d syncDoc
	if json.Unmarshal([]byte(res.stdout), &d) != nil || d.Error == nil || d.Error.Code != "CORRUPT_STATE" || d.Sync == nil {
		return nil
	}
	var paths []string
	for _, c := range d.Sync.Corrupt {
		if c.Side != "remote" {
			return nil
		}
		paths = append(paths, c.Path)
	}
	return paths
}

// unreplaced judges a branch file still unparsable at the second final
// sync: a finding when some work tree holds a copy that parses (the sync
// should have replaced the junk with it); otherwise no copy that parses
// exists anywhere, nothing can replace the junk, and every sync of every
// clone keeps failing until a person repairs the branch by hand (noted).
func (s *sequence) unreplaced(tree string, paths []string) {
	for _, p := range paths {
		var valid []string
		for _, n := range treeNames {
			if data, ok := s.last["local "+n].files[p]; ok && statemerge.Valid(p, data) == nil {
				valid = append(valid, n)
			}
		}
		if len(valid) > 0 {
			s.findf("the second final sync in %s still finds %s unparsable on the branch although %s hold a copy that parses", tree, p, strings.Join(valid, ", "))
			continue
		}
		s.notef("%s on the branch does not parse and no work tree holds a copy that does: every sync fails until a person repairs the branch", p)
	}
}

// checkFinal is the invariant after the final syncs: every surviving item
// in every work tree and on the state branch (read with git show), ids
// unique, and the user's work untouched.
func (s *sequence) checkFinal() {
	branch := s.branchFiles()
	places := map[string]*holdings{"the state branch (git show)": hold(branch)}
	for _, n := range treeNames {
		places["local "+n] = s.last["local "+n]
	}
	names := make([]string, 0, len(places))
	for n := range places {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, it := range s.items {
		if it.gone != "" {
			continue
		}
		var missing []string
		for _, n := range names {
			if !places[n].holds(it) {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			s.findf("after the final syncs %s is missing from %s (held by: %s)", it, strings.Join(missing, ", "), strings.Join(where(s.last, it), ", "))
		}
	}
	for _, n := range names {
		for _, d := range places[n].dupIDs {
			s.findf("after the final syncs %s: %s", n, d)
		}
	}
	for _, n := range treeNames {
		st, err := userState(s.w.tree(n))
		s.must(err)
		if st != s.user[n] {
			s.findf("the user's work in %s changed:\n--- before\n%s--- after\n%s", n, s.user[n], st)
		}
	}
}

// branchFiles reads the state branch's state files with git show.
func (s *sequence) branchFiles() map[string][]byte {
	if tip, _ := s.remoteGit(nil, "rev-parse", "--verify", "-q", "refs/heads/"+stateBranch); tip == "" {
		return nil // no branch: it holds nothing
	}
	names, err := s.remoteGit(nil, "ls-tree", "-r", "--name-only", "refs/heads/"+stateBranch)
	if err != nil {
		s.findf("the state branch cannot be read after the final syncs: %v", err)
		return nil
	}
	out := map[string][]byte{}
	for _, n := range strings.Fields(names) {
		if !isStateFile(n) {
			continue
		}
		res, err := run(s.w.remote, "git", "show", "refs/heads/"+stateBranch+":"+n)
		s.must(err)
		out[n] = []byte(res.stdout)
	}
	return out
}
