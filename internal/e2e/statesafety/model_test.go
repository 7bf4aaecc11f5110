//go:build unix

// The model-based test's driver: its defaults and knobs (AGENTX_MODEL_*),
// TestModelSequences, a sequence's state and how it picks and runs its random
// steps. The steps are in model_ops_test.go, the invariant checked after
// each in model_invariant_test.go.

package statesafety

import (
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
