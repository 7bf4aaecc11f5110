package recall

import (
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
