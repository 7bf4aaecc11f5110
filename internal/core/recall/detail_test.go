package recall

import (
	"testing"

	"github.com/agentx-dev/agentx/internal/core/memory"
)

// A content whose first line is the summary (a settled clarification's
// observation) shows the summary once, on the statement's line, and only
// the rest under it: the first session's recall printed that line twice
// (issue 37).
func TestDetailLeavesOutTheSummaryLine(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		summary, content, want string
	}{
		{"CLR-42-001 settled (auth): Middleware.", "CLR-42-001 settled (auth): Middleware.\nengineer asked architect; 2 round(s).\nQuestion: Where?",
			"  engineer asked architect; 2 round(s).\n  Question: Where?\n"},
		{"Chose gRPC", "Chose gRPC", ""},
		{"Chose gRPC", "We chose gRPC streaming\nfor the feed", "  We chose gRPC streaming\n  for the feed\n"},
	} {
		if got := detail(&memory.Observation{Summary: tt.summary, Content: tt.content}); got != tt.want {
			t.Errorf("detail(%q, %q) = %q, want %q", tt.summary, tt.content, got, tt.want)
		}
	}
}
