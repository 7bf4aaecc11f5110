package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/githooks"
	"github.com/agentx-dev/agentx/internal/core/hooklog"
	"github.com/agentx-dev/agentx/internal/core/hostsettings"
	"github.com/agentx-dev/agentx/internal/core/setup"
	"github.com/agentx-dev/agentx/internal/core/statebranch"
	"github.com/agentx-dev/agentx/internal/core/validate"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// workspace reports the workspace found and its mode; false when there is
// none or its configuration does not load (the checks that read it skip).
func (d *run) workspace() bool {
	ws := d.in.Workspace
	if _, err := os.Stat(ws.AgentxDir()); err != nil {
		d.add("workspace", StatusFail, "agentx-hook init",
			"no .agentx/ at %s (the root is --root, $AGENTX_ROOT, the nearest .agentx/ or the git top level): every hook does nothing here", ws.Root)
		return false
	}
	cfg := d.config()
	if cfg == nil {
		d.add("workspace", StatusFail, "agentx-hook verify",
			"%s: the configuration does not load, so every hook warns and does nothing: %v", ws.Root, d.in.ConfigErr)
		return false
	}
	mode := cfg.Config.Mode
	if mode == "" {
		mode = "local"
	}
	d.add("workspace", StatusOK, "", "%s, %s mode", ws.Root, mode)
	return true
}

// agent reports the agent a session would run as when nothing on the
// hook's command line or in the host's payload names one.
func (d *run) agent() {
	cfg := d.in.Config
	agent, source := d.in.Getenv("AGENTX_AGENT"), "$AGENTX_AGENT"
	if agent == "" {
		agent, source = cfg.Config.Hooks.DefaultAgentOr(), "[hooks] default_agent"
		if cfg.Config.Hooks.DefaultAgent == "" {
			source = "the built-in default (no [hooks] default_agent)"
		}
	}
	known := cfg.KnownAgentNames()
	if why := unknownAgent(agent, known); why != "" {
		d.add("agent", StatusFail, d.agentFix(cfg, source, known),
			"a session would run as %q (from %s), %s: its hooks would do nothing", agent, source, why)
		return
	}
	d.add("agent", StatusOK, "", "a session runs as %q (from %s) unless --agent, $AGENTX_AGENT or the host's payload names another", agent, source)
}

// unknownAgent says why agent cannot run a session ("" when it can).
func unknownAgent(agent string, known []string) string {
	if err := validate.Agent("agent", agent); err != nil {
		return err.Error()
	}
	if len(known) == 0 {
		return ""
	}
	if slices.Contains(known, agent) {
		return ""
	}
	return "which the workflows do not name (known: " + strings.Join(known, ", ") + ")"
}

// agentFix is the command that names a known agent where the session's
// agent came from.
func (d *run) agentFix(cfg *config.Set, source string, known []string) string {
	want := config.FallbackAgent
	if len(known) > 0 && unknownAgent(want, known) != "" {
		want = known[0]
	}
	if source == "$AGENTX_AGENT" {
		return "export AGENTX_AGENT=" + want
	}
	file := filepath.ToSlash(rel(d.in.Workspace.Root, d.in.Workspace.ConfigFile()))
	data, _ := os.ReadFile(d.in.Workspace.ConfigFile())
	// Compiled here, not at start: only doctor needs them.
	defaultAgentLine := regexp.MustCompile(`(?m)^[ \t]*default_agent[ \t]*=`)
	hooksTable := regexp.MustCompile(`(?m)^[ \t]*\[hooks\]`)
	switch {
	case cfg.Config.Hooks.DefaultAgent != "" && defaultAgentLine.Match(data):
		return fmt.Sprintf(`sed -i.bak 's/^[[:space:]]*default_agent[[:space:]]*=.*/default_agent = %q/' %s`, want, file)
	case !hooksTable.Match(data):
		return fmt.Sprintf(`printf '\n[hooks]\ndefault_agent = %q\n' >> %s`, want, file)
	}
	return fmt.Sprintf(`add default_agent = %q under [hooks] in %s`, want, file)
}

// hosts reports each host whose settings file exists, and fails when no
// host runs agentx's hooks at all.
func (d *run) hosts(ctx context.Context) {
	root := d.in.Workspace.Root
	type seen struct {
		h     hostsettings.Host
		w     hostsettings.Wiring
		files hostsettings.Files
	}
	var used []seen
	var codexFiles hostsettings.Files
	wired := 0
	for _, name := range hostsettings.Names() {
		h, _ := hostsettings.For(name)
		files, err := setup.ReadHostFiles(root, []hostsettings.Host{h})
		if err != nil {
			d.add("host/"+name, StatusFail, "", "%v", err)
			continue
		}
		w, err := hostsettings.Inspect(h, files)
		if err != nil {
			d.add("host/"+name, StatusFail, "fix the file by hand, then: agentx-hook setup --"+name,
				"%v: setup leaves such a file untouched", err)
			continue
		}
		if !w.Exists {
			continue
		}
		if len(w.Wired) > 0 {
			wired++
		}
		used = append(used, seen{h, w, files})
		if name == hostsettings.Codex {
			codexFiles = files
		}
	}
	mcpRegistered := false
	for _, u := range used {
		d.host(u.h, u.w, wired)
		mcpRegistered = mcpRegistered || u.h.MCPRegistered(u.files)
		switch {
		case len(u.w.Wired) == 0 || u.h.MCPRegistered(u.files):
		case u.h.Name == hostsettings.Copilot && u.files[hostsettings.VSCodeMCPFile] != nil:
			d.add("mcp/"+u.h.Name, StatusWarn, "agentx-hook setup --copilot",
				"agentx's MCP server is only in %s, which Copilot CLI does not read (1.0.102 reads .mcp.json and %s): its sessions offer no agentx tool", hostsettings.VSCodeMCPFile, hostsettings.CopilotMCPFile)
		default:
			d.add("mcp/"+u.h.Name, StatusWarn, "agentx-hook setup --"+u.h.Name,
				"%s does not register agentx's MCP server: agents in this host use the CLI instead of its tools (https://github.com/agentx-dev/agentx/blob/main/docs/mcp.md)", u.h.MCPFile())
		}
		if u.h.Name == hostsettings.Copilot && len(u.w.Wired) > 0 {
			d.copilotTrust()
		}
		if u.h.Name == hostsettings.Claude && len(u.w.Wired) > 0 && !hostsettings.ImportsAgents(u.files[hostsettings.ClaudeFile]) {
			// Claude Code reads CLAUDE.md, never AGENTS.md by itself.
			d.add("claude-md", StatusWarn, "agentx-hook setup --claude",
				"%s does not import %s (an `@%s` line): Claude Code sessions never read agentx's section, how to ask other agents and use memory",
				hostsettings.ClaudeFile, hostsettings.AgentsFile, hostsettings.AgentsFile)
		}
	}
	if mcpRegistered {
		d.mcpBinary()
	}
	if codexFiles != nil {
		d.codex(codexFiles)
		d.loginPath(ctx)
	}
	if wired == 0 && len(used) == 0 {
		d.add("hosts", StatusFail, "agentx-hook setup --claude (or --codex, --copilot)",
			"no host runs agentx's hooks (no .claude/settings.json, .codex/hooks.json or .github/hooks/agentx.json): sessions capture and recall nothing")
	}
}

// host reports one host's hooks file.
func (d *run) host(h hostsettings.Host, w hostsettings.Wiring, wired int) {
	check, fix := "host/"+h.Name, "agentx-hook setup --"+h.Name
	switch {
	case len(w.Wired) == 0 && wired > 0:
		d.add(check, StatusWarn, fix, "%s runs none of agentx's hooks (%s): sessions in this host capture and recall nothing", h.File, strings.Join(w.Missing, ", "))
	case len(w.Wired) == 0:
		d.add(check, StatusFail, fix, "%s runs none of agentx's hooks (%s): sessions capture and recall nothing", h.File, strings.Join(w.Missing, ", "))
	case len(w.Missing) > 0:
		d.add(check, StatusFail, fix, "%s lacks agentx's %s hook%s", h.File, strings.Join(w.Missing, ", "), plural(len(w.Missing)))
	default:
		d.hostAgents(check, h, w)
	}
}

// hostAgents reports a wired host, failing when its commands name an
// agent the workflows do not.
func (d *run) hostAgents(check string, h hostsettings.Host, w hostsettings.Wiring) {
	if cfg := d.config(); cfg != nil {
		known := cfg.KnownAgentNames()
		for _, ag := range w.Agents {
			if why := unknownAgent(ag, known); why != "" {
				d.add(check, StatusFail, "agentx-hook setup --"+h.Name,
					"%s runs its hooks as --agent %s, %s", h.File, ag, why)
				return
			}
		}
	}
	who := "the session's agent"
	if len(w.Agents) > 0 {
		who = "--agent " + strings.Join(w.Agents, ", ")
	}
	d.add(check, StatusOK, "", "%s runs agentx's %s hooks (%s)", h.File, strings.Join(w.Wired, ", "), who)
}

// codex reports Codex's hooks feature flag and whether the user trusts
// the project (Codex loads a project's .codex/ only then).
func (d *run) codex(files hostsettings.Files) {
	state, deprecated := hostsettings.FeatureUnset, false
	if data, ok := files[hostsettings.CodexConfig]; ok {
		var err error
		if state, deprecated, err = hostsettings.CodexHooksFeature(data); err != nil {
			d.add("codex-feature", StatusFail, "fix the file by hand, then: agentx-hook setup --codex", "%s: %v", hostsettings.CodexConfig, err)
			return
		}
	}
	switch {
	case state == hostsettings.FeatureOff:
		d.add("codex-feature", StatusFail, "agentx-hook setup --codex   # then take codex_hooks = false out of [features] by hand, if it is there",
			"%s turns Codex's hooks off ([features] hooks or codex_hooks = false): Codex runs none of them", hostsettings.CodexConfig)
	case deprecated:
		d.add("codex-feature", StatusWarn, "agentx-hook setup --codex",
			"%s sets [features] codex_hooks, which Codex 0.169 reports as deprecated on every run; the key is [features] hooks", hostsettings.CodexConfig)
	case state == hostsettings.FeatureUnset:
		d.add("codex-feature", StatusWarn, "agentx-hook setup --codex",
			"%s does not set [features] hooks = true: Codex 0.169 runs hooks by default, an older Codex runs none without it", hostsettings.CodexConfig)
	default:
		d.add("codex-feature", StatusOK, "", "%s turns Codex's hooks on ([features] hooks)", hostsettings.CodexConfig)
	}
	d.codexTrust()
	d.codexHooksTrust(files)
}

// mkdirFirst is what a fix appending to file runs first: `mkdir -p DIR && `
// while file's directory does not exist (~/.codex before Codex first ran,
// which is when the README's quickstart runs doctor), else nothing.
func mkdirFirst(file string) string {
	dir := filepath.Dir(file)
	if _, err := os.Stat(dir); err == nil {
		return ""
	}
	return "mkdir -p " + dir + " && "
}

// codexTrust reads the user's Codex config ($CODEX_HOME, else ~/.codex).
func (d *run) codexTrust() {
	home := d.in.Getenv("CODEX_HOME")
	if home == "" {
		if h := d.in.Getenv("HOME"); h != "" {
			home = filepath.Join(h, ".codex")
		}
	}
	root := d.in.Workspace.Root
	file := filepath.Join(home, "config.toml")
	fix := mkdirFirst(file) + fmt.Sprintf(`printf '\n[projects.%q]\ntrust_level = "trusted"\n' >> %s`, root, file)
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		d.add("codex-trust", StatusWarn, "", "%s: %v", file, err)
		return
	}
	trusted, err := hostsettings.CodexTrusted(data, root)
	switch {
	case err != nil:
		d.add("codex-trust", StatusWarn, "", "%s: %v", file, err)
	case !trusted:
		d.add("codex-trust", StatusWarn, fix, "%s does not trust %s: Codex loads the project's .codex/ (and its hooks) only in a trusted project; then review the hooks once with /hooks in Codex", file, root)
	default:
		d.add("codex-trust", StatusOK, "", "%s trusts %s (Codex still runs a new or changed hook only once reviewed with /hooks)", file, root)
	}
}

// stateBranch checks, in GitHub Mode, that the remote answers and holds
// the state branch: `git ls-remote` within Timeout.
func (d *run) stateBranch(ctx context.Context) {
	cfg := d.in.Config
	if cfg.Config.Mode != "github" {
		return
	}
	remote, branch := cfg.Config.GitHub.Remote, cfg.Config.GitHub.StateBranch
	if remote == "" {
		remote = statebranch.DefaultRemote
	}
	if branch == "" {
		branch = statebranch.DefaultBranch
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	url, err := d.p.Git(ctx, "remote", "get-url", remote)
	if err != nil {
		d.add("state-branch", StatusFail, "git remote add "+remote+" URL",
			"GitHub Mode shares the state on %s of the remote %q, which this repository does not have", branch, remote)
		return
	}
	url = strings.TrimSpace(url)
	out, err := d.p.Git(ctx, "ls-remote", "--heads", remote, "refs/heads/"+branch)
	switch {
	case err != nil:
		if ctx.Err() != nil {
			err = fmt.Errorf("no answer within %s", Timeout)
		}
		d.add("state-branch", StatusFail, "git remote set-url "+remote+" URL",
			"the remote %q (%s) is unreachable, so hooks neither pull nor push the state (check the URL, the network and your credentials): %v", remote, url, err)
	case strings.TrimSpace(out) == "":
		d.add("state-branch", StatusWarn, "agentx-hook sync",
			"the remote %q (%s) answers but has no %s yet: the first sync creates it, empty until agents share state", remote, url, branch)
	default:
		d.add("state-branch", StatusOK, "", "%s on %q (%s) is reachable", branch, remote, url)
	}
}

// gitHooks reports agentx's git hooks and the merge driver.
func (d *run) gitHooks(ctx context.Context) {
	_, snap, err := githooks.Open(ctx, d.in.Workspace.Root)
	if err != nil {
		d.add("git-hooks", StatusWarn, "git init && agentx-hook hooks install",
			"%v: no git hooks, so commits are not recorded as observations", err)
		return
	}
	var installed, problems []string
	fix := "agentx-hook hooks install"
	for _, h := range githooks.Status(snap) {
		switch h.State {
		case "installed":
			name := h.Hook
			if h.Chained {
				name += " (runs " + h.Hook + githooks.ChainedSuffix + " first)"
			}
			installed = append(installed, name)
		case "foreign":
			problems = append(problems, h.Hook+" is another tool's hook")
			if h.Manager != "" {
				fix = "call agentx-hook git-hook NAME from " + h.Manager + "'s configuration (https://github.com/agentx-dev/agentx/blob/main/hooks/README.md), or: agentx-hook hooks install --force"
			} else {
				fix = "agentx-hook hooks install --force"
			}
		default:
			problems = append(problems, h.Hook+" is "+h.State)
		}
	}
	if len(problems) > 0 {
		d.add("git-hooks", StatusWarn, fix, "%s", strings.Join(problems, "; "))
	} else {
		d.add("git-hooks", StatusOK, "", "installed: %s", strings.Join(installed, ", "))
	}
	d.mergeDriver(ctx)
}

// mergeDriver reports the semantic merge driver: optional, for state
// files kept on code branches (Local Mode).
func (d *run) mergeDriver(ctx context.Context) {
	if cfg := d.config(); cfg != nil && cfg.Config.Mode == "github" {
		d.add("merge-driver", StatusOK, "", "not needed in GitHub Mode: the state is on the state branch, not on code branches")
		return
	}
	md, err := githooks.MergeDriverAt(ctx, d.in.Workspace.Root)
	fix := "agentx-hook hooks install --merge-driver"
	switch {
	case err != nil:
		d.add("merge-driver", StatusWarn, fix, "%v", err)
	case md.Installed:
		d.add("merge-driver", StatusOK, "", "configured (merge.agentx.driver and %s)", filepath.Base(md.Attributes))
	case md.Driver == "" && len(md.Missing) == len(githooks.MergeAttributes()):
		d.add("merge-driver", StatusOK, "", "not configured (optional: state files merged on code branches are merged as text)")
	case md.Driver != "" && md.Driver != githooks.MergeDriverCommand:
		d.add("merge-driver", StatusWarn, fix, "merge.agentx.driver is %q, not agentx's command", md.Driver)
	default:
		d.add("merge-driver", StatusWarn, fix, "half configured: driver %q, %d attribute line%s missing", md.Driver, len(md.Missing), plural(len(md.Missing)))
	}
}

// gitignore reports the local-only patterns .agentx/.gitignore lacks: a
// file init wrote before a pattern was added does not ignore it.
func (d *run) gitignore() {
	ws := d.in.Workspace
	if _, err := os.Stat(ws.AgentxDir()); err != nil {
		return
	}
	data, err := os.ReadFile(ws.GitignoreFile())
	if errors.Is(err, fs.ErrNotExist) {
		d.add("gitignore", StatusWarn, "agentx-hook init", ".agentx/.gitignore is missing: locks, spools and logs would be committed")
		return
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	var missing []string
	for _, p := range workspace.LocalOnly() {
		if !have[p.Glob] {
			missing = append(missing, p.Glob)
		}
	}
	// GitHub Mode's state/ covers the per-machine files.
	for _, p := range workspace.PerMachine() {
		if !have[p] && !have["state/"] {
			missing = append(missing, p)
		}
	}
	// GitHub Mode keeps the state on the state branch, off code branches;
	// a mode line switched by hand (not by init --mode github) leaves
	// these out, and the ledgers and memory would be committed.
	if cfg := d.config(); cfg != nil && cfg.Config.Mode == "github" {
		var state []string
		for _, p := range workspace.OnStateBranch() {
			if !have[p] {
				state = append(state, p)
			}
		}
		if len(state) > 0 {
			d.add("gitignore", StatusWarn, "agentx-hook init --mode github",
				".agentx/.gitignore lacks %s: in GitHub Mode the ledgers and memory would be committed on code branches", strings.Join(state, ", "))
			return
		}
	}
	if len(missing) > 0 {
		d.add("gitignore", StatusWarn, fmt.Sprintf("printf '%%s\\n' '%s' >> .agentx/.gitignore", strings.Join(missing, "' '")),
			".agentx/.gitignore lacks %s: git would show those local or per-machine files", strings.Join(missing, ", "))
		return
	}
	d.add("gitignore", StatusOK, "", ".agentx/.gitignore covers every local-only and per-machine file")
}

// hookRuns reports the last hook run logged and its warnings.
func (d *run) hookRuns() {
	ws := d.in.Workspace
	if _, err := os.Stat(ws.AgentxDir()); err != nil {
		return
	}
	runs, err := hooklog.Read(ws)
	if err != nil {
		d.add("hook-runs", StatusWarn, "", "%s: %v", filepath.Base(ws.HookLogFile()), err)
		return
	}
	if len(runs) == 0 {
		d.add("hook-runs", StatusOK, "", "no hook run logged yet (.agentx/%s): start a session in a host to see one", workspace.HookLogName)
		return
	}
	d.missingPayloads(runs)
	last := runs[len(runs)-1]
	warned := 0
	for _, r := range runs {
		if r.Outcome != hooklog.OK {
			warned++
		}
	}
	ago := d.in.Now.Sub(last.Time).Round(1e9)
	what := fmt.Sprintf("last run %s ago: %s", ago, last.Command)
	if last.Agent != "" {
		what += " as " + last.Agent
	}
	if last.Host != "" {
		what += " (" + last.Host + ")"
	}
	summary := fmt.Sprintf("%s, %s; %d of the last %d runs warned or skipped", what, last.Outcome, warned, len(runs))
	if last.Outcome == hooklog.OK {
		d.add("hook-runs", StatusOK, "", "%s", summary)
		return
	}
	rerun := "agentx-hook " + last.Command
	if last.Agent != "" && strings.HasPrefix(last.Command, "hook ") {
		rerun += " --agent " + last.Agent
	}
	d.add("hook-runs", StatusWarn, rerun+" </dev/null   # run it in a terminal to see its output",
		"%s: %s", summary, strings.Join(last.Warnings, " | "))
}
