//go:build unix

// The model's operations: one method per kind of step a team or its user
// takes (clarify request, answer and resolve; memory add, compact and remove;
// sync, hook start and finish, a killed sync; git clean, a re-added worktree,
// a deleted or force-pushed branch, a state_branch toggle, junk written
// locally or committed to the branch), each ending with s.after.

package statesafety

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// hook runs agentx-hook in tree and waits for what it left running in
// the background (a memory index rebuild) to end.
func (s *sequence) hook(tree string, args ...string) result {
	res, err := hook(s.w.tree(tree), args...)
	s.must(err)
	s.must(quiesce(s.w.dir))
	return res
}

func (s *sequence) request() {
	tree, issue := s.anyTree(), 1+s.rng.IntN(2)
	q := s.uniq("q")
	res := s.hook(tree, "clarify", "request", "--issue", strconv.Itoa(issue), "--from", "engineer",
		"--to", "architect", "--topic", "t", "--question", q)
	id := strings.TrimSpace(res.stdout)
	s.after(fmt.Sprintf("%s: clarify request --issue %d --question %s -> exit %d %s", tree, issue, q, res.code, id), tree)
	if res.code == 0 && strings.HasPrefix(id, "CLR-") {
		s.ack(&item{kind: "record", text: q, id: id, issue: issue, tree: tree})
	}
}

// ledgerRecord is a record of a local ledger the model made.
type ledgerRecord struct {
	id, status string
	issue      int
}

func (s *sequence) localRecords(tree string, statuses ...string) []ledgerRecord {
	var out []ledgerRecord
	for issue := 1; issue <= 2; issue++ {
		data, err := os.ReadFile(filepath.Join(s.w.tree(tree), ".agentx", "state", "clarifications", fmt.Sprintf("issue-%d.json", issue)))
		if err != nil {
			continue
		}
		var d ledgerDoc
		if json.Unmarshal(data, &d) != nil {
			continue
		}
		for _, r := range d.Clarifications {
			for _, st := range statuses {
				if r.Status == st {
					out = append(out, ledgerRecord{id: r.ID, status: r.Status, issue: issue})
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

func (s *sequence) answer() {
	s.settle("answer", "pending", "stale")
}

func (s *sequence) resolve() {
	s.settle("resolve", "pending", "answered", "stale", "escalated")
}

// settle answers or resolves a record of a random tree's ledgers.
func (s *sequence) settle(verb string, statuses ...string) {
	tree := s.anyTree()
	recs := s.localRecords(tree, statuses...)
	if len(recs) == 0 {
		s.request()
		return
	}
	r := recs[s.rng.IntN(len(recs))]
	body := s.uniq(verb[:1])
	res := s.hook(tree, "clarify", verb, r.id, "--issue", strconv.Itoa(r.issue), "--body", body)
	s.after(fmt.Sprintf("%s: clarify %s %s --body %s -> exit %d", tree, verb, r.id, body, res.code), tree)
	if res.code == 0 {
		s.ack(&item{kind: "entry", text: body, issue: r.issue, tree: tree})
	}
}

func (s *sequence) memoryAdd() {
	tree, issue := s.anyTree(), 1+s.rng.IntN(2)
	// Shared words, so that compaction merges them.
	text := s.uniq("m") + " decided the cache keys alpha beta"
	res := s.hook(tree, "memory", "add", "--agent", "engineer", "--issue", strconv.Itoa(issue), "--category", "decision", text)
	id := strings.TrimSpace(res.stdout)
	s.after(fmt.Sprintf("%s: memory add --issue %d %q -> exit %d %s", tree, issue, text, res.code, id), tree)
	if res.code == 0 && strings.HasPrefix(id, "obs-") {
		s.ack(&item{kind: "observation", text: text, id: id, issue: issue, tree: tree})
	}
}

func (s *sequence) compact() {
	tree, issue := s.anyTree(), 1+s.rng.IntN(2)
	res := s.hook(tree, "memory", "compact", "--issue", strconv.Itoa(issue))
	s.after(fmt.Sprintf("%s: memory compact --issue %d -> exit %d", tree, issue, res.code), tree)
}

func (s *sequence) remove() {
	tree := s.anyTree()
	h := s.last["local "+tree]
	id, ok := pickKey(s, h.obsIDs)
	if !ok {
		s.memoryAdd()
		return
	}
	res := s.hook(tree, "memory", "remove", id)
	if res.code == 0 {
		// A removed summary takes its members' text with it: they may
		// survive in an archive, or not.
		content := h.obsByID[id]
		for _, it := range s.items {
			if it.kind == "observation" && it.gone == "" && (it.id == id || strings.Contains(content, it.text)) {
				it.gone = fmt.Sprintf("removed by step %d", len(s.log)+1)
			}
		}
	}
	s.after(fmt.Sprintf("%s: memory remove %s -> exit %d", tree, id, res.code), tree)
}

// syncDoc is what the model reads of `sync --json`.
type syncDoc struct {
	Merge struct {
		Renamed []struct {
			Issue    int
			From, To string
		} `json:"renamed"`
	} `json:"merge"`
	Sync *struct {
		Corrupt []struct {
			Path, Side string
		} `json:"corrupt"`
		Diverged *struct {
			Reason string `json:"reason"`
		} `json:"diverged"`
	} `json:"sync"`
	Error *struct {
		Code, Message string
	} `json:"error"`
}

func (s *sequence) syncIn(tree string) (result, string) {
	res := s.hook(tree, "sync", "--json")
	var d syncDoc
	note := ""
	if json.Unmarshal([]byte(res.stdout), &d) == nil {
		for _, r := range d.Merge.Renamed {
			note += fmt.Sprintf(" renamed %s->%s", r.From, r.To)
		}
		if d.Sync != nil {
			if d.Sync.Diverged != nil {
				note += " diverged:" + d.Sync.Diverged.Reason
			}
			for _, c := range d.Sync.Corrupt {
				note += fmt.Sprintf(" corrupt:%s:%s", c.Side, c.Path)
			}
		}
	}
	if res.code != 0 && note == "" {
		note = " " + firstLine(res.stderr)
	}
	return res, note
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func (s *sequence) sync() {
	tree := s.anyTree()
	res, note := s.syncIn(tree)
	s.after(fmt.Sprintf("%s: sync -> exit %d%s", tree, res.code, note), tree)
}

func (s *sequence) hookStart() { s.hookRun("start") }

func (s *sequence) hookFinish() { s.hookRun("finish") }

func (s *sequence) hookRun(verb string) {
	tree, issue := s.anyTree(), 1+s.rng.IntN(2)
	res := s.hook(tree, "hook", verb, "--agent", "engineer", "--issue", strconv.Itoa(issue))
	warn := ""
	if w := firstLine(res.stderr); w != "" {
		warn = " (" + w + ")"
	}
	s.after(fmt.Sprintf("%s: hook %s --agent engineer --issue %d -> exit %d%s", tree, verb, issue, res.code, warn), tree)
}

func (s *sequence) killSync() {
	tree := s.anyTree()
	delay := time.Duration(s.rng.IntN(250)) * time.Millisecond
	finished, err := killedSync(s.w.dir, s.w.tree(tree), delay)
	s.must(err)
	what := "killed"
	if finished {
		what = "finished before the kill"
	}
	s.after(fmt.Sprintf("%s: sync, SIGKILL after %s (%s)", tree, delay, what), tree)
}

func (s *sequence) git(tree string, args ...string) result {
	res, err := run(s.w.tree(tree), "git", args...)
	s.must(err)
	return res
}

func (s *sequence) clean() {
	tree := s.anyTree()
	res := s.git(tree, "clean", "-xfdq")
	s.after(fmt.Sprintf("%s: git clean -xfd -> exit %d", tree, res.code), "")
}

func (s *sequence) readdWorktree() {
	r1 := s.git("a", "worktree", "remove", "--force", "../w")
	r2 := s.git("a", "worktree", "add", "-q", "../w", "w")
	if r1.code != 0 || r2.code != 0 {
		s.must(fmt.Errorf("worktree remove/add: %s / %s", r1, r2))
	}
	s.branch["w"] = ""
	st, err := userState(s.w.tree("w"))
	s.must(err)
	s.user["w"] = st
	s.after("a: git worktree remove --force ../w; git worktree add ../w w", "")
}

func (s *sequence) branchOf(tree string) string {
	if b := s.branch[tree]; b != "" {
		return b
	}
	return stateBranch
}

func (s *sequence) deleteBranch() {
	tree := s.anyTree()
	b := s.branchOf(tree)
	res := s.git(tree, "push", "-q", "origin", "--delete", b)
	desc := fmt.Sprintf("%s: git push origin --delete %s -> exit %d", tree, b, res.code)
	if s.rng.IntN(2) == 0 {
		other := s.anyTree()
		res := s.git(other, "fetch", "-q", "--prune", "origin")
		desc += fmt.Sprintf("; %s: git fetch --prune origin -> exit %d", other, res.code)
	}
	s.after(desc, "")
}

// remoteGit runs git on the bare remote.
func (s *sequence) remoteGit(env []string, args ...string) (string, error) {
	return gitEnvIn(s.w.remote, env, args...)
}

func (s *sequence) forcePush() {
	b := s.pick([]string{stateBranch, altBranch})
	out, err := s.remoteGit(nil, "rev-list", "--first-parent", "refs/heads/"+b, "--")
	if err != nil || out == "" {
		s.after(fmt.Sprintf("force-push %s to an older commit: no such branch", b), "")
		return
	}
	commits := strings.Fields(out)
	if len(commits) < 2 {
		s.after(fmt.Sprintf("force-push %s to an older commit: it has one commit", b), "")
		return
	}
	old := commits[1+s.rng.IntN(len(commits)-1)]
	_, err = s.remoteGit(nil, "update-ref", "refs/heads/"+b, old)
	s.must(err)
	s.after(fmt.Sprintf("force-push %s to %s (%d commits back)", b, old[:10], indexOf(commits, old)), "")
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

func (s *sequence) toggleBranch() {
	tree := s.anyTree()
	to := altBranch
	if s.branch[tree] != "" {
		to = ""
	}
	s.must(s.w.setStateBranch(s.w.tree(tree), to))
	s.branch[tree] = to
	s.after(fmt.Sprintf("%s: [github] state_branch = %q", tree, s.branchOf(tree)), "")
}

func (s *sequence) corruptLocal() {
	tree := s.anyTree()
	files, err := localFiles(s.w.tree(tree))
	s.must(err)
	p, ok := pickKey(s, files)
	if !ok {
		s.memoryAdd()
		return
	}
	s.must(os.WriteFile(filepath.Join(s.w.tree(tree), ".agentx", filepath.FromSlash(p)), []byte("{\"clarifications\": [ junk\n"), 0o644))
	s.after(fmt.Sprintf("%s: junk written over .agentx/%s", tree, p), "")
}

// junkOnBranch commits a file that does not parse to a state branch with
// plain git, as a person would from a scratch worktree: a temporary index
// on the remote itself, which is the same commit without the checkout.
func (s *sequence) junkOnBranch() {
	b := s.pick([]string{stateBranch, altBranch})
	tip, err := s.remoteGit(nil, "rev-parse", "--verify", "-q", "refs/heads/"+b)
	if err != nil || tip == "" {
		s.after(fmt.Sprintf("junk committed to %s: no such branch", b), "")
		return
	}
	names, err := s.remoteGit(nil, "ls-tree", "-r", "--name-only", tip)
	s.must(err)
	var state []string
	for _, n := range strings.Fields(names) {
		if isStateFile(n) {
			state = append(state, n)
		}
	}
	p := "state/clarifications/issue-1.json"
	if len(state) > 0 {
		p = s.pick(state)
	}
	s.must(s.w.commitJunk(b, p))
	s.after(fmt.Sprintf("junk committed over %s on %s", p, b), "")
}
