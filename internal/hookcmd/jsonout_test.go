package hookcmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/testbin"
)

// gh's conventions on every --json command (issue 37): --json=FIELD,...
// keeps those keys and names the others when one is unknown; --jq and
// --template filter and format; a bad expression is refused before the
// command acts.
func TestJSONFieldsJQAndTemplate(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if _, e, code := runApp(t, root, nil, "", "init"); code != 0 {
		t.Fatalf("init: %s", e)
	}
	if _, e, code := runApp(t, root, nil, "", "clarify", "request", "--issue", "4", "--from", "engineer", "--to", "architect",
		"--topic", "api", "--question", "REST or gRPC?", "--non-blocking"); code != 0 {
		t.Fatalf("request: %s", e)
	}
	out, e, code := runApp(t, root, nil, "", "clarify", "--issue", "4", "--json=issueNumber")
	if code != 0 || out != "{\n  \"issueNumber\": 4,\n  \"schemaVersion\": 2\n}\n" {
		t.Errorf("--json=issueNumber: exit %d\n%s%s", code, out, e)
	}
	out, e, code = runApp(t, root, nil, "", "clarify", "--issue", "4", "--json=issue,clarifications")
	if code != 2 || !strings.Contains(e, "--json: unknown field issue; this command's fields: clarifications, issueNumber") {
		t.Errorf("an unknown field: exit %d\n%s%s", code, out, e)
	}
	out, e, code = runApp(t, root, nil, "", "clarify", "--issue", "4", "--jq", ".clarifications[].id")
	if code != 0 || out != "CLR-4-001\n" {
		t.Errorf("--jq: exit %d\n%s%s", code, out, e)
	}
	out, e, code = runApp(t, root, nil, "", "clarify", "show", "CLR-4-001", "--template", "{{.clarification.to}}: {{.clarification.topic}}")
	if code != 0 || out != "architect: api" {
		t.Errorf("--template: exit %d\n%q%s", code, out, e)
	}
	// A bad expression is a usage error, and the command did nothing.
	_, e, code = runApp(t, root, nil, "", "clarify", "request", "--issue", "4", "--from", "engineer", "--to", "architect",
		"--topic", "db", "--question", "Which?", "--non-blocking", "--jq", ".[")
	if code != 2 || !strings.Contains(e, `--jq ".["`) {
		t.Errorf("a bad --jq: exit %d %s", code, e)
	}
	if out, _, _ := runApp(t, root, nil, "", "clarify", "--issue", "4", "--jq", ".clarifications | length"); out != "1\n" {
		t.Errorf("the request with a bad --jq ran: %s clarifications", out)
	}
	if _, e, code = runApp(t, root, nil, "", "state", "--jq", ".agents", "--template", "x"); code != 2 || !strings.Contains(e, "one at a time") {
		t.Errorf("--jq with --template: exit %d %s", code, e)
	}
}

// Every command that prints a --json document offers --jq and --template.
func TestEveryJSONCommandTakesJQAndTemplate(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, name := range jsonCommands() {
		args := append(strings.Fields(name), "--help")
		out, _, _ := runApp(t, root, nil, "", args...)
		if !strings.Contains(out, "--jq expression") || !strings.Contains(out, "--template template") {
			t.Errorf("%s --help lists no --jq or --template:\n%s", name, out)
		}
	}
}

// agentx-hook does not link the filter (gojq's initialisers would cost
// every hook's start): a command line with --jq goes to agentx-mcp, here
// the test binary under that name with the filter set, and its output and
// exit status are agentx-hook's.
func TestJQRunsThroughAgentxMCP(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if _, e, code := runApp(t, root, nil, "", "init"); code != 0 {
		t.Fatalf("init: %s", e)
	}
	cmd := exec.Command("agentx-hook", "--root", root, "state", "--jq", ".schemaVersion")
	cmd.Dir = os.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "2\n" {
		t.Fatalf("agentx-hook state --jq: %v %q", err, out)
	}
	cmd = exec.Command("agentx-hook", "--root", root, "state", "--jq", ".[")
	out, _ = cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "bad expression") {
		t.Errorf("a bad --jq through agentx-mcp: exit %d %s", cmd.ProcessState.ExitCode(), out)
	}
	if _, err := os.Stat(filepath.Join(root, ".agentx")); err != nil {
		t.Fatal(err)
	}
}

// Without agentx-mcp, --jq says exactly what to install and where: the
// same tagged version from the module proxy, else the clone's cmd/.
func TestJQWithoutAgentxMCPSaysWhatToInstall(t *testing.T) {
	t.Parallel()
	root, alone := t.TempDir(), t.TempDir()
	if _, e, code := runApp(t, root, nil, "", "init"); code != 0 {
		t.Fatalf("init: %s", e)
	}
	if err := testbin.InstallSelf(filepath.Join(alone, "agentx-hook")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(alone, "agentx-hook"), "--root", root, "state", "--jq", ".schemaVersion")
	cmd.Env = append(os.Environ(), "PATH=/usr/bin:/bin")
	out, _ := cmd.CombinedOutput()
	want := "GOBIN=" + alone + " go install ./cmd/agentx-mcp"
	if cmd.ProcessState.ExitCode() == 0 || !strings.Contains(string(out), "NOT_FOUND") || !strings.Contains(string(out), want) {
		t.Fatalf("--jq without agentx-mcp: exit %d, want NOT_FOUND naming %q:\n%s", cmd.ProcessState.ExitCode(), want, out)
	}
	for _, tt := range []struct{ version, want string }{
		{"v1.2.3", "GOBIN=/opt/bin go install github.com/agentx-dev/agentx/cmd/agentx-mcp@v1.2.3"},
		{"v0.0.0-20261128123456-abcdef123456", "GOBIN=/opt/bin go install ./cmd/agentx-mcp"},
		{"v1.2.4-0.20261128123456-abcdef123456", "GOBIN=/opt/bin go install ./cmd/agentx-mcp"},
		{"v1.2.3+dirty", "GOBIN=/opt/bin go install ./cmd/agentx-mcp"},
		{"dev", "GOBIN=/opt/bin go install ./cmd/agentx-mcp"},
	} {
		if got := companionInstallHint("agentx-mcp", "/opt/bin", tt.version); !strings.Contains(got, tt.want) {
			t.Errorf("version %s: %q, want %q in it", tt.version, got, tt.want)
		}
	}
	if got := companionInstallHint("agentx-mcp", "/my tools", "dev"); !strings.Contains(got, "GOBIN='/my tools' go") {
		t.Errorf("a directory with a space: %q", got)
	}
}
