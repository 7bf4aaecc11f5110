package hookcmd

import (
	"errors"
	"testing"
)

// The background rebuild of a fresh clone starts again whatever the binary
// is called; only a Go test binary (which would run its tests) is refused.
func TestPickExecutable(t *testing.T) {
	t.Parallel()
	found := func(p string) (string, error) { return "/usr/bin/" + p, nil }
	missing := func(string) (string, error) { return "", errors.New("not found") }
	for _, c := range []struct {
		argv0, exe string
		look       func(string) (string, error)
		want       string
	}{
		{"agentx-hook", "/opt/x/hookcmd.test", found, "/usr/bin/agentx-hook"},
		{"agentx", "/usr/local/bin/agentx", found, "/usr/local/bin/agentx"},
		{"/home/u/bin/ax", "/home/u/bin/ax", missing, "/home/u/bin/ax"},
		{"agentx-hook", "/usr/local/bin/agentx-hook", missing, "/usr/local/bin/agentx-hook"},
		{"/tmp/go-build1/hookcmd.test", "/tmp/go-build1/hookcmd.test", found, ""},
	} {
		got, err := pickExecutable(c.argv0, c.exe, c.look)
		if got != c.want || (err != nil) != (c.want == "") {
			t.Errorf("pickExecutable(%q, %q) = %q, %v; want %q", c.argv0, c.exe, got, err, c.want)
		}
	}
}
