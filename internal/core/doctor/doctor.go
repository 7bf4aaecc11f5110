// Package doctor owns what `agentx-hook doctor` finds: whether agentx is
// wired and working in a workspace (the binary the hosts call, the
// workspace and its agent, the hosts' settings files, the state branch,
// the git hooks and merge driver, .agentx/.gitignore, the last hook runs),
// each as a Finding with the exact command that fixes it. It reads files
// and writes nothing; whatever calls out (PATH lookups, another binary,
// git and the remote) goes through the caller's Probe.
package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Statuses of a finding.
const (
	StatusOK   = "ok"
	StatusWarn = "warn"
	StatusFail = "fail"
)

// Finding is one thing doctor checked.
type Finding struct {
	Check   string `json:"check"`
	Status  string `json:"status"`
	Message string `json:"message"`
	// Fix is the command that fixes it ("" when nothing needs fixing).
	Fix string `json:"fix,omitempty"`
}

// Timeout bounds each check that starts a process or reaches a remote:
// doctor answers in seconds whatever the network does.
const Timeout = 5 * time.Second

// Binary is what the caller found of the agentx-hook every host file and
// git hook calls by name.
type Binary struct {
	// Path is the agentx-hook on PATH ("" when there is none).
	Path string
	// Self: Path is the running binary.
	Self bool
	// Version is the running binary's version, Theirs Path's; Same when
	// they are one build.
	Version, Theirs string
	Same            bool
	// Err is why Path's `version --json` did not answer.
	Err error
}

// Probe is what doctor asks of the world outside the workspace's files.
type Probe interface {
	// Binary finds the agentx-hook on PATH and asks its version.
	Binary(ctx context.Context) Binary
	// MCPBinary is the path of the MCP server `agentx-hook mcp` runs.
	MCPBinary() (string, error)
	// LoginShell is where `bash -lc 'command -v agentx-hook'` finds
	// agentx-hook ("" or an error: it does not; ErrNoShell: no bash).
	LoginShell(ctx context.Context) (string, error)
	// Git runs git in the workspace's root to reach the remote (remote
	// get-url, ls-remote).
	Git(ctx context.Context, args ...string) (string, error)
}

// Input is the workspace doctor checks, as the command sees it.
type Input struct {
	Workspace workspace.Workspace
	// Config is the loaded configuration, or ConfigErr why it does not load.
	Config    *config.Set
	ConfigErr error
	// Getenv reads the environment the hosts start their hooks with.
	Getenv func(string) string
	Now    time.Time
	// Self is the running executable's path ("" when unknown): the
	// install fix puts its directory on PATH when it is agentx-hook.
	Self string
	// MCPName is the MCP server's executable name.
	MCPName string
}

// Check runs every check, in the order doctor prints them.
func Check(ctx context.Context, in Input, p Probe) []Finding {
	d := &run{in: in, p: p}
	d.binary(ctx)
	cfgOK := d.workspace()
	if cfgOK {
		d.agent()
	}
	d.hosts(ctx)
	if cfgOK {
		d.stateBranch(ctx)
	}
	d.gitHooks(ctx)
	d.gitignore()
	d.hookRuns()
	return d.findings
}

// Count is how many findings failed and warned.
func Count(findings []Finding) (fails, warns int) {
	for _, f := range findings {
		switch f.Status {
		case StatusFail:
			fails++
		case StatusWarn:
			warns++
		}
	}
	return fails, warns
}

// run gathers the findings of one Check.
type run struct {
	in       Input
	p        Probe
	findings []Finding
}

func (d *run) add(check, status, fix, format string, args ...any) {
	d.findings = append(d.findings, Finding{Check: check, Status: status, Message: fmt.Sprintf(format, args...), Fix: fix})
}

// config is the configuration when it loads (nil else).
func (d *run) config() *config.Set {
	if d.in.ConfigErr != nil {
		return nil
	}
	return d.in.Config
}

// binary checks the agentx-hook every host file and git hook calls by
// name: on the PATH, and this version.
func (d *run) binary(ctx context.Context) {
	b := d.p.Binary(ctx)
	switch {
	case b.Path == "":
		d.add("binary", StatusFail, d.installFix(),
			"agentx-hook is not on PATH: the host files and git hooks call it by name, so every hook fails (the PATH checked is this shell's; the host's must hold it too)")
	case b.Self:
		d.add("binary", StatusOK, "", "%s is this agentx-hook (%s)", b.Path, b.Version)
	case b.Err != nil:
		d.add("binary", StatusFail, d.installFix(), "%s does not run (`agentx-hook version`: %v)", b.Path, b.Err)
	case !b.Same:
		d.add("binary", StatusWarn, d.installFix(), "%s is %s, this agentx-hook is %s: the hooks run the one on PATH", b.Path, b.Theirs, b.Version)
	default:
		d.add("binary", StatusOK, "", "%s is this version (%s)", b.Path, b.Theirs)
	}
}

// mcpBinary reports whether `agentx-hook mcp`, which the hosts' MCP entries
// run, finds the server binary.
func (d *run) mcpBinary() {
	p, err := d.p.MCPBinary()
	if err != nil {
		d.add("mcp-binary", StatusFail, "go install ./cmd/agentx-hook ./cmd/agentx-mcp   # from a clone of agentx",
			"the hosts run `agentx-hook mcp`, but %s is neither beside agentx-hook nor on PATH: the agents' tools fail to start", d.in.MCPName)
		return
	}
	d.add("mcp-binary", StatusOK, "", "`agentx-hook mcp` runs %s", p)
}

// installFix is the command that puts agentx-hook on PATH: the running
// binary's directory when it is agentx-hook itself, else the install from
// a clone.
func (d *run) installFix() string {
	if self := d.in.Self; self != "" && strings.TrimSuffix(filepath.Base(self), ".exe") == "agentx-hook" {
		return fmt.Sprintf(`export PATH="%s%c$PATH"`, filepath.Dir(self), os.PathListSeparator)
	}
	return "git clone https://github.com/agentx-dev/agentx && cd agentx && go install ./cmd/agentx-hook (then put $(go env GOPATH)/bin on PATH)"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func rel(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil {
		return r
	}
	return path
}
