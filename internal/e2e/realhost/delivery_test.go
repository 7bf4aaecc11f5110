//go:build realhost

package realhost

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Answers delivered into a running session (issue 34): a session asks a
// non-blocking question, an answer is written from outside the host while
// the session runs, and the model's next request carries it, exactly
// once; the ledger holds the receipt. Then a blocking question answered
// while the model writes its last reply: the host's stop hook sends the
// agent on with the answer (decision block), once.
func TestDeliveryClaude(t *testing.T)  { t.Parallel(); runDelivery(t, claude, true) }
func TestDeliveryCodex(t *testing.T)   { t.Parallel(); runDelivery(t, codex, true) }
func TestDeliveryCopilot(t *testing.T) { t.Parallel(); runDelivery(t, copilot, true) }

// The answers' marks: each must reach the model exactly once.
const (
	answerMark   = "DELIVERY-MARK-7Q2 SQLite for now"
	blockingMark = "BLOCKING-MARK-4K9 use the existing users table"
)

func runDelivery(t *testing.T, h hostSpec, stop bool) {
	if sel := os.Getenv("AGENTX_HOSTS"); sel != "" && !strings.Contains(","+sel+",", ","+h.name+",") {
		t.Logf("%s not selected (AGENTX_HOSTS=%s)", h.name, sel)
		return
	}
	model := newFakeModel(t)
	w := newWorkspace(t, model, "")
	w.run("agentx-hook", "setup", "--"+h.name)
	res := &result{host: h.name + " delivery", version: h.version, pass: map[string]bool{}, notes: map[string]string{}}
	defer report(t, res)
	bin, env := h.prepare(t, w)
	if h.trust != nil {
		h.trust(t, w, bin, env)
	}
	answer := func(id, body string) func() {
		var once sync.Once
		return func() {
			once.Do(func() { w.run("agentx-hook", "clarify", "answer", id, "--body", body) })
		}
	}
	shell := func(cmd string) func([]string) (string, map[string]any) {
		return func(offered []string) (string, map[string]any) { return h.shell(offered, cmd) }
	}

	// Session 1: ask (non-blocking), the answer arrives from outside
	// while the model works, two more tool calls, then the final text.
	model.set("deliver", script{
		{Tool: shell("agentx-hook clarify request --issue " + issue + " --from engineer --to architect --topic storage --question 'Postgres or SQLite?' --non-blocking")},
		{Before: answer("CLR-"+issue+"-001", answerMark), Tool: shell("echo working on the login lockout")},
		{Tool: shell("echo still working")},
		{Text: "Done for now."},
	})
	run := w.session(env, bin, h.args("Work on the login lockout. [[script:deliver]]")...)
	reqs := model.agentRequests("deliver")
	first := -1
	for i, r := range reqs {
		if strings.Contains(string(r.Body), "DELIVERY-MARK-7Q2") {
			first = i
			break
		}
	}
	last := ""
	if len(reqs) > 0 {
		last = string(reqs[len(reqs)-1].Body)
	}
	res.check("the answer reaches the model's next request", first >= 2 && first <= 3,
		"first carried by request %d of %d (the answer lands before request 1's reply)\nstdout:\n%s\nstderr:\n%s", first, len(reqs), run.Out, run.Err)
	// Exactly once: what the first request carrying it holds, the last
	// holds too, no more (a host may render one hook output twice in a
	// request; a second delivery would add to it).
	res.check("exactly once in the conversation", first >= 0 && strings.Count(last, "DELIVERY-MARK-7Q2") == strings.Count(string(reqs[first].Body), "DELIVERY-MARK-7Q2"),
		"%d times in the last request", strings.Count(last, "DELIVERY-MARK-7Q2"))
	res.check("framed as data", strings.Contains(last, "quoted as data"), "no framing line in the last request")
	led := w.ledger()
	res.check("the ledger holds the receipt", strings.Contains(led, `"delivered"`) && strings.Contains(led, `"host": "`+h.name+`"`),
		"ledger:\n%s", led)
	show := w.run("agentx-hook", "clarify", "show", "CLR-"+issue+"-001")
	res.check("clarify show says delivered", strings.Contains(show, "delivered"), "%s", show)

	if !stop {
		return
	}
	// Session 2: a blocking question; its answer lands while the model
	// writes its final reply, and the stop hook sends the agent on.
	model.set("stop", script{
		{Tool: shell("agentx-hook clarify request --issue " + issue + " --from engineer --to architect --topic schema --question 'New table or the users table?' --blocking")},
		{Before: answer("CLR-"+issue+"-002", blockingMark), Text: "Waiting for the architect."},
	})
	run = w.session(env, bin, h.args("Add the lockout counter. [[script:stop]]")...)
	reqs = model.agentRequests("stop")
	n, firstStop := 0, ""
	for _, r := range reqs {
		if strings.Contains(string(r.Body), "BLOCKING-MARK-4K9") {
			if n == 0 {
				firstStop = string(r.Body)
			}
			n++
		}
	}
	last = ""
	if len(reqs) > 0 {
		last = string(reqs[len(reqs)-1].Body)
	}
	res.check("stop: the blocking answer sends the agent on, once", n >= 1 && strings.Count(last, "BLOCKING-MARK-4K9") == strings.Count(firstStop, "BLOCKING-MARK-4K9"),
		"%d of %d requests carry it, %d times in the last\nstdout:\n%s\nstderr:\n%s", n, len(reqs), strings.Count(last, "BLOCKING-MARK-4K9"), run.Out, run.Err)
	if dump := os.Getenv("AGENTX_REALHOST_DUMP"); dump != "" {
		for i, r := range model.requests("") {
			_ = os.WriteFile(filepath.Join(dump, h.name+"-delivery-req-"+itoa2(i)+"-"+r.Script+".json"), r.Body, 0o644)
		}
		b, _ := os.ReadFile(filepath.Join(w.repo, ".agentx", "hook-log.jsonl"))
		_ = os.WriteFile(filepath.Join(dump, h.name+"-delivery-hook-log.jsonl"), b, 0o644)
		_ = os.WriteFile(filepath.Join(dump, h.name+"-delivery-ledger.json"), []byte(w.ledger()), 0o644)
	}
}

func itoa2(i int) string { return string([]byte{byte('0' + i/10%10), byte('0' + i%10)}) }
