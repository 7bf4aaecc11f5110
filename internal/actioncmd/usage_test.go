package actioncmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/clock"
)

// Usage mistakes exit 2 with the error on stderr's first line.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"demo", "extra"}, {"bogus"}} {
		var out, errOut bytes.Buffer
		a := &App{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }, Clock: clock.Real{}}
		if code := a.Run(context.Background(), args); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		if first, _, _ := strings.Cut(errOut.String(), "\n"); !strings.HasPrefix(first, "error: usage: ") {
			t.Errorf("%v: first stderr line %q", args, first)
		}
	}
}
