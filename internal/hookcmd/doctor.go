package hookcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/buildinfo"
	"github.com/agentx-dev/agentx/internal/core/doctor"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/gitcmd"
	"github.com/agentx-dev/agentx/internal/execpath"
)

const doctorUsage = `doctor [--json]

Checks that agentx is wired and working here, and for each finding (ok,
warn or fail) prints the exact command that fixes it:
  binary       the agentx-hook the host files and git hooks call is on PATH,
               and is this version
  workspace    the workspace found (.agentx/) and its mode (local, github)
  agent        the agent a session would run as ($AGENTX_AGENT, else
               [hooks] default_agent, else engineer) is one the workflows name
  host/NAME    each host's settings file runs agentx's hooks (Claude Code,
               Codex with its hooks feature and project trust, Copilot)
  state-branch GitHub Mode: the remote and the state branch are reachable
  git-hooks    agentx's git hooks are installed (and chain the ones they moved)
  merge-driver the semantic merge driver for state files (Local Mode)
  gitignore    .agentx/.gitignore covers every local-only file
  hook-runs    the last hook runs (.agentx/hook-log.jsonl) and their warnings
Exit 1 when any finding fails, else 0. doctor writes nothing.`

// doctorOptions is doctor's command line.
type doctorOptions struct {
	jsonFlag
	// printed: the report document is out, so a failure must not print a
	// second one (wire asks jsonMode).
	printed bool
}

func (o *doctorOptions) jsonMode() bool { return o.JSON && !o.printed }

func parseDoctor(a *App, args []string) (*doctorOptions, error) {
	o := &doctorOptions{}
	flags := newFlags(a, "doctor", doctorUsage)
	o.register(flags)
	return o, parseFlagsOnly(flags, args)
}

func runDoctor(ctx context.Context, a *App, o *doctorOptions) error {
	cfg, cfgErr := a.Config()
	in := doctor.Input{Workspace: a.Workspace(), Config: cfg, ConfigErr: cfgErr, Getenv: a.Getenv,
		Now: a.Clock.Now(), MCPName: mcpBinary}
	in.Self, _ = os.Executable()
	findings := doctor.Check(ctx, in, doctorProbe{a: a, Exec: gitcmd.Exec{Dir: in.Workspace.Root}})
	doc, failure := doctor.NewDoc(a.Workspace().Root, findings)
	return a.reportChecked(o.JSON, &o.printed, doc, failure, func() { fmt.Fprint(a.Stdout, doc.Text(a.Style())) })
}

// reportChecked prints the report of a check that may fail (doctor, setup
// --check, verify): with --json the document, else the text; then it
// returns failure. printed is set once the document is out, so wire
// prints no second one.
func (a *App) reportChecked(asJSON bool, printed *bool, doc document, failure *errcode.Error, text func()) error {
	if !asJSON {
		text()
	} else {
		if err := a.writeDoc(doc); err != nil {
			return err
		}
		*printed = true
	}
	if failure != nil {
		return failure
	}
	return nil
}

// doctorProbe is doctor's way out: PATH, the binary there, the remote.
type doctorProbe struct {
	a *App
	gitcmd.Exec
}

// Binary finds the agentx-hook every host file and git hook calls by
// name, and asks its version unless it is this binary.
func (p doctorProbe) Binary(ctx context.Context) doctor.Binary {
	me := buildVersion()
	b := doctor.Binary{Path: execpath.Find(p.a.Getenv("PATH"), "agentx-hook"), Version: me.String()}
	if b.Path == "" {
		return b
	}
	if self, err := os.Executable(); err == nil && execpath.Same(self, b.Path) {
		b.Self = true
		return b
	}
	ctx, cancel := context.WithTimeout(ctx, doctor.Timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, b.Path, "version", "--json").Output()
	var v buildinfo.Doc
	if err == nil {
		err = json.Unmarshal(out, &v)
	}
	b.Err = err
	b.Theirs, b.Same = v.Info().String(), v.Info().SameBuild(me)
	return b
}

func (doctorProbe) MCPBinary() (string, error) { return findMCPBinary() }

// LoginShell asks a login shell where agentx-hook is, as Codex's
// `bash -lc` would find it.
func (p doctorProbe) LoginShell(ctx context.Context) (string, error) {
	bash := execpath.Find(p.a.Getenv("PATH"), "bash")
	if bash == "" {
		return "", doctor.ErrNoShell
	}
	ctx, cancel := context.WithTimeout(ctx, doctor.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-lc", "command -v agentx-hook")
	if p.a.Environ != nil {
		cmd.Env = p.a.Environ() // a test's script environment
	}
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}
