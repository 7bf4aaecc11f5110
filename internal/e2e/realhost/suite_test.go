//go:build realhost

package realhost

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestClaude(t *testing.T)  { runHost(t, claude) }
func TestCodex(t *testing.T)   { runHost(t, codex) }
func TestCopilot(t *testing.T) { runHost(t, copilot) }

// result is one host's row of the summary: check -> verdict.
type result struct {
	host   string
	checks []string
	pass   map[string]bool
	notes  map[string]string
}

func (r *result) check(name string, ok bool, note string, args ...any) {
	r.checks = append(r.checks, name)
	r.pass[name] = ok
	r.notes[name] = fmt.Sprintf(note, args...)
}

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
	bin, env := h.prepare(t, w)
	res := &result{host: h.name, pass: map[string]bool{}, notes: map[string]string{}}
	defer report(t, h, res)
	if h.trust != nil {
		// Before the user passes the host's gate, doctor says so.
		rep, raw := w.doctor()
		status, _ := rep.finding("host/" + h.name)
		res.check("doctor sees the trust gate", status != "ok", "host/%s before trust: %s\n%s", h.name, status, raw)
		h.trust(t, w, bin, env)
	}

	n := repeat(t)
	question := "Key the lockout limiter by account or by IP? (zqask" + h.name + ")"
	remember := "Lockout messages state the wait in minutes (zqmcp" + h.name + ")"
	decision := func(i int) string {
		return fmt.Sprintf("Decision: key the limiter by account and IP, variant zqdec%s%d.", h.name, i)
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("s1-%d", i)
		var s script
		if i == 0 {
			s = script{
				{Tool: func(offered []string) (string, map[string]any) {
					return h.shell(offered, "agentx-hook clarify request --issue "+issue+
						" --from engineer --to architect --non-blocking --topic 'limiter keying' --question '"+question+"'")
				}},
				{Tool: func(offered []string) (string, map[string]any) {
					return mcpTool(offered, "memory_remember"), map[string]any{"content": remember, "category": "key-fact", "issue": 57}
				}},
				{Text: decision(i)},
			}
		} else {
			s = script{
				{Tool: func(offered []string) (string, map[string]any) {
					return h.shell(offered, fmt.Sprintf("echo checked zqrun%d", i))
				}},
				{Text: decision(i)},
			}
		}
		model.set(name, s)
		run := w.session(env, bin, h.args("Work on the login lockout. [["+"script:"+name+"]]")...)
		t.Logf("%s session %s: %v wall, %v CPU", h.name, name, run.Took, run.CPU)
		reqs := model.requests(name)
		if i == 0 {
			res.check("session-1 model request", len(reqs) > 0, "%d requests", len(reqs))
			res.check("clarify request in ledger", strings.Contains(w.ledger(), "zqask"+h.name), "")
			res.check("MCP round trip", w.memoryHolds("zqmcp"+h.name) && len(reqs) >= 3 && bodyHolds(reqs[2:], "zqmcp"+h.name),
				"tools offered: %v", toolsOf(reqs))
		}
		res.check(fmt.Sprintf("decision captured (%d)", i), w.memoryHolds(fmt.Sprintf("zqdec%s%d", h.name, i)), "")
		if t.Failed() {
			t.Logf("stdout: %s\nstderr: %s", run.Out, run.Err)
		}
	}
	model.set("s2", script{{Text: "Nothing to do."}})
	w.session(env, bin, h.args("Go on with the login lockout. [["+"script:s2]]")...)
	s2 := model.requests("s2")
	if os.Getenv("AGENTX_REALHOST_DUMP") != "" {
		for i, r := range s2 {
			_ = os.WriteFile(fmt.Sprintf("%s/%s-s2-%d.json", os.Getenv("AGENTX_REALHOST_DUMP"), h.name, i), r.Body, 0o644)
		}
	}
	res.check("session-2 recall", bodyHolds(s2, "zqdec"+h.name+"0"), "")
	id := clarificationID.FindString(w.ledger())
	res.check("session-2 open clarification", id != "" && bodyHolds(s2, id, "to architect"), "id %q", id)
	log := w.hookLog()
	res.check("hooks ran", len(log) > 0, "%d hook-log lines", len(log))
	rep, raw := w.doctor()
	res.check("doctor ok", rep.Fails == 0, "%s", raw)
}

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

func report(t *testing.T, h hostSpec, r *result) {
	var b strings.Builder
	fmt.Fprintf(&b, "host %s %s:\n", h.name, h.version)
	for _, c := range r.checks {
		verdict := "PASS"
		if !r.pass[c] {
			verdict = "FAIL"
			t.Errorf("%s: %s failed %s", h.name, c, r.notes[c])
		}
		fmt.Fprintf(&b, "  %-32s %s\n", c, verdict)
	}
	t.Log(b.String())
}
