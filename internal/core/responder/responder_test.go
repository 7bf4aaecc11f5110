package responder

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/process"
)

func TestRespond(t *testing.T) {
	e := &Exec{Dir: t.TempDir(), Responders: map[string]config.Responder{
		"echo":   {Command: []string{"sh", "-c", `read -r line; printf '%s' "$line" | grep -o '"question":"[^"]*"'`}},
		"fail":   {Command: []string{"sh", "-c", "echo boom >&2; exit 4"}},
		"silent": {Command: []string{"true"}},
		"slow":   {Command: []string{"sleep", "60"}, Timeout: config.Duration{Duration: 100 * time.Millisecond}},
		"env":    {Command: []string{"sh", "-c", "echo $AGENTX_CLARIFICATION_ID $AGENTX_ISSUE $AGENTX_AGENT"}},
	}}
	req := Request{Issue: 4, ID: "CLR-4-001", Question: "Why?", Round: 1}
	ctx := context.Background()
	if got, err := e.Respond(ctx, "echo", req); err != nil || got != `"question":"Why?"` {
		t.Errorf("echo: %q %v", got, err)
	}
	if got, err := e.Respond(ctx, "env", req); err != nil || got != "CLR-4-001 4 env" {
		t.Errorf("env: %q %v", got, err)
	}
	tests := map[string]string{
		"fail":   "exited with status 4: boom",
		"silent": "printed no answer",
		"slow":   "timed out after 100ms",
		"nobody": "no responder configured",
	}
	for agent, want := range tests {
		start := time.Now()
		_, err := e.Respond(ctx, agent, req)
		if !errcode.Is(err, errcode.AgentError) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want AGENT_ERROR %q", agent, err, want)
		}
		if time.Since(start) > 20*time.Second {
			t.Errorf("%s took %s", agent, time.Since(start))
		}
	}
	if !e.Has("echo") || e.Has("nobody") {
		t.Error("Has")
	}
}

// A failing responder's stderr is quoted in the error cut to 200
// characters, never inside a UTF-8 sequence: byte 200 of this line falls
// in the middle of a two-byte character.
func TestFirstLineCutsOnACharacter(t *testing.T) {
	t.Parallel()
	line := "x" + strings.Repeat("é", 300)
	for _, c := range []struct{ in, want string }{
		{"short\nsecond", "short"},
		{line + "\nnext", "x" + strings.Repeat("é", 196) + "..."},
		{strings.Repeat("é", 200), strings.Repeat("é", 200)},
	} {
		got := firstLine(c.in)
		if got != c.want {
			t.Errorf("firstLine(%.20q...) = %.40q..., want %.40q...", c.in, got, c.want)
		}
		if !utf8.ValidString(got) || utf8.RuneCountInString(got) > 200 {
			t.Errorf("firstLine(%.20q...) = %q: invalid UTF-8 or over 200 characters", c.in, got)
		}
	}
}

// Hostile responders (issue 15): a background child holding stdout, a
// child outliving a timeout, invalid UTF-8 and NUL bytes.
func TestRespondHostile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := dir + "/child.pid"
	e := &Exec{Dir: dir, Responders: map[string]config.Responder{
		// Answers, exits 0, leaves a child holding stdout for 30 s.
		"daemon": {Command: []string{"sh", "-c", "echo 'the answer'; sleep 120 & exit 0"}},
		// Times out while its child (which holds stdout) would run on.
		"group": {Command: []string{"sh", "-c", "sleep 120 & echo $! > " + pidFile + "; wait"},
			Timeout: config.Duration{Duration: 300 * time.Millisecond}},
		"badutf8": {Command: []string{"printf", `ok \377\376 done`}},
		"nul":     {Command: []string{"printf", `ok \000 done`}},
	}}
	req := Request{Issue: 4, ID: "CLR-4-001", Question: "Why?", Round: 1}
	ctx := context.Background()

	start := time.Now()
	got, err := e.Respond(ctx, "daemon", req)
	if err != nil || got != "the answer" {
		t.Errorf("daemon: %q %v, want the answer", got, err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("daemon: waited %v for its child's output", d)
	}

	start = time.Now()
	_, err = e.Respond(ctx, "group", req)
	if !errcode.Is(err, errcode.AgentError) || !strings.Contains(err.Error(), "timed out") {
		t.Errorf("group: %v", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("group: took %v", d)
	}
	data, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if pid <= 0 {
		t.Fatalf("child pid not written: %q", data)
	}
	// Killed, it may stay a zombie until an init that reaps late collects
	// it: process.Alive counts that as gone.
	deadline := time.Now().Add(5 * time.Second)
	for process.Alive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the responder's child %d outlived the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}

	for agent, want := range map[string]string{"badutf8": "invalid UTF-8", "nul": "NUL byte"} {
		if _, err := e.Respond(ctx, agent, req); !errcode.Is(err, errcode.AgentError) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want AGENT_ERROR %q", agent, err, want)
		}
	}
}

func TestFitKeepsTheWholeAnswer(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := root + "/.agentx/state/answers"
	short := "fine"
	if got := Fit(root, dir, "CLR-4-001", 1, short, 2000); got != short {
		t.Fatalf("short answer changed: %q", got)
	}
	long := strings.Repeat("é", 2500)
	got := Fit(root, dir, "CLR-4-001", 2, long, 2000)
	if n := utf8.RuneCountInString(got); n > 2000 {
		t.Fatalf("body has %d characters", n)
	}
	if !strings.Contains(got, "[answer cut from 2500 to 2000 characters; the whole answer is in .agentx/state/answers/CLR-4-001-round-2.txt]") {
		t.Fatalf("no notice: %q", got[len(got)-200:])
	}
	kept, err := os.ReadFile(dir + "/CLR-4-001-round-2.txt")
	if err != nil || strings.TrimSpace(string(kept)) != long {
		t.Fatalf("whole answer not kept: %v", err)
	}
}

// The request is a documented schema (docs/formats.md): every field of it
// and of its entries carries a json tag, so no Go name (the ledger's
// "Extra" once did) reaches a responder.
func TestRequestSchemaFieldsAreTagged(t *testing.T) {
	t.Parallel()
	for _, typ := range []reflect.Type{reflect.TypeOf(Request{}), reflect.TypeOf(Entry{})} {
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			tag := strings.Split(f.Tag.Get("json"), ",")[0]
			if tag == "" || tag == "-" || tag != strings.ToLower(tag) {
				t.Errorf("%s.%s: json tag %q, want a documented lower-case name", typ.Name(), f.Name, tag)
			}
		}
	}
	raw, err := json.Marshal(Request{Thread: Thread([]ledger.Entry{{Round: 1, From: "engineer", Type: ledger.Question, Body: "Why?"}})})
	if err != nil || strings.Contains(string(raw), "Extra") {
		t.Fatalf("%s %v", raw, err)
	}
}

// CanStart finds what exec would run (on $PATH, or relative to the
// workspace root with a slash) without running it.
func TestCanStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/run.sh", []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Executable, but neither a #! script nor a binary: exec fails with
	// "exec format error" on every request.
	if err := os.WriteFile(dir+"/noshebang.sh", []byte("echo hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/plain.sh", []byte("echo hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := &Exec{Dir: dir, ConfigFile: "/w/.agentx/agentx.toml", Responders: map[string]config.Responder{
		"sh": {Command: []string{"sh", "-c", "true"}}, "rel": {Command: []string{"./run.sh"}},
		"missing": {Command: []string{"agentx-no-such-responder"}}, "plain": {Command: []string{"./plain.sh"}},
		"noshebang": {Command: []string{"./noshebang.sh"}},
	}}
	for agent, want := range map[string]string{
		"sh": "", "rel": "", "nobody": "",
		"missing":   `responder for "missing" cannot start: command "agentx-no-such-responder" ([responders.missing] in /w/.agentx/agentx.toml)`,
		"plain":     `responder for "plain" cannot start: command "./plain.sh" ([responders.plain] in /w/.agentx/agentx.toml)`,
		"noshebang": `responder for "noshebang" cannot start: command "./noshebang.sh" ([responders.noshebang] in /w/.agentx/agentx.toml): not a program`,
	} {
		err := e.CanStart(agent)
		if want == "" && err != nil || want != "" && (!errcode.Is(err, errcode.InvalidInput) || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v, want %q", agent, err, want)
		}
	}
}

// A responder's descendants do not outlive it (issue 26 item 8): a
// `setsid` grandchild, out of the responder's process group, is killed
// at the responder's timeout, and the background children of a responder
// that answered are killed once it has.
func TestRespondLeavesNoDescendants(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("needs /proc")
	}
	dir := t.TempDir()
	pidFile := func(name string) string { return dir + "/" + name + ".pid" }
	setsidTimeout := func(d time.Duration) config.Responder {
		return config.Responder{Command: []string{"sh", "-c", `setsid sleep 300 >/dev/null 2>&1 </dev/null & echo $! >"$0"; sleep 300`, pidFile("a")},
			Timeout: config.Duration{Duration: d}}
	}
	e := &Exec{Dir: dir, Responders: map[string]config.Responder{
		"setsid-timeout": setsidTimeout(300 * time.Millisecond),
		"background": {Command: []string{"sh", "-c", `sleep 300 >/dev/null 2>&1 & echo $! >"$0"; setsid sleep 300 >/dev/null 2>&1 </dev/null & echo $! >"$1"; echo answered`,
			pidFile("b"), pidFile("c")}},
	}}
	req := Request{Issue: 4, ID: "CLR-4-001", Question: "Why?", Round: 1}
	// The timeout must come after the shell started its grandchild and
	// wrote its pid: on a loaded machine 300 ms did not always reach that
	// line (no a.pid). Then again with twice the time, until it has.
	for d := 300 * time.Millisecond; ; d *= 2 {
		e.Responders["setsid-timeout"] = setsidTimeout(d)
		if _, err := e.Respond(context.Background(), "setsid-timeout", req); err == nil || !strings.Contains(err.Error(), "timed out") {
			t.Fatalf("setsid-timeout: %v", err)
		}
		if _, err := os.Stat(pidFile("a")); err == nil || d > time.Minute {
			break
		}
	}
	if got, err := e.Respond(context.Background(), "background", req); err != nil || got != "answered" {
		t.Fatalf("background: %q %v", got, err)
	}
	for _, name := range []string{"a", "b", "c"} {
		data, err := os.ReadFile(pidFile(name))
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(3 * time.Second)
		for running(pid) {
			if time.Now().After(deadline) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("descendant %s (pid %d) outlived its responder", name, pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// running: the process exists and is no zombie.
func running(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
