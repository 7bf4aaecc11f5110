package actioncmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/sync"
)

// TestActionDigestDaysPastTheLimit: the input days has the CLI's range,
// 1 to 3660 (digest.MaxDays); past it the step fails naming the input, the
// range and the value, and opens no digest issue (it had no upper bound).
func TestActionDigestDaysPastTheLimit(t *testing.T) {
	t.Parallel()
	for _, days := range []string{"3661", "0", "2000000000"} {
		fake, r, monday := digestRunner(t)
		r.env["INPUT_DAYS"] = days
		var stdout, stderr bytes.Buffer
		a := &App{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return r.env[k] }, Cwd: r.workspace, Clock: clock.NewFake(monday)}
		code := a.Run(context.Background(), nil)
		log := stdout.String() + stderr.String()
		if code != 2 || !strings.Contains(log, `input days: "`+days+`" is not a whole number of days from 1 to 3660`) {
			t.Errorf("days %s: exit %d, want 2 naming the range:\n%s", days, code, log)
		}
		if got := fake.IssuesLabelled(sync.DigestLabel); len(got) != 0 {
			t.Errorf("days %s: digest issues %v opened", days, got)
		}
	}
}
