package intake

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/capture"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
)

// secretsOf returns every example of every kind of secret, each with the
// part its redaction must remove.
func secretsOf() (examples, values []string) {
	for _, k := range sanitize.Kinds() {
		for _, ex := range k.Examples {
			examples = append(examples, ex.In)
			values = append(values, ex.Secret())
		}
	}
	return examples, values
}

// TestSpoolHoldsNoSecret: a hook killed right after the spool write
// (SpoolOnly) leaves a file with no planted secret and no private region,
// from a summary and from a hook payload's text fields.
func TestSpoolHoldsNoSecret(t *testing.T) {
	t.Parallel()
	examples, values := secretsOf()
	const private = "<Private >the private part</private>"
	body := "## Decisions\n- " + strings.Join(examples, "\n- ") + "\n- keep " + private + " out\n"
	payload, err := json.Marshal(map[string]any{
		"session_id": "s1", "hook_event_name": "PreCompact", "cwd": "/repo", "transcript_path": "/tmp/t.jsonl",
		"compact_summary": body, "last_assistant_message": body,
		"tool_input": map[string]any{"command": []any{body}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{body, string(payload)} {
		x, _, _ := newIntake(t)
		x.SpoolOnly = true
		in := capture.ParseInput([]byte(raw))
		c, err := New("engineer", 42, &in, "sess")
		if err != nil {
			t.Fatal(err)
		}
		rep, err := x.Durably(context.Background(), c)
		if err != nil || !rep.Deferred {
			t.Fatalf("durably: %+v %v", rep, err)
		}
		files, _ := filepath.Glob(filepath.Join(x.Spool.Dir(), "*"))
		if len(files) == 0 {
			t.Fatal("nothing spooled")
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range values {
				if strings.Contains(string(data), v) {
					t.Errorf("%s keeps %q (from %q)", filepath.Base(f), v, examples[i])
				}
			}
			if strings.Contains(string(data), "the private part") {
				t.Errorf("%s keeps the private region", filepath.Base(f))
			}
			if strings.HasPrefix(raw, "{") && !strings.Contains(string(data), `"transcript_path":"/tmp/t.jsonl"`) {
				t.Errorf("the payload's identifiers changed: %s", data)
			}
		}
	}
}

// TestNowOrLaterTheSame: a capture processed at once stores what the same
// capture stores when a later hook start finishes it from the sanitised
// spool file, secrets and all.
func TestNowOrLaterTheSame(t *testing.T) {
	t.Parallel()
	examples, values := secretsOf()
	body := "## Decisions\n- " + strings.Join(examples, "\n- ") + "\n- keep <private>x</private> out\n"
	contents := func(later bool) []string {
		x, st, _ := newIntake(t)
		x.SpoolOnly = later
		in := capture.ParseInput([]byte(body))
		c, err := New("engineer", 42, &in, "sess")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := x.Durably(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		if later {
			x.SpoolOnly = false
			if reps := x.Leftovers(context.Background()); len(reps) != 1 {
				t.Fatalf("leftovers: %v", reps)
			}
		}
		var out []string
		for _, o := range st.obs {
			out = append(out, o.Content)
		}
		return out
	}
	now, later := contents(false), contents(true)
	if strings.Join(now, "\n") != strings.Join(later, "\n") || len(now) == 0 {
		t.Fatalf("now:\n%q\nlater:\n%q", now, later)
	}
	for _, v := range values {
		if strings.Contains(strings.Join(now, "\n"), v) {
			t.Errorf("memory keeps %q", v)
		}
	}
}

// BenchmarkSanitizedPayload is what the spool write now costs on top of
// hook finish for a host payload with a compact summary of 8 KB.
func BenchmarkSanitizedPayload(b *testing.B) {
	text := strings.Repeat("We decided to store observations per issue; the token is refreshed by the middleware.\n", 100)
	payload, _ := json.Marshal(map[string]any{"session_id": "s1", "hook_event_name": "PreCompact", "cwd": "/repo",
		"transcript_path": "/tmp/t.jsonl", "compact_summary": text})
	e := Entry{Agent: "engineer", Issue: 42, Payload: payload}
	b.SetBytes(int64(len(payload)))
	for b.Loop() {
		if _, err := e.Sanitized(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSanitizedSummary: a 100 KB session summary, sanitised whole.
func BenchmarkSanitizedSummary(b *testing.B) {
	e := Entry{Agent: "engineer", Issue: 42, Summary: strings.Repeat("- We decided to keep sessions server side; password = hunter2 was rotated.\n", 1400)}
	b.SetBytes(int64(len(e.Summary)))
	for b.Loop() {
		if _, err := e.Sanitized(); err != nil {
			b.Fatal(err)
		}
	}
}
