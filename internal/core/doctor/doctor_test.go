package doctor

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// fakeProbe answers doctor's questions from values.
type fakeProbe struct{ bin Binary }

func (p fakeProbe) Binary(context.Context) Binary            { return p.bin }
func (fakeProbe) MCPBinary() (string, error)                 { return "", errors.New("none") }
func (fakeProbe) LoginShell(context.Context) (string, error) { return "", ErrNoShell }
func (fakeProbe) Git(context.Context, ...string) (string, error) {
	return "", errors.New("no git")
}
func TestBinaryFinding(t *testing.T) {
	for _, tc := range []struct {
		name      string
		bin       Binary
		status    string
		msg       string
		fixWanted bool
	}{
		{"not on PATH", Binary{}, StatusFail, "is not on PATH", true},
		{"this binary", Binary{Path: "/bin/agentx-hook", Self: true, Version: "v1"}, StatusOK, "is this agentx-hook (v1)", false},
		{"does not run", Binary{Path: "/bin/agentx-hook", Err: errors.New("exit 2")}, StatusFail, "does not run", true},
		{"another version", Binary{Path: "/bin/agentx-hook", Version: "v1", Theirs: "v0"}, StatusWarn, "is v0, this agentx-hook is v1", true},
		{"same version", Binary{Path: "/bin/agentx-hook", Version: "v1", Theirs: "v1", Same: true}, StatusOK, "is this version (v1)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &run{in: Input{}, p: fakeProbe{bin: tc.bin}}
			d.binary(context.Background())
			if len(d.findings) != 1 {
				t.Fatalf("findings = %+v", d.findings)
			}
			f := d.findings[0]
			if f.Check != "binary" || f.Status != tc.status || !strings.Contains(f.Message, tc.msg) || (f.Fix != "") != tc.fixWanted {
				t.Errorf("finding = %+v, want status %s, message containing %q, fix %v", f, tc.status, tc.msg, tc.fixWanted)
			}
		})
	}
}

func TestCount(t *testing.T) {
	fails, warns := Count([]Finding{{Status: StatusOK}, {Status: StatusWarn}, {Status: StatusFail}, {Status: StatusFail}})
	if fails != 2 || warns != 1 {
		t.Errorf("Count = %d fails, %d warns; want 2, 1", fails, warns)
	}
}

func TestUnknownAgent(t *testing.T) {
	for _, tc := range []struct {
		agent   string
		known   []string
		unknown bool
	}{
		{"engineer", nil, false},
		{"engineer", []string{"engineer", "reviewer"}, false},
		{"pm", []string{"engineer", "reviewer"}, true},
		{"Bad Name!", nil, true},
	} {
		if got := unknownAgent(tc.agent, tc.known) != ""; got != tc.unknown {
			t.Errorf("unknownAgent(%q, %v) unknown = %v, want %v", tc.agent, tc.known, got, tc.unknown)
		}
	}
}

func TestInstallFix(t *testing.T) {
	for _, tc := range []struct{ self, want string }{
		{"", "git clone https://github.com/agentx-dev/agentx"},
		{"/tmp/go-build1/hookcmd.test", "git clone https://github.com/agentx-dev/agentx"},
		{filepath.Join("opt", "bin", "agentx-hook"), `export PATH="` + filepath.Join("opt", "bin")},
	} {
		d := &run{in: Input{Self: tc.self}}
		if got := d.installFix(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("installFix with self %q = %q, want it to start %q", tc.self, got, tc.want)
		}
	}
}
