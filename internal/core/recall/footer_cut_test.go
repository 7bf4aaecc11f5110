package recall

import (
	"strings"
	"testing"
)

// A budget that holds the "more" line but not the displacement line ends
// on the whole "more" line, never mid-word.
func TestSelectSmallBudgetEndsOnWholeLine(t *testing.T) {
	t.Parallel()
	opt := Options{Agent: "engineer", Issue: 5, HasIssue: true, Stored: 4}
	full := Select(nil, Options{Agent: opt.Agent, Issue: 5, HasIssue: true, Stored: 4})
	first, _, ok := strings.Cut(full.Body, "\n")
	if !ok {
		t.Fatalf("want two footer lines, got %q", full.Body)
	}
	opt.MaxChars = len(first) + 10
	got := Select(nil, opt)
	if got.Body != first {
		t.Errorf("Body = %q, want the whole first line %q", got.Body, first)
	}
}
