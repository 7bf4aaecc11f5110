package actiondemo

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestDemo runs the newcomer's tour end to end: it must succeed and say
// what happened to the resolved issue, not just stop after alice's comment.
func TestDemo(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := Run(context.Background(), &out); err != nil {
		t.Fatalf("demo: %v", err)
	}
	for _, want := range []string{
		"-- issue #42   labels: clarification-blocked",
		"== sync again, nothing changed -> 3 API calls",
		"ledger on the state branch: CLR-7-001 is resolved by alice",
		"so no bot comment repeats it",
		"Demo complete.",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "\x1b[") {
		t.Errorf("demo output holds escape codes")
	}
}
