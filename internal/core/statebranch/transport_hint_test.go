package statebranch

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// TestTransportErrHints: what GitHub prints when a push is refused for
// the branch's protection or a ruleset gets the writable-branch hint, not
// the network one, whatever its case ("GH006: Protected branch update
// failed", "GH013: Repository rule violations"), and a network failure
// keeps its own.
func TestTransportErrHints(t *testing.T) {
	t.Parallel()
	writable := "must be writable"
	for _, c := range []struct{ msg, want string }{
		{"remote: error: GH006: Protected branch update failed for refs/heads/agentx/state.\n" +
			"remote: error: Changes must be made through a pull request.\n" +
			"!\tHEAD:refs/heads/agentx/state\t[remote rejected] (pre-receive hook declined)", writable},
		{"remote: error: GH013: Repository rule violations found for refs/heads/agentx/state.\n" +
			"!\tHEAD:refs/heads/agentx/state\t[remote rejected] (push declined due to repository rule violations)", writable},
		{"!\tHEAD:refs/heads/agentx/state\t[remote rejected] (protected branch hook declined)", writable},
		{"remote: Permission to o/r.git denied to bot.\nfatal: unable to access 'https://github.com/o/r.git/': The requested URL returned error: 403", writable},
		{"fatal: unable to access 'https://github.com/o/r.git/': Could not resolve host: github.com", "the next sync catches up"},
	} {
		err := transportErr("push", "origin", "agentx/state", c.msg, errors.New("exit status 1"))
		var e *errcode.Error
		if !errors.As(err, &e) || !strings.Contains(e.Hint, c.want) {
			t.Errorf("%q: hint %q, want one saying %q", c.msg, e.Hint, c.want)
		}
	}
}
