package responder

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/errcode"
)

func TestRespond(t *testing.T) {
	e := &Exec{Dir: t.TempDir(), Responders: map[string]config.Responder{
		"echo":   {Command: []string{"sh", "-c", `read -r line; printf '%s' "$line" | grep -o '"question":"[^"]*"'`}},
		"fail":   {Command: []string{"sh", "-c", "echo boom >&2; exit 4"}},
		"silent": {Command: []string{"true"}},
		"slow":   {Command: []string{"sleep", "10"}, Timeout: config.Duration{Duration: 100 * time.Millisecond}},
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
		if time.Since(start) > 5*time.Second {
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
