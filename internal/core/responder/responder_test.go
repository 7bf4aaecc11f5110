package responder

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/testenv"
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
	if err := testenv.WriteExecutable(dir+"/run.sh", []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Executable, but neither a #! script nor a binary: exec fails with
	// "exec format error" on every request.
	if err := testenv.WriteExecutable(dir+"/noshebang.sh", []byte("echo hi\n"), 0o755); err != nil {
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
