//go:build realhost

package realhost

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// The hosts run at once: a session mostly waits on processes (the host,
// its hooks, the fake model), and each test has its own HOME and server.
func TestClaude(t *testing.T)  { t.Parallel(); runHost(t, claude) }
func TestCodex(t *testing.T)   { t.Parallel(); runHost(t, codex) }
func TestCopilot(t *testing.T) { t.Parallel(); runHost(t, copilot) }

// result is one host's row of the summary: check -> verdict.
type result struct {
	host, version string
	checks        []string
	pass          map[string]bool
	notes         map[string]string
	sessions      int
	wall, cpu     time.Duration
}

func (r *result) check(name string, ok bool, note string, args ...any) {
	r.checks = append(r.checks, name)
	r.pass[name] = ok
	r.notes[name] = fmt.Sprintf(note, args...)
}

// info is a row of the summary that is a figure, not a verdict.
func (r *result) info(name string) {
	r.checks = append(r.checks, name)
	r.pass[name] = true
	r.notes[name] = "info"
}

// count records a check made once per session: k of n passed.
func (r *result) count(name string, k, n int) {
	r.check(fmt.Sprintf("%s %d/%d", name, k, n), k == n, "%d of %d sessions", k, n)
}

// The start hook's heading in what a host gives the model.
const startHeading = "# agentx: engineer on issue #" + issue

// runHost plays the scenario in one host.
func runHost(t *testing.T, h hostSpec) {
	if sel := os.Getenv("AGENTX_HOSTS"); sel != "" && !strings.Contains(","+sel+",", ","+h.name+",") {
		// Not selected by the one running the suite: there is nothing to
		// run, and the summary says so.
		t.Logf("%s not selected (AGENTX_HOSTS=%s)", h.name, sel)
		return
	}
	model := newFakeModel(t)
	w := newWorkspace(t, model, "")
	w.run("agentx-hook", "setup", "--"+h.name)
	sc := &scenario{t: t, h: h, w: w, model: model,
		res: &result{host: h.name, version: h.version, pass: map[string]bool{}, notes: map[string]string{}}}
	defer report(t, sc.res)
	found := false
	defer func() {
		if !found { // prepare failed the test: the table says so too
			sc.res.check("host installed", false, "see the test's log")
		}
	}()
	sc.bin, sc.env = h.prepare(t, w)
	found = true
	sc.gates()
	n := repeat(t)
	for i := 0; i < n; i++ {
		sc.firstSession(i)
	}
	sc.secondSession(n)
	dumpRun(h, w, model)
	sc.hookChecks(n)
	rep, raw := w.doctor()
	sc.res.check("doctor: no failure or warning, host findings ok", rep.Fails == 0 && rep.Warns == 0 && rep.hostOK(h.name), "%s", raw)
}

// scenario is one host's run: its workspace, model server and findings.
type scenario struct {
	t        *testing.T
	h        hostSpec
	w        *workspace
	model    *fakeModel
	res      *result
	bin      string
	env      []string
	atExit   int // decisions stored when the host exited
	ended    int // sessions after which the agent was done
	started  int // sessions whose first model request held the start hook's context
	reported struct {
		deprecated  []string // what the host calls deprecated in its output
		failedHooks []string // the hook runs the host reports failed
	}
}

// gates checks that doctor sees the host's gates before the user passes
// them, then passes them the way a user does.
func (sc *scenario) gates() {
	t, w, h := sc.t, sc.w, sc.h
	if h.trust != nil {
		rep, raw := w.doctor()
		sc.res.check("doctor sees the trust gate", !rep.hostOK(h.name), "before trust:\n%s", raw)
		h.trust(t, w, sc.bin, sc.env)
	}
	if h.loginShell {
		// Without the profile line a login shell finds no agentx-hook,
		// and the agent's shell calls fail: doctor says so.
		profile := filepath.Join(w.home, ".profile")
		must(t, os.Rename(profile, profile+".off"))
		rep, raw := w.doctor()
		must(t, os.Rename(profile+".off", profile))
		sc.res.check("doctor sees agentx-hook off the login shell's PATH", rep.mentions("login"), "without ~/.profile:\n%s", raw)
	}
}

// session runs one headless session of the script named.
func (sc *scenario) session(name, prompt string) hostRun {
	h, w, res := sc.h, sc.w, sc.res
	run := w.session(sc.env, sc.bin, h.args(prompt+" [["+"script:"+name+"]]")...)
	res.sessions++
	res.wall += run.Took
	res.cpu += run.CPU
	sc.t.Logf("%s session %s: %v wall, %v CPU", h.name, name, run.Took.Round(time.Millisecond), run.CPU.Round(time.Millisecond))
	if w.agentStatus() == "done" {
		sc.ended++
	}
	// The start hook ran and the host gave its context to the model.
	if reqs := sc.model.agentRequests(name); len(reqs) > 0 && bodyHolds(reqs[:1], startHeading) {
		sc.started++
	}
	out := run.Out + run.Err
	for _, m := range hookFailed.FindAllString(out, -1) {
		sc.reported.failedHooks = append(sc.reported.failedHooks, name+": "+strings.TrimSpace(m))
	}
	if strings.Contains(strings.ToLower(out), "deprecated") {
		sc.reported.deprecated = append(sc.reported.deprecated, name+": "+grepLines(out, "deprecated"))
	}
	if dump := os.Getenv("AGENTX_REALHOST_DUMP"); dump != "" {
		_ = os.WriteFile(fmt.Sprintf("%s/%s-%s.out", dump, h.name, name), []byte(run.Out+"\n--- stderr\n"+run.Err), 0o644)
	}
	return run
}

func decisionMarker(host string, i int) string { return fmt.Sprintf("zqdec%s%d", host, i) }

// firstSession is session 1, the i-th time: the first calls the shell
// tool (clarify request) and an MCP tool, the others a shell command;
// each ends stating a decision of its own.
func (sc *scenario) firstSession(i int) {
	h, w, res := sc.h, sc.w, sc.res
	name := fmt.Sprintf("s1-%d", i)
	decision := step{Text: "Decision: key the limiter by account and IP, variant " + decisionMarker(h.name, i) + "."}
	s := script{{Tool: func(offered []string) (string, map[string]any) {
		return h.shell(offered, fmt.Sprintf("echo checked zqrun%d", i))
	}}, decision}
	if i == 0 {
		s = script{
			{Tool: func(offered []string) (string, map[string]any) {
				return h.shell(offered, "agentx-hook clarify request --issue "+issue+
					" --from engineer --to architect --non-blocking --topic 'limiter keying'"+
					" --question 'Key the lockout limiter by account or by IP? (zqask"+h.name+")'")
			}},
			{Tool: func(offered []string) (string, map[string]any) {
				return mcpTool(offered, "memory_remember"), map[string]any{
					"content": "Lockout messages state the wait in minutes (zqmcp" + h.name + ")", "category": "key-fact", "issue": 57}
			}},
			decision,
		}
	}
	sc.model.set(name, s)
	run := sc.session(name, "Work on the login lockout.")
	reqs := sc.model.agentRequests(name)
	if i == 0 {
		// In the ledger, and the id it printed back to the model.
		id := clarificationID.FindString(w.ledger())
		res.check("shell: clarify request in the ledger", strings.Contains(w.ledger(), "zqask"+h.name) &&
			id != "" && len(reqs) >= 2 && strings.Contains(string(reqs[1].Body), id), "id %q", id)
		// The tool's result (the stored observation's id) is in the
		// request after the call: the store was empty before it.
		obs := ""
		if len(reqs) >= 3 {
			obs = observationID.FindString(string(reqs[2].Body))
		}
		res.check("MCP tool round trip", obs != "" && w.memoryHolds(obs) && w.memoryHolds("zqmcp"+h.name),
			"observation id %q in the next request; tools offered: %v", obs, toolsOf(reqs))
	}
	if w.memoryHolds(decisionMarker(h.name, i)) {
		sc.atExit++
	} else {
		sc.t.Logf("%s: session %s's decision not stored at exit; hook log:\n%s\nstdout: %s\nstderr: %s",
			h.name, name, w.hookLogText(), run.Out, run.Err)
	}
}

// secondSession is session 2 after n first sessions: what its model
// request holds.
func (sc *scenario) secondSession(n int) {
	h, w, res := sc.h, sc.w, sc.res
	sc.model.set("s2", script{{Text: "Nothing to do."}})
	sc.session("s2", "Go on with the login lockout.")
	// A capture the host cut short is finished from the spool by the
	// next start, which the hook log says: captured too, but later.
	captured := 0
	var lost []string
	for i := 0; i < n; i++ {
		if w.memoryHolds(decisionMarker(h.name, i)) {
			captured++
		} else {
			lost = append(lost, fmt.Sprintf("s1-%d", i))
		}
	}
	if len(lost) > 0 {
		sc.t.Logf("%s: decisions of %v never stored; hook log:\n%s", h.name, lost, w.hookLogText())
	}
	res.count("decision captured", captured, n)
	res.info(fmt.Sprintf("captured before the host exited %d/%d", sc.atExit, n))
	res.count("session end: agent done", sc.ended, n+1)
	s2 := sc.model.agentRequests("s2")
	// Recall by whichever way the host takes it in (a start hook's
	// context, an instructions file): a decision of session 1 is there.
	res.check("session 2: recall in the model request", bodyHolds(s2, "variant zqdec"+h.name), "")
	id := clarificationID.FindString(w.ledger())
	res.check("session 2: open clarification in the model request", id != "" && bodyHolds(s2, id, "to architect"), "id %q", id)
}

// hookChecks reads the hook log and what the host reported of its hooks.
func (sc *scenario) hookChecks(n int) {
	h, w, res := sc.h, sc.w, sc.res
	named, warned := 0, 0
	log := w.hookLog()
	for _, e := range log {
		if e["host"] == h.name {
			named++
		}
		if e["outcome"] != "ok" {
			warned++
		}
	}
	// The hook log keeps the last 50 runs: per session, the model's
	// request is the witness.
	res.count("start hook context in the model request", sc.started, n+1)
	res.check("hooks: log names the host, outcome ok", named == len(log) && warned == 0 && len(log) > 0,
		"%d of %d lines name %s, %d not ok:\n%s", named, len(log), h.name, warned, w.hookLogText())
	res.check("host reports no hook failed", len(sc.reported.failedHooks) == 0, "%s", strings.Join(sc.reported.failedHooks, "\n"))
	res.check("host warns of nothing deprecated in setup's files", len(sc.reported.deprecated) == 0, "%s",
		strings.Join(sc.reported.deprecated, "\n"))
}

// dumpRun writes what a host did, for a person reading it, under
// $AGENTX_REALHOST_DUMP: the requests, the hook log, the agent's status.
func dumpRun(h hostSpec, w *workspace, model *fakeModel) {
	dump := os.Getenv("AGENTX_REALHOST_DUMP")
	if dump == "" {
		return
	}
	for i, r := range model.requests("") {
		_ = os.WriteFile(fmt.Sprintf("%s/%s-req-%02d-%s.json", dump, h.name, i, r.Script), r.Body, 0o644)
	}
	for _, f := range []string{"hook-log.jsonl", "state/agent-status.json"} {
		b, _ := os.ReadFile(filepath.Join(w.repo, ".agentx", f))
		_ = os.WriteFile(fmt.Sprintf("%s/%s-%s", dump, h.name, filepath.Base(f)), b, 0o644)
	}
	// How far agentx read each session's transcript.
	if entries, err := os.ReadDir(filepath.Join(w.repo, ".agentx", "memory", "cursors")); err == nil {
		var b strings.Builder
		for _, e := range entries {
			data, _ := os.ReadFile(filepath.Join(w.repo, ".agentx", "memory", "cursors", e.Name()))
			fmt.Fprintf(&b, "%s: %s\n", e.Name(), data)
		}
		_ = os.WriteFile(fmt.Sprintf("%s/%s-cursors.txt", dump, h.name), []byte(b.String()), 0o644)
	}
	// The files the host keeps in HOME (its sessions, transcripts).
	var files strings.Builder
	_ = filepath.WalkDir(w.home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == w.repo {
			return fs.SkipDir
		}
		if !d.IsDir() {
			info, _ := d.Info()
			fmt.Fprintf(&files, "%10d %s\n", info.Size(), strings.TrimPrefix(p, w.home+"/"))
		}
		return nil
	})
	_ = os.WriteFile(fmt.Sprintf("%s/%s-home.txt", dump, h.name), []byte(files.String()), 0o644)
}

// hookFailed is a hook run the host reports failed in its output (Codex
// exec prints "hook: Stop Failed"; the others print no such line).
var hookFailed = regexp.MustCompile(`(?im)^hook: \S+ failed.*$`)

// observationID is an observation id of the workspace's agent and issue.
var observationID = regexp.MustCompile(`obs-engineer-` + issue + `-\d+-[a-z0-9]+`)

// clarificationID is the id of the workspace issue's first clarification.
var clarificationID = regexp.MustCompile(`CLR-` + issue + `-\d{3}`)

func toolsOf(reqs []recorded) []string {
	for _, r := range reqs {
		if len(r.Tools) > 0 {
			return r.Tools
		}
	}
	return nil
}

// summary collects every host's result for the table TestMain writes.
var (
	summaryMu sync.Mutex
	summary   []*result
)

func report(t *testing.T, r *result) {
	for _, c := range r.checks {
		if !r.pass[c] {
			t.Errorf("%s: %s: FAIL %s", r.host, c, r.notes[c])
		}
	}
	summaryMu.Lock()
	summary = append(summary, r)
	summaryMu.Unlock()
}

// writeSummary writes the host x check table.
func writeSummary(w io.Writer) {
	summaryMu.Lock()
	defer summaryMu.Unlock()
	passed, failed := 0, 0
	sort.Slice(summary, func(i, j int) bool { return summary[i].host < summary[j].host })
	for _, r := range summary {
		fmt.Fprintf(w, "%s %s: %d sessions, %v wall, %v CPU in the host\n", r.host, r.version, r.sessions,
			r.wall.Round(time.Millisecond), r.cpu.Round(time.Millisecond))
		for _, c := range r.checks {
			verdict := "PASS"
			switch {
			case r.notes[c] == "info":
				fmt.Fprintf(w, "  %-52s\n", c)
				continue
			case r.pass[c]:
				passed++
			default:
				verdict = "FAIL"
				failed++
			}
			fmt.Fprintf(w, "  %-52s %s\n", c, verdict)
		}
	}
	fmt.Fprintf(w, "%d passed, %d failed\n", passed, failed)
}

// grepLines is the lines of text holding sub (case-insensitive).
func grepLines(text, sub string) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(strings.ToLower(line), sub) {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return strings.Join(out, " | ")
}
