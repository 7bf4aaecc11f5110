package recall

import (
	"context"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/config"
)

func TestOff(t *testing.T) {
	no, zero, some := false, 0, 500
	for _, tc := range []struct {
		name   string
		m      config.MemorySettings
		budget int
		off    bool
	}{
		{"defaults recall", config.MemorySettings{}, 0, false},
		{"memory disabled", config.MemorySettings{Enabled: &no}, 300, true},
		{"max_tokens 0", config.MemorySettings{MaxTokens: &zero}, 0, true},
		{"max_tokens 0, a budget asked for", config.MemorySettings{MaxTokens: &zero}, 300, false},
		{"max_tokens set", config.MemorySettings{MaxTokens: &some}, 0, false},
	} {
		if got := Off(tc.m, tc.budget); (got != "") != tc.off {
			t.Errorf("%s: Off = %q, want off %v", tc.name, got, tc.off)
		}
	}
}

func TestCheckBudgetAndFor(t *testing.T) {
	for _, tc := range []struct {
		budget int
		ok     bool
	}{{0, true}, {MinBudget, true}, {-1, false}, {MinBudget - 1, false}} {
		if err := CheckBudget(tc.budget); (err == nil) != tc.ok {
			t.Errorf("CheckBudget(%d) = %v", tc.budget, err)
		}
	}
	for _, tc := range []struct {
		format  string
		write   bool
		host    string
		preview bool
	}{{"text", false, "text", true}, {"json", false, "json", true}, {"claude", false, "claude", false}, {"text", true, "copilot", false}} {
		var r Request
		r.For(tc.format, tc.write)
		if r.Host != tc.host || r.Preview != tc.preview {
			t.Errorf("For(%q, %v) = %q %v", tc.format, tc.write, r.Host, r.Preview)
		}
	}
}

func TestWriteInstructionsLine(t *testing.T) {
	root := t.TempDir()
	req := Request{Agent: "engineer", Issue: 4, HasIssue: true}
	for _, tc := range []struct {
		name, text, off, prefix string
	}{
		{"off", "", "Memory is disabled ([memory] enabled = false).", "Memory is disabled ([memory] enabled = false). " + InstructionsFile + " left as it is."},
		{"written", "## Memory Recall\nx\n", "", "Wrote " + InstructionsFile + " ("},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line, err := WriteInstructionsLine(root, req, tc.text, tc.off)
			if err != nil || !strings.HasPrefix(line, tc.prefix) {
				t.Errorf("line %q, err %v", line, err)
			}
		})
	}
}

func TestSectionOff(t *testing.T) {
	no := false
	res, off, text, err := (&Service{}).Section(context.Background(), config.MemorySettings{Enabled: &no}, Request{Agent: "a"})
	if off == "" || text != "" || err != nil || len(res.Shown) != 0 {
		t.Errorf("Section with memory disabled = %q %q %v", off, text, err)
	}
}
