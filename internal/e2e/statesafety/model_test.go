//go:build unix

package statesafety

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/statemerge"
)

// Defaults of the model-based test. A developer's `go test ./...` runs
// seeds 1-8 (about 5 CPU-seconds; 24 took 15, a quarter of the whole
// suite's CPU, issue 37); CI runs seeds 1-200 (AGENTX_MODEL_SEQS=200 in
// .ci/run) and, in its race step, which sets no count, seeds 1-24 as
// before (raceSeqs); a longer run sets more (docs/PERFORMANCE.md);
// AGENTX_MODEL_SEED replays a sequence a failure named (with
// AGENTX_MODEL_SEQS=1), or is "random"; AGENTX_MODEL_WORKERS sequences
// run at once (default: twice the cores, since much of a step is spent
// waiting for git).
const (
	defaultSeqs = 8
	// raceSeqs is the default of a race-built run: the binary under test
	// is built without race, so the detector costs only the harness's own
	// goroutines, and CI's race step keeps the 24 it always ran.
	raceSeqs = 24
	// shortSeqs is the default under -short.
	shortSeqs   = 4
	defaultSeed = 1
)

func envInt(name string, def int64) int64 {
	// Named to go test's cache from inside the test (TestMain's reads come
	// before its log starts): a run with another AGENTX_MODEL_SEQS is not
	// answered from the cache. The value itself was taken, and the
	// variable unset, by TestMain (modelEnv).
	_ = os.Getenv(name)
	v := modelEnv[name]
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		panic(fmt.Sprintf("%s=%q: %v", name, v, err))
	}
	return n
}

// TestModelSequences drives the world with random sequences of team
// operations and checks, after every step and after a final sync of every
// work tree, that nothing acknowledged was lost (see the package doc).
func TestModelSequences(t *testing.T) {
	// Beside the scenarios, not before them: both mostly wait for git
	// and agentx-hook processes, and in sequence the package was the
	// suite's tail (issue 37).
	t.Parallel()
	statSources(t)
	def := int64(defaultSeqs)
	switch {
	case testing.Short():
		def = shortSeqs
	case raceBuilt:
		def = raceSeqs
	}
	seqs := envInt("AGENTX_MODEL_SEQS", def)
	if modelEnv["AGENTX_MODEL_SEED"] == "random" {
		modelEnv["AGENTX_MODEL_SEED"] = strconv.FormatInt(time.Now().UnixNano()%1e9, 10)
	}
	first := envInt("AGENTX_MODEL_SEED", defaultSeed)
	workers := int(envInt("AGENTX_MODEL_WORKERS", int64(2*runtime.GOMAXPROCS(0))))
	start := time.Now()
	var (
		mu     sync.Mutex
		failed []string
		ops    int
		cost   = map[string][]time.Duration{}
		notes  []string
	)
	seeds := make(chan int64)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for seed := range seeds {
				s := newSequence(t, seed)
				s.run()
				mu.Lock()
				ops += len(s.log)
				for k, ds := range s.cost {
					cost[k] = append(cost[k], ds...)
				}
				if len(s.findings) > 0 {
					failed = append(failed, s.report())
				}
				for _, n := range s.notes {
					notes = append(notes, fmt.Sprintf("seed %d: %s", s.seed, n))
				}
				mu.Unlock()
			}
		})
	}
	for i := range seqs {
		seeds <- first + i
	}
	close(seeds)
	wg.Wait()
	t.Logf("%d sequences (%d steps, seeds %d to %d) in %s with %d at once", seqs, ops, first, first+seqs-1, time.Since(start).Round(time.Millisecond), workers)
	var kinds []string
	for k := range cost {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		var sum, top time.Duration
		for _, d := range cost[k] {
			sum += d
			top = max(top, d)
		}
		t.Logf("  %-28s %5d steps, mean %7s, max %7s", k, len(cost[k]), (sum / time.Duration(len(cost[k]))).Round(time.Millisecond), top.Round(time.Millisecond))
	}
	sort.Strings(notes)
	for _, n := range notes {
		t.Log("note: " + n)
	}
	sort.Strings(failed)
	for _, f := range failed {
		t.Error(f)
	}
}

// sequence is one seeded run of the model.
type sequence struct {
	t        testing.TB
	seed     int64
	rng      *rand.Rand
	w        *world
	log      []string // the steps, as run
	items    []*item
	findings []string
	notes    []string
	reported map[string]bool // unreadable places already reported
	// branch is each work tree's [github] state_branch ("" the default).
	branch map[string]string
	user   map[string]string // userState at the start
	last   map[string]*holdings
	n      int
	cost   map[string][]time.Duration // step durations by kind
	// trace logs where each item is after each step (AGENTX_MODEL_TRACE=1).
	trace     bool
	stepStart time.Time
}

func newSequence(t testing.TB, seed int64) *sequence {
	return &sequence{t: t, seed: seed, rng: rand.New(rand.NewPCG(uint64(seed), 0x5eed)),
		branch: map[string]string{}, user: map[string]string{}, reported: map[string]bool{}, cost: map[string][]time.Duration{}, trace: modelEnv["AGENTX_MODEL_TRACE"] != "", stepStart: time.Now()}
}

// report is a failed sequence's seed, steps and findings.
func (s *sequence) report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d (replay: AGENTX_MODEL_SEED=%d AGENTX_MODEL_SEQS=1 go test -run TestModelSequences ./internal/e2e/statesafety)\nsteps:\n", s.seed, s.seed)
	for i, l := range s.log {
		fmt.Fprintf(&b, "  %2d. %s\n", i+1, l)
	}
	b.WriteString("findings:\n")
	for _, f := range s.findings {
		fmt.Fprintf(&b, "  - %s\n", f)
	}
	return b.String()
}

// notef records what is worth knowing but no defect of the invariant,
// once per text.
func (s *sequence) notef(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	for _, m := range s.notes {
		if m == n {
			return
		}
	}
	s.notes = append(s.notes, n)
}

func (s *sequence) findf(format string, args ...any) {
	s.findings = append(s.findings, fmt.Sprintf(format, args...))
}

// setupError ends the sequence on a failure of the harness itself.
type setupError struct{ err error }

func (s *sequence) must(err error) {
	if err != nil {
		panic(setupError{err})
	}
}

func (s *sequence) run() {
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(setupError)
			if !ok {
				panic(r)
			}
			s.findf("harness: %v", se.err)
		}
	}()
	t0 := time.Now()
	w, err := makeWorld(s.t.TempDir())
	s.must(err)
	s.w = w
	t1 := time.Now()
	for _, n := range treeNames {
		st, err := userState(s.w.tree(n))
		s.must(err)
		s.user[n] = st
	}
	t2 := time.Now()
	s.last = s.observe()
	s.cost["setup: copy the world"] = []time.Duration{t1.Sub(t0)}
	s.cost["setup: the user's state"] = []time.Duration{t2.Sub(t1)}
	s.cost["setup: read every place"] = []time.Duration{time.Since(t2)}
	s.stepStart = time.Now()
	steps := 10 + s.rng.IntN(11)
	for range steps {
		s.step()
	}
	s.final()
}

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

// stepKind is a step's description without its tree, arguments and
// outcome: "sync", "clarify request", "git clean -xfd".
func stepKind(desc string) string {
	if strings.HasPrefix(desc, "final round") {
		return "final sync"
	}
	if len(desc) > 3 && desc[1] == ':' && desc[2] == ' ' {
		desc = desc[3:]
	}
	var words []string
	for _, w := range strings.Fields(desc) {
		if strings.HasPrefix(w, "-") && w != "-xfd" || strings.HasPrefix(w, "[") && strings.HasSuffix(w, "s]") || strings.ContainsAny(w, "0123456789\"/;(=") {
			break
		}
		words = append(words, w)
	}
	return strings.Join(words, " ")
}

func (s *sequence) pick(list []string) string { return list[s.rng.IntN(len(list))] }

// pickKey picks one of m's keys (in sorted order, so that a seed replays);
// false when m is empty.
func pickKey[V any](s *sequence, m map[string]V) (string, bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return "", false
	}
	sort.Strings(keys)
	return s.pick(keys), true
}

func (s *sequence) uniq(prefix string) string {
	s.n++
	return fmt.Sprintf("%s%d-%d", prefix, s.seed, s.n)
}

// step runs one random operation.
func (s *sequence) step() {
	type op struct {
		weight int
		do     func()
	}
	ops := []op{
		{5, s.request}, {2, s.answer}, {1, s.resolve},
		{5, s.memoryAdd}, {1, s.compact}, {1, s.remove},
		{4, s.sync}, {2, s.hookStart}, {2, s.hookFinish}, {2, s.killSync},
		{1, s.clean}, {1, s.readdWorktree}, {1, s.deleteBranch}, {1, s.forcePush},
		{1, s.toggleBranch}, {1, s.corruptLocal}, {1, s.junkOnBranch},
	}

	total := 0
	for _, o := range ops {
		total += o.weight
	}
	r := s.rng.IntN(total)
	for _, o := range ops {
		if r < o.weight {
			o.do()
			return
		}
		r -= o.weight
	}
}

func (s *sequence) anyTree() string { return s.pick(treeNames) }

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

// statSources stats every Go source file of the module and go.mod: go test
// caches a package's result on its own test binary, the variables it reads
// and the files it stats or opens, not on the agentx-hook TestMain builds
// with `go build`. Stat'ing the sources makes any change to agentx a cache
// miss, never a stale cached pass.
func statSources(t *testing.T) {
	t.Helper()
	root := filepath.Join("..", "..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" && p != root) {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".go") || d.Name() == "go.sum") {
			_, err = os.Stat(p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
