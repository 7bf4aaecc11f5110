package recall

import "testing"

func TestSectionBudget(t *testing.T) {
	t.Parallel()
	title := len(sectionTitle)
	tests := []struct {
		name      string
		host      string
		maxTokens int
		inHook    bool
		used      int
		want      int
	}{
		{"text: the token budget", "text", 1000, false, 0, 4000 - title},
		{"claude: its ceiling", "claude", 20000, false, 0, ClaudeMaxChars - title},
		{"claude hook: what the rest left", "claude", 20000, true, 3000, ClaudeMaxChars - 3000 - title},
		{"claude hook: nothing left", "claude", 20000, true, ClaudeMaxChars, 0},
		{"codex: tokens", "codex", 20000, false, 0, CodexMaxTokens*CharsPerToken - title},
		{"copilot: file header kept", "copilot", 20000, false, 0, CopilotMaxChars - CopilotHeaderChars - title},
		{"smaller max_tokens wins", "claude", 600, true, 1000, 2400 - title},
		{"recall off", "claude", 0, false, 0, -title},
		{"text hook: no ceiling to share", "text", 100, true, 5000, 400 - title},
	}
	for _, tt := range tests {
		if got := SectionBudget(tt.host, tt.maxTokens, tt.inHook, tt.used); got != tt.want {
			t.Errorf("%s: SectionBudget = %d, want %d", tt.name, got, tt.want)
		}
	}
}
