//go:build linux && (amd64 || arm64)

// The kill points of each writing command and the invariant checked after
// each kill.

package crashpoints

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/testenv"
)

// scenario is one writing command and the workspace it runs in.
type scenario struct {
	// prepare builds the workspace in dir (a new directory); the command
	// runs in dir/work when work is set.
	prepare func(t *testing.T, dir string)
	work    string
	args    []string
	// stdin is the command's standard input in the workspace copy at
	// root (its work tree), "" for none.
	stdin func(root string) string
	// target is the clarification whose thread the command extends.
	target string
	// refusesWhenDone: a second run of the command is refused (exit 1,
	// INVALID_INPUT) once the change it makes is there (answer, resolve).
	refusesWhenDone bool
	// rerunAddsAgain: a second run adds its records again (a request or
	// an observation a person stores twice) instead of finding them done.
	rerunAddsAgain bool
	// argsFrom, when set, makes args and gone from the prepared
	// workspace at dir (its work tree): ids the preparation made.
	argsFrom func(t *testing.T, dir string) (args []string, gone []string)
	// gone are the records the command removes, saying so (memory
	// remove, checkpoint restore): they may be gone after a kill, and a
	// next run may then refuse with NOT_FOUND.
	gone []string
	// children: the git processes the command starts are traced too,
	// their calls kill points as well.
	children bool
	// allStep, above 1, thins AGENTX_CRASH_ALL=1's points to every
	// allStep-th (the CI step's time: see points).
	allStep int
	// recover is the command that completes, after the next run, what a
	// killed run left undone and the next run does not redo (resolve's
	// decision in memory: the next hook start on the issue stores it).
	recover []string
	// done, when set, checks what the next run must also have completed
	// outside the workspace's files (a recovery's push), in the copy at
	// root.
	done func(root string) error
	// whole, when set, checks files outside the records (a user's host
	// settings) in the work tree right after the kill and after the next
	// run: each as it was or as a complete run leaves it, never between.
	whole func(work string) error
	// makesWorkspace: the command creates the workspace (init), so
	// verify has nothing to check until a run completes; the next run's
	// verify is the one that counts.
	makesWorkspace bool
	// removesWorkspace: the command removes the workspace (uninstall), so
	// verify has nothing to check after it either.
	removesWorkspace bool
	// light: the default suite kills the command at its middle point only
	// (the CI step still sweeps every point): commands whose writes are
	// the same atomic replacement as another scenario's.
	light bool
}

// acked matches what a command prints of the records it stored.
var acked = regexp.MustCompile(`\b(CLR-\d+-\d{3}|obs-[a-z0-9-]+-\d+-\d+-[a-z0-9]+)\b`)

// ackedKeys returns the snapshot keys of the ids out names.
func ackedKeys(out string) []string {
	var keys []string
	for _, id := range acked.FindAllString(out, -1) {
		if strings.HasPrefix(id, "CLR-") {
			keys = append(keys, "clr:"+id)
		} else {
			keys = append(keys, "obs:"+id)
		}
	}
	return keys
}

// points is where a command with m mutating calls is killed: every point
// under AGENTX_CRASH_ALL=1 (every step-th and the last three when step is
// above 1; AGENTX_CRASH_ALL=every: every point whatever step), else the
// first, the middle and the last (all of them when m is at most 3), or
// the middle alone when light: the default suite's share, about 5 s of
// CPU, while the CI step sweeps every point.
func points(m, step int, light bool) []int {
	if only := os.Getenv("AGENTX_CRASH_POINTS"); only != "" {
		// Reproduction: the points a failure named, comma-separated.
		var out []int
		for f := range strings.SplitSeq(only, ",") {
			if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n >= 1 && n <= m {
				out = append(out, n)
			}
		}
		return out
	}
	const ends, spread = 1, 1
	all := os.Getenv("AGENTX_CRASH_ALL")
	if light && all == "" {
		return []int{(m + 1) / 2}
	}
	if all == "every" || all == "1" && step <= 1 || m <= 2*ends+spread {
		out := make([]int, m)
		for i := range out {
			out[i] = i + 1
		}
		return out
	}
	if all == "1" {
		// Every step-th point, the last three too.
		var out []int
		for n := 1; n <= m; n += step {
			out = append(out, n)
		}
		for n := max(m-2, out[len(out)-1]+1); n <= m; n++ {
			out = append(out, n)
		}
		return out
	}
	set := map[int]bool{}
	for i := 1; i <= ends; i++ {
		set[i], set[m+1-i] = true, true
	}
	for i := 1; i <= spread; i++ {
		set[ends+i*(m-2*ends)/(spread+1)] = true
	}
	var out []int
	for n := range set {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

// crash runs sc's command once under the tracer to count its mutating
// calls M, then once per kill point in a fresh copy of its workspace, and
// checks the invariant after each.
func crash(t *testing.T, sc scenario) {
	// The commands run side by side: each kill is a process tree of its
	// own in a copy of its own.
	t.Parallel()
	base := t.TempDir()
	tmpl := filepath.Join(base, "template")
	if err := os.MkdirAll(tmpl, 0o755); err != nil {
		t.Fatal(err)
	}
	sc.prepare(t, tmpl)
	workOf := func(root string) string { return filepath.Join(root, sc.work) }
	if sc.argsFrom != nil {
		sc.args, sc.gone = sc.argsFrom(t, workOf(tmpl))
	}
	stdinOf := func(root string) string {
		if sc.stdin == nil {
			return ""
		}
		return sc.stdin(workOf(root))
	}
	fresh := func(name string) string {
		root := filepath.Join(base, name)
		if err := testenv.CopyTree(tmpl, root); err != nil {
			t.Fatal(err)
		}
		return root
	}
	before, err := readSnapshot(workOf(tmpl))
	if err != nil {
		t.Fatal(err)
	}

	// The count: the whole command, its calls named.
	root := fresh("count")
	rep, res, err := tracedEnv(workOf(root), stdinOf(root), 0, sc.env(), sc.args...)
	if err != nil {
		t.Fatal(err)
	}
	if res.code != 0 {
		t.Fatalf("agentx-hook %s under the tracer: %s", strings.Join(sc.args, " "), res)
	}
	after, err := readSnapshot(workOf(root))
	if err != nil {
		t.Fatal(err)
	}
	if bad := keptAll(without(before, sc.gone), after); len(bad) > 0 {
		t.Fatalf("a complete run lost or changed records: %v", bad)
	}
	for _, k := range sc.gone {
		if after[k] != nil {
			t.Fatalf("a complete run left %s, which it removes", k)
		}
	}
	newRecords, growth := len(added(before, after)), threadGrowth(before, after, sc.target)
	m := rep.Count
	for i, c := range rep.Calls {
		rep.Calls[i] = strings.ReplaceAll(c, root, "$WS")
	}
	pts := points(m, sc.allStep, sc.light)
	t.Logf("agentx-hook %s: M = %d mutating calls, %d new records, thread +%d; killing at %d points", strings.Join(sc.args, " "), m, newRecords, growth, len(pts))
	if testing.Verbose() {
		t.Logf("the calls:\n  %s", strings.Join(rep.Calls, "\n  "))
	}
	if m == 0 {
		t.Fatal("the command made no mutating call: the tracer saw nothing")
	}

	failures := 0
	for _, n := range pts {
		if err := killAt(sc, fresh(fmt.Sprintf("kill-%d", n)), workOf, stdinOf, n, before, newRecords, growth, rep.Calls); err != nil {
			t.Errorf("killed at call %d of %d (AGENTX_CRASH_POINTS=%d go test -run '^%s$' reruns it): %v", n, m, n, t.Name(), err)
			if failures++; failures == 5 {
				t.Fatal("five kill points failed; stopping")
			}
		}
		if !t.Failed() {
			_ = os.RemoveAll(filepath.Join(base, fmt.Sprintf("kill-%d", n)))
		}
	}
}

// killAt runs sc's command in the copy at root killed at call n and
// checks the invariant.
func killAt(sc scenario, root string, workOf, stdinOf func(string) string, n int, before snapshot, newRecords, growth int, calls []string) error {
	work := workOf(root)
	rep, res, err := tracedEnv(work, stdinOf(root), n, sc.env(), sc.args...)
	if err != nil {
		return err
	}
	at := strings.ReplaceAll(rep.At, root, "$WS")
	if !rep.Killed {
		// Fewer calls than counted: the command took another path.
		at = fmt.Sprintf("(not killed: %d calls, exit %d)", rep.Count, res.code)
	} else if n <= len(calls) && calls[n-1] != at && !sameCall(calls[n-1], at) {
		at += fmt.Sprintf(" (the count's call %d was %s)", n, calls[n-1])
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("at %s: %s\nkilled run: %s", at, fmt.Sprintf(format, args...), res)
	}

	// Right after the kill: every record readable, none lost, everything
	// the command said it stored there, the new ones whole (verify checks
	// their hashes below) and not doubled.
	s1, err := readSnapshot(work)
	if err != nil {
		return fail("unreadable after the kill: %v", err)
	}
	if sc.whole != nil {
		if err := sc.whole(work); err != nil {
			return fail("right after the kill: %v", err)
		}
	}
	kept := without(before, sc.gone)
	if bad := keptAll(kept, s1); len(bad) > 0 {
		return fail("records lost or changed: %v", bad)
	}
	for _, k := range ackedKeys(res.stdout) {
		if _, ok := s1[k]; !ok && !slices.Contains(sc.gone, k) { // "Removed ID." names no record stored
			return fail("%s was printed as stored but is not there", k)
		}
	}
	for _, k := range sc.gone {
		if _, ok := s1[k]; ok && strings.Contains(res.stdout, "Removed "+strings.TrimPrefix(k, "obs:")) {
			return fail("%s was printed as removed but is still there", k)
		}
	}
	if a := added(before, s1); len(a) > newRecords {
		return fail("%d new records where a complete run adds %d: %v", len(a), newRecords, a)
	}
	if g := threadGrowth(before, s1, sc.target); g > growth {
		return fail("%s's thread grew by %d where a complete run adds %d", sc.target, g, growth)
	}

	// verify clean, or clean after --repair.
	v, err := hook(work, "verify")
	if err != nil {
		return fail("%v", err)
	}
	repaired := ""
	if sc.makesWorkspace || sc.removesWorkspace {
		v.code = 0
	}
	if v.code != 0 {
		r, err := hook(work, "verify", "--repair")
		if err != nil {
			return fail("%v", err)
		}
		v2, err := hook(work, "verify")
		if err != nil {
			return fail("%v", err)
		}
		if v2.code != 0 {
			return fail("verify is not clean after verify --repair:\nverify: %s\nrepair: %s\nverify again: %s", v, r, v2)
		}
		repaired = v.stdout
	}
	s2, err := readSnapshot(work)
	if err != nil {
		return fail("unreadable after verify: %v", err)
	}
	if bad := keptAll(s1, s2); len(bad) > 0 || len(added(s1, s2)) > 0 {
		return fail("verify --repair changed records: %v %v (verify said %s)", bad, added(s1, s2), repaired)
	}

	// The next run of the same command succeeds and completes the change.
	landed := threadGrowth(before, s1, sc.target) == growth
	next, err := run(work, stdinOf(root), hookBin, sc.args...)
	if err != nil {
		return fail("the next run: %v", err)
	}
	if lock := staleRemoteLock(next, root); sc.children && lock != "" {
		// A kill inside the remote's own git (receive-pack) left its ref
		// lock there: git's, not agentx's, to leave. The sync must name
		// it and say to remove it; a person does, then syncs again.
		if err := os.Remove(lock); err != nil {
			return fail("remove the remote's stale lock %s: %v", lock, err)
		}
		if next, err = run(work, stdinOf(root), hookBin, sc.args...); err != nil {
			return fail("the run after the lock's removal: %v", err)
		}
	}
	switch {
	case next.code == 0:
	case sc.refusesWhenDone && landed && next.code == 1 && strings.Contains(next.stderr, "INVALID_INPUT"):
	case len(sc.gone) > 0 && len(keptAll(snapshotOf(sc.gone, s2), s2)) == len(sc.gone) && next.code == 1 && strings.Contains(next.stderr, "NOT_FOUND"):
	default:
		return fail("the next run failed (verify before it: %s): %s", strings.TrimSpace(repaired), next)
	}
	if sc.recover != nil {
		if r, err := hook(work, sc.recover...); err != nil || r.code != 0 {
			return fail("agentx-hook %s after the next run: %v %s", strings.Join(sc.recover, " "), err, r)
		}
	}
	if v, err := hook(work, "verify"); !sc.removesWorkspace && (err != nil || v.code != 0) {
		return fail("verify after the next run: %v %s", err, v)
	}
	s3, err := readSnapshot(work)
	if err != nil {
		return fail("unreadable after the next run: %v", err)
	}
	if bad := keptAll(kept, s3); len(bad) > 0 {
		return fail("records lost or changed after the next run: %v", bad)
	}
	for _, k := range sc.gone {
		if s3[k] != nil {
			return fail("after the next run %s, which the command removes, is still there", k)
		}
	}
	if g := threadGrowth(before, s3, sc.target); g != growth {
		return fail("after the next run %s's thread grew by %d, a complete run's %d", sc.target, g, growth)
	}
	a := len(added(before, s3))
	most := newRecords
	if sc.rerunAddsAgain {
		most = 2 * newRecords
	}
	if a < newRecords || a > most {
		return fail("after the next run %d new records (a complete run adds %d): %v", a, newRecords, added(before, s3))
	}
	if sc.whole != nil {
		if err := sc.whole(work); err != nil {
			return fail("after the next run: %v", err)
		}
	}
	if sc.done != nil {
		if err := sc.done(root); err != nil {
			return fail("after the next run: %v", err)
		}
	}
	return nil
}

// sameCall says whether two call names differ only in a temporary's
// random part (digits and letters after "tmp").
func sameCall(a, b string) bool {
	strip := regexp.MustCompile(`[0-9a-f]{6,}|\d+`)
	return strip.ReplaceAllString(a, "#") == strip.ReplaceAllString(b, "#")
}

// without is s less keys.
func without(s snapshot, keys []string) snapshot {
	out := make(snapshot, len(s))
	for k, v := range s {
		if !slices.Contains(keys, k) {
			out[k] = v
		}
	}
	return out
}

// snapshotOf is a snapshot naming keys (empty records), for keptAll to
// count which of them s lacks.
func snapshotOf(keys []string, s snapshot) snapshot {
	out := snapshot{}
	for _, k := range keys {
		out[k] = s[k]
	}
	return out
}

// env is the tracer's environment for sc.
func (sc scenario) env() []string {
	if sc.children {
		return []string{envChildren + "=1"}
	}
	return nil
}

// remoteLockHint is how a sync names a ref lock a push killed on the
// remote's side left (statebranch's lockedError).
var remoteLockHint = regexp.MustCompile(`the remote's ref lock (\S+\.lock) stayed through every retry`)

// staleRemoteLock is the lock res names, when it is in the bare remote
// under root, else "".
func staleRemoteLock(res result, root string) string {
	m := remoteLockHint.FindStringSubmatch(res.stderr)
	if res.code == 0 || m == nil {
		return ""
	}
	lock := filepath.Clean(m[1])
	if !strings.HasPrefix(lock, filepath.Join(root, "remote.git")+string(filepath.Separator)) {
		return ""
	}
	return lock
}
