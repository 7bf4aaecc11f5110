package hookcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/recall"
	"github.com/agentx-dev/agentx/internal/core/recalljournal"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
)

// runApp runs one command line in-process against root.
func runApp(t *testing.T, root string, env map[string]string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	a := &App{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Cwd: root, rootFlag: root,
		Clock:  clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)),
		Getenv: func(k string) string { return env[k] }}
	code := a.Run(context.Background(), args)
	return out.String(), errb.String(), code
}

// bigIssue is a workspace whose issue 42 holds far more memory than any
// host shows: 150 observations of about 1,200 characters.
func bigIssue(t *testing.T, config string) string {
	t.Helper()
	root := t.TempDir()
	if _, e, code := runApp(t, root, nil, "", "init"); code != 0 {
		t.Fatalf("init: %s", e)
	}
	if config != "" {
		path := filepath.Join(root, ".agentx", "agentx.toml")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// Change the [memory] table init wrote.
		key := strings.SplitN(config, " =", 2)[0]
		lines := strings.Split(string(data), "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, key+" =") {
				lines[i] = config
			}
		}
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	var obs []memory.Observation
	for i := range 150 {
		ts := base.Add(time.Duration(i) * time.Hour)
		content := fmt.Sprintf("Decision %d: the session store keeps tokens in Redis — “ünïcode” counts. ", i) + strings.Repeat("Controllers never parse JWTs; the middleware validates and refreshes them. ", 15)
		obs = append(obs, memory.Observation{ID: memory.NewID("engineer", 42, ts), Agent: "engineer", IssueNumber: 42,
			Category: memory.Decision, Content: content, Summary: memory.Summarize(content), Tokens: memory.EstimateTokens(content),
			Timestamp: clock.Format(ts), SessionID: "s"})
	}
	st := memory.New(filepath.Join(root, ".agentx", "memory"), nil, clock.Real{})
	st.NoSync = true
	a := &App{Getenv: func(string) string { return "" }, Clock: clock.Real{}, rootFlag: root}
	st.Locks = a.Locks()
	if _, err := st.Import(context.Background(), obs); err != nil {
		t.Fatal(err)
	}
	return root
}

// jsLen is the length Claude Code measures (JavaScript string length).
func jsLen(s string) int { return len(utf16.Encode([]rune(s))) }

func hookContext(t *testing.T, out string) string {
	t.Helper()
	var doc struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not hook JSON: %v\n%s", err, out)
	}
	if doc.HookSpecificOutput.HookEventName != "SessionStart" {
		t.Fatalf("hookEventName %q", doc.HookSpecificOutput.HookEventName)
	}
	return doc.HookSpecificOutput.AdditionalContext
}

// TestRecallWithinEachHostBudget: hook start and memory recall stay inside
// each host's ceiling and [memory] max_tokens, whichever is smaller, and
// still say how many more observations exist.
func TestRecallWithinEachHostBudget(t *testing.T) {
	t.Parallel()
	root := bigIssue(t, "")
	small := bigIssue(t, "max_tokens = 600")
	cases := []struct {
		name     string
		root     string
		args     []string
		hookJSON bool
		maxChars int
	}{
		{"claude hook start", root, []string{"hook", "start", "--agent", "engineer", "--issue", "42", "--format", "claude"}, true, recall.ClaudeMaxChars},
		{"codex hook start", root, []string{"hook", "start", "--agent", "engineer", "--issue", "42", "--format", "codex"}, true, recall.CodexMaxTokens * 4},
		{"claude memory recall", root, []string{"memory", "recall", "--agent", "engineer", "--issue", "42", "--format", "claude"}, true, recall.ClaudeMaxChars},
		{"codex memory recall", root, []string{"memory", "recall", "--agent", "engineer", "--issue", "42", "--format", "codex"}, true, recall.CodexMaxTokens * 4},
		{"text, default 20,000 tokens", root, []string{"memory", "recall", "--agent", "engineer", "--issue", "42"}, false, 20000 * 4},
		{"text, --budget 1000", root, []string{"memory", "recall", "--agent", "engineer", "--issue", "42", "--budget", "1000"}, false, 4000},
		{"claude, max_tokens = 600 is smaller", small, []string{"hook", "start", "--agent", "engineer", "--issue", "42", "--format", "claude"}, true, 2400 + 600},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runApp(t, tc.root, nil, "", tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			text := out
			if tc.hookJSON {
				text = hookContext(t, out)
			}
			if n := jsLen(text); n > tc.maxChars {
				t.Fatalf("%d characters, ceiling %d", n, tc.maxChars)
			}
			if !strings.Contains(text, "## Memory Recall\n"+sanitize.NotesLine+"\n> - obs-engineer-42-") {
				t.Fatalf("no recall in:\n%s", text)
			}
			if !strings.Contains(text, "more observation(s) not shown; search them: agentx-hook memory search") ||
				!strings.Contains(text, "Memory recall displaced") {
				t.Fatalf("no more/displacement line in:\n%s", text)
			}
			// The newest decision leads, with its full content.
			if !strings.Contains(text, "Decision 149: the session store") || !strings.Contains(text, "\n>   Decision 149: ") {
				t.Fatalf("newest decision not first with content:\n%.600s", text)
			}
		})
	}
}

func TestRecallWriteInstructions(t *testing.T) {
	t.Parallel()
	root := bigIssue(t, "")
	out, errOut, code := runApp(t, root, nil, "", "memory", "recall", "--agent", "engineer", "--issue", "42", "--write-instructions")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(instructionsFile)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "---\napplyTo: \"**\"\n---\n") || !strings.Contains(string(data), "## Memory Recall") {
		t.Fatalf("instructions:\n%.400s", data)
	}
	if n := jsLen(string(data)); n > recall.CopilotMaxChars {
		t.Fatalf("instructions file of %d characters", n)
	}
	if !strings.Contains(out, "Wrote "+instructionsFile) {
		t.Fatalf("out: %s", out)
	}
}

// TestMemorySwitches: enabled = false makes both hook paths return at
// once; max_tokens = 0 keeps capture and turns recall off (SPEC 9.5).
func TestMemorySwitches(t *testing.T) {
	t.Parallel()
	summary := "## Decisions\n- Use a sliding-window rate limiter for the login endpoint.\n"
	t.Run("disabled", func(t *testing.T) {
		root := bigIssue(t, "enabled = false")
		out, _, _ := runApp(t, root, nil, summary, "hook", "finish", "--agent", "engineer", "--issue", "42")
		if strings.Contains(out, "Memory") {
			t.Fatalf("finish with memory disabled:\n%s", out)
		}
		out, _, _ = runApp(t, root, nil, "", "hook", "start", "--agent", "engineer", "--issue", "42")
		if strings.Contains(out, "Memory") {
			t.Fatalf("start with memory disabled:\n%s", out)
		}
		if _, err := os.Stat(filepath.Join(root, ".agentx", "memory", "spool")); err == nil {
			t.Fatal("the spool was written with memory disabled")
		}
		out, _, _ = runApp(t, root, nil, "", "memory", "recall", "--agent", "engineer", "--issue", "42")
		if !strings.Contains(out, "Memory is disabled") {
			t.Fatalf("recall: %s", out)
		}
	})
	t.Run("max_tokens = 0", func(t *testing.T) {
		root := bigIssue(t, "max_tokens = 0")
		out, _, _ := runApp(t, root, nil, summary, "hook", "finish", "--agent", "engineer", "--issue", "42")
		if !strings.Contains(out, "Stored 1 observation(s)") {
			t.Fatalf("capture should still run:\n%s", out)
		}
		out, _, _ = runApp(t, root, nil, "", "hook", "start", "--agent", "engineer", "--issue", "42")
		if strings.Contains(out, "Memory Recall") {
			t.Fatalf("recall with max_tokens = 0:\n%s", out)
		}
		out, _, _ = runApp(t, root, nil, "", "memory", "recall", "--agent", "engineer", "--issue", "42")
		if !strings.Contains(out, "recall is off") {
			t.Fatalf("recall: %s", out)
		}
	})
}

// TestRecallCountsJournalled: hook start journals what it recalled (one
// append), scoring counts the journal, and hook finish folds it into the
// store's recall counts exactly once.
func TestRecallCountsJournalled(t *testing.T) {
	t.Parallel()
	root := bigIssue(t, "")
	for range 2 {
		if _, e, code := runApp(t, root, nil, "", "hook", "start", "--agent", "engineer", "--issue", "42", "--format", "claude"); code != 0 {
			t.Fatal(e)
		}
	}
	journal := filepath.Join(root, ".agentx", "memory", "pending", "recall-pending.jsonl")
	pending := recalljournal.New(journal, nil).Pending()
	newest := memory.NewID("engineer", 42, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC).Add(149*time.Hour))
	var id string
	for k, n := range pending {
		if strings.HasPrefix(k, newest[:len(newest)-6]) {
			id = k
			if n != 2 {
				t.Fatalf("%s journalled %d times, want 2", k, n)
			}
		}
	}
	if id == "" {
		t.Fatalf("newest observation not journalled: %v", pending)
	}
	if _, e, code := runApp(t, root, nil, "", "hook", "finish", "--agent", "engineer", "--issue", "42"); code != 0 {
		t.Fatal(e)
	}
	if _, err := os.Stat(journal); err == nil {
		t.Fatal("journal left after hook finish")
	}
	out, _, _ := runApp(t, root, nil, "", "memory", "get", id)
	if !strings.Contains(out, "Recalled: 2") {
		t.Fatalf("after folding:\n%s", out)
	}
	// Folding again changes nothing.
	runApp(t, root, nil, "", "hook", "finish", "--agent", "engineer", "--issue", "42")
	if out, _, _ := runApp(t, root, nil, "", "memory", "get", id); !strings.Contains(out, "Recalled: 2") {
		t.Fatalf("folded twice:\n%s", out)
	}
}
