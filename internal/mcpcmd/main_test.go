package mcpcmd

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/agentx-dev/agentx/internal/hookcmd"
	"github.com/agentx-dev/agentx/internal/testbin"
	"github.com/agentx-dev/agentx/internal/testenv"

	// Race-built processes skip the race detector's exit sleep.
	_ "github.com/agentx-dev/agentx/internal/gorace"
)

// TestMain puts this test binary on $PATH twice: as agentx-mcp (the server
// linked in, as cmd/agentx-mcp) and as agentx-hook (without it, as
// cmd/agentx-hook), so the tests start `agentx-hook mcp` as a host does
// and it finds and runs agentx-mcp beside it.
func TestMain(m *testing.M) {
	switch filepath.Base(os.Args[0]) {
	case "agentx-mcp":
		os.Exit(Main(os.Args[1:]))
	case "agentx-hook":
		os.Exit(hookcmd.Main(os.Args[1:]))
	}
	bin, err := os.MkdirTemp("", "agentx-mcp-test")
	if err != nil {
		panic(err)
	}
	for _, name := range []string{"agentx-mcp", "agentx-hook"} {
		if err := testbin.InstallSelf(filepath.Join(bin, name)); err != nil {
			panic(err)
		}
	}
	_ = os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	ramTmp := testenv.UseRAMTempDir() // after bin, as in hookcmd
	code := m.Run()
	_ = os.RemoveAll(bin)
	ramTmp()
	os.Exit(code)
}

func initWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	cmd := exec.Command("agentx-hook", "--root", root, "init")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	return root
}

// TestAgentxHookWithoutMCPBinary: agentx-hook alone says where the server
// is and how to install it, and exits non-zero.
func TestAgentxHookWithoutMCPBinary(t *testing.T) {
	t.Parallel()
	root := initWorkspace(t)
	dir := t.TempDir()
	hook := filepath.Join(dir, "agentx-hook")
	if err := testbin.InstallSelf(hook); err != nil {
		t.Fatal(err)
	}
	var out []byte
	var err error
	for range 50 {
		cmd := exec.Command(hook, "--root", root, "mcp")
		cmd.Env = append(os.Environ(), "PATH="+dir)
		out, err = cmd.CombinedOutput()
		// The copy just written may still be open for writing in a child
		// another test forked meanwhile (until that child execs).
		if !errors.Is(err, syscall.ETXTBSY) {
			break
		}
	}
	if err == nil {
		t.Fatalf("served without agentx-mcp:\n%s", out)
	}
	if got := string(out); !strings.Contains(got, "error: NOT_FOUND: the MCP server is the separate binary agentx-mcp") || !strings.Contains(got, "GOBIN="+dir+" go install ./cmd/agentx-mcp") {
		t.Fatalf("%v, output:\n%s", err, got)
	}
}

func TestWithMCP(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want []string }{
		{nil, []string{"mcp"}},
		{[]string{"--agent", "x"}, []string{"mcp", "--agent", "x"}},
		{[]string{"--root", "/r"}, []string{"--root", "/r", "mcp"}},
		{[]string{"--root=/r", "--agent", "x"}, []string{"--root=/r", "mcp", "--agent", "x"}},
		{[]string{"--root", "/r", "mcp", "--agent", "x"}, []string{"--root", "/r", "mcp", "--agent", "x"}},
		{[]string{"version"}, []string{"version"}},
	} {
		if got := withMCP(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("withMCP(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
