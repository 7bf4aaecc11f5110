package hookcmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/execpath"
	"github.com/agentx-dev/agentx/internal/iostreams"
)

const mcpUsage = `mcp [--agent NAME]

Serves the clarification and memory verbs as Model Context Protocol tools
over stdio (newline-delimited JSON-RPC on stdin and stdout), for an agent
host that loads MCP servers from the project (` + "`setup`" + ` registers it). The
server acts as one agent: --agent, else $AGENTX_AGENT, else [hooks]
default_agent in agentx.toml (else engineer). Warnings go to stderr.
See docs/mcp.md for the tools.`

// mcpOptions is `mcp`'s command line.
type mcpOptions struct {
	Agent string
}

func parseMCP(a *App, args []string) (*mcpOptions, error) {
	o := &mcpOptions{}
	flags := newFlags(a, "mcp", mcpUsage)
	flags.StringVar(&o.Agent, "agent", "", "the agent `NAME` the server acts as (else $AGENTX_AGENT, else [hooks] default_agent)")
	return o, parseFlagsOnly(flags, args)
}

// MCPServer serves MCP over the App's stdin and stdout as agent ("": the
// default). A binary that links the MCP SDK sets it (cmd/agentx-mcp, via
// internal/mcpcmd); agentx-hook does not link the SDK (half a millisecond
// of package initialisers at every hook and git-hook start, and oauth2 in
// the hook binary), so its `mcp` runs agentx-mcp instead (forwardMCP).
var MCPServer func(ctx context.Context, a *App, agent string) error

func runMCP(ctx context.Context, a *App, o *mcpOptions) error {
	if MCPServer != nil {
		return MCPServer(ctx, a, o.Agent)
	}
	return forwardMCP(ctx, a, o)
}

// mcpBinary is the executable that serves MCP.
const mcpBinary = "agentx-mcp"

// findCompanion finds a companion binary (agentx-mcp, agentx-view) beside
// this executable (a release archive and `go install ./cmd/...` put them
// together), else on $PATH.
func findCompanion(binary, what string) (string, error) {
	dir := ""
	if self, err := os.Executable(); err == nil {
		dir = filepath.Dir(self)
		if p := execpath.Find(dir, binary); p != "" {
			return p, nil
		}
	}
	if p, err := exec.LookPath(binary); err == nil {
		return p, nil
	}
	return "", errcode.New(errcode.NotFound, "%s is the separate binary %s, and it is neither beside %s nor on $PATH", what, binary, "agentx-hook").
		WithHint(companionInstallHint(binary, dir, buildVersion().Version))
}

// companionInstallHint is the exact command that puts binary beside the
// agentx-hook in dir: the same tagged version from the module proxy, or,
// for a build from a clone (version "dev" or a pseudo-version), the
// clone's own cmd/ directory.
func companionInstallHint(binary, dir, version string) string {
	gobin := ""
	if dir != "" {
		gobin = "GOBIN=" + shellQuote(dir) + " "
	}
	if strings.HasPrefix(version, "v") && !isPseudoVersion(version) {
		return fmt.Sprintf("install it beside agentx-hook: %sgo install github.com/agentx-dev/agentx/cmd/%s@%s (this agentx-hook's version); each release archive carries it", gobin, binary, version)
	}
	return fmt.Sprintf("install it beside agentx-hook: in the clone this agentx-hook was built from, %sgo install ./cmd/%s; each release archive carries it", gobin, binary)
}

// isPseudoVersion reports a version go made up for an untagged commit
// (v0.0.0-20261128123456-abcdef123456, v1.2.4-0.20261128123456-abcdef123456),
// or a build with local changes (+dirty): no tag to install it from.
func isPseudoVersion(v string) bool {
	if strings.Contains(v, "+") {
		return true
	}
	parts := strings.Split(v, "-")
	if len(parts) < 3 {
		return false
	}
	hash, stamp := parts[len(parts)-1], parts[len(parts)-2]
	stamp = stamp[strings.LastIndexByte(stamp, '.')+1:]
	return len(hash) == 12 && len(stamp) == 14 && strings.Trim(stamp, "0123456789") == ""
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// forwardMCP runs `agentx-mcp [--root R] mcp [--agent A]` on this
// process's stdin, stdout and stderr, and exits as it does.
func forwardMCP(ctx context.Context, a *App, o *mcpOptions) error {
	args := []string{"mcp"}
	if o.Agent != "" {
		args = append(args, "--agent", o.Agent)
	}
	return forwardCompanion(ctx, a, mcpBinary, "the MCP server", args)
}

// forwardCompanion runs `binary [--root R] args...`, a companion binary
// that links what agentx-hook must not (the MCP SDK, a web server), on this
// process's streams, and exits as it does. what names it for errors.
func forwardCompanion(ctx context.Context, a *App, binary, what string, args []string) error {
	if strings.HasPrefix(filepath.Base(os.Args[0]), binary) {
		// Named like the companion but built without it: running the
		// companion again would start this very binary.
		return errcode.New(errcode.AgentError, "this %s was built without %s", binary, what).
			WithHint("build it from ./cmd/" + binary)
	}
	exe, err := findCompanion(binary, what)
	if err != nil {
		return err
	}
	if a.rootFlag != "" {
		args = append([]string{"--root", a.rootFlag}, args...)
	}
	return runCompanion(ctx, a, exe, args)
}

// runCompanion runs exe with args on a's streams. When ctx ends (the first
// Ctrl-C or SIGTERM) the companion is interrupted, not killed: it stops
// as it does run alone (agentx-view exits 0), and is killed only if it has
// not within companionStopDelay.
func runCompanion(ctx context.Context, a *App, exe string, args []string) error {
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = a.Stdin, iostreams.Raw(a.Stdout), iostreams.Raw(a.Stderr)
	cmd.Dir = a.Cwd
	interruptOnCancel(cmd)
	err := cmd.Run()
	if ctx.Err() != nil && (err == nil || errors.Is(err, ctx.Err())) {
		return nil // stopped as asked, and cleanly
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() > 0 {
		return &exitCode{ee.ExitCode()} // the companion said why on stderr
	}
	if err != nil {
		return fmt.Errorf("run %s: %w", exe, err)
	}
	return nil
}

// WithDefaultCommand puts name in args when they name no command (only
// global flags, or flags of that command): a companion binary run alone,
// or as `agentx-mcp --agent NAME`, does its one job.
func WithDefaultCommand(args []string, name string) []string {
	i := afterRootFlags(args)
	if i > len(args) || (i < len(args) && args[i] != "" && args[i][0] != '-') {
		return args // a command: mcp, view, version, ...
	}
	return append(append(append([]string(nil), args[:i]...), name), args[i:]...)
}

// companionStopDelay is how long an interrupted companion may take to
// end before it is killed.
const companionStopDelay = 5 * time.Second

// interruptOnCancel makes cmd (made by exec.CommandContext) get an
// interrupt when its context ends, as a companion run alone gets Ctrl-C, so
// it finishes a write and lets its locks go; it is killed only after
// companionStopDelay, or at once where there is no interrupt (Windows).
func interruptOnCancel(cmd *exec.Cmd) {
	cmd.Cancel = func() error {
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
	cmd.WaitDelay = companionStopDelay
}

// exitCode is a status another process chose and already explained.
type exitCode struct{ code int }

func (e *exitCode) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// IssueFor resolves an issue flag value ("" for none) as every command
// does: the value, else $AGENTX_ISSUE, else the branch name.
func (a *App) IssueFor(ctx context.Context, flagValue string) (int, bool, error) {
	return a.issueFor(ctx, flagValue)
}

// Warn prints a warning on stderr, as every command does.
func (a *App) Warn(format string, args ...any) { a.warn(format, args...) }

// BuildVersion is the version this binary reports.
func BuildVersion() string { return buildVersion().Version }
