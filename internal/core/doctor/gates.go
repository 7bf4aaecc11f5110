package doctor

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/hooklog"
	"github.com/agentx-dev/agentx/internal/core/hostsettings"
)

// The hosts' own gates (issue 31): what makes a host skip agentx's hooks
// or tools without a word although the files are right.

// codexHome is the user's Codex directory ($CODEX_HOME, else ~/.codex).
func (d *run) codexHome() string {
	if home := d.in.Getenv("CODEX_HOME"); home != "" {
		return home
	}
	if h := d.in.Getenv("HOME"); h != "" {
		return filepath.Join(h, ".codex")
	}
	return ""
}

// codexHooksTrust reports agentx's hooks in .codex/hooks.json that Codex
// 0.169 will not run: never reviewed in /hooks, changed since (setup
// rewrote them), or turned off.
func (d *run) codexHooksTrust(files hostsettings.Files) {
	h, _ := hostsettings.For(hostsettings.Codex)
	data, ok := files[h.File]
	if !ok {
		return
	}
	userFile := filepath.Join(d.codexHome(), "config.toml")
	user, err := os.ReadFile(userFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		d.add("codex-hook-trust", StatusWarn, "", "%s: %v", userFile, err)
		return
	}
	path := filepath.Join(d.in.Workspace.Root, filepath.FromSlash(h.File))
	hooks, err := hostsettings.CodexHookTrust(data, path, user)
	if err != nil {
		d.add("codex-hook-trust", StatusWarn, "", "%s or %s: %v", h.File, userFile, err)
		return
	}
	var untrusted, modified, disabled []string
	var appends []string
	for _, hk := range hooks {
		switch hk.Status {
		case hostsettings.HookUntrusted:
			untrusted = append(untrusted, hk.Event)
			appends = append(appends, fmt.Sprintf(`[hooks.state.%q]\ntrusted_hash = %q\n`, hk.Key, hk.Hash))
		case hostsettings.HookModified:
			modified = append(modified, hk.Event)
		case hostsettings.HookDisabled:
			disabled = append(disabled, hk.Event)
		}
	}
	review := "codex   # in " + d.in.Workspace.Root + ": /hooks, then trust agentx's hooks"
	switch {
	case len(modified) > 0 || len(disabled) > 0:
		what := []string{}
		if len(modified) > 0 {
			what = append(what, strings.Join(modified, ", ")+" changed since you reviewed them (setup rewrote them)")
		}
		if len(disabled) > 0 {
			what = append(what, strings.Join(disabled, ", ")+" turned off")
		}
		d.add("codex-hook-trust", StatusFail, review, "Codex skips agentx's hooks %s: %s", "until reviewed again in /hooks", strings.Join(what, "; "))
	case len(untrusted) > 0:
		d.add("codex-hook-trust", StatusFail, mkdirFirst(userFile)+fmt.Sprintf("printf '\\n%s' >> %s   # what trusting them in Codex's /hooks writes", strings.Join(appends, `\n`), userFile),
			"Codex has not reviewed agentx's %s hook%s, and runs a project's hooks only once reviewed (/hooks), silently skipping them before", strings.Join(untrusted, ", "), plural(len(untrusted)))
	case len(hooks) > 0:
		d.add("codex-hook-trust", StatusOK, "", "Codex trusts agentx's hooks as they are now (%s)", userFile)
	}
}

// copilotTrust reports whether Copilot CLI trusts the workspace's folder:
// in -p mode it loads a repository's hooks (and MCP servers) only in a
// trusted folder ("Loading repo hooks in prompt mode (folder is trusted or
// opt-in set)"). 1.0.102 keeps trustedFolders in ~/.copilot/config.json
// ($COPILOT_HOME), a file it manages itself, and ignores the key in
// settings.json; COPILOT_ALLOW_ALL=true skips the check.
func (d *run) copilotTrust() {
	if d.in.Getenv("COPILOT_ALLOW_ALL") == "true" {
		d.add("copilot-trust", StatusOK, "", "COPILOT_ALLOW_ALL=true: Copilot CLI trusts every folder")
		return
	}
	home := d.in.Getenv("COPILOT_HOME")
	if home == "" {
		h := d.in.Getenv("HOME")
		if h == "" {
			return
		}
		home = filepath.Join(h, ".copilot")
	}
	root := d.in.Workspace.Root
	file := filepath.Join(home, "config.json")
	data, _ := os.ReadFile(file)
	for _, dir := range trustedFolders(data) {
		if dir == root || strings.HasPrefix(root, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator)) {
			d.add("copilot-trust", StatusOK, "", "%s trusts %s", file, dir)
			return
		}
	}
	d.add("copilot-trust", StatusWarn, "cd "+root+" && copilot   # answer \"Yes, and remember this folder\" once (or set COPILOT_ALLOW_ALL=true for the session)",
		"Copilot CLI does not trust %s (trustedFolders in %s): `copilot -p` loads the repository's hooks and MCP servers only in a trusted folder, and skips them without a word", root, file)
}

// trustedFolders reads trustedFolders (or the older trusted_folders) from
// Copilot's config.json, which starts with // comment lines.
func trustedFolders(data []byte) []string {
	var b bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		if strings.HasPrefix(strings.TrimSpace(sc.Text()), "//") {
			continue
		}
		b.Write(sc.Bytes())
		b.WriteByte('\n')
	}
	var doc struct {
		Camel []string `json:"trustedFolders"`
		Snake []string `json:"trusted_folders"`
	}
	if json.Unmarshal(b.Bytes(), &doc) != nil {
		return nil
	}
	return append(doc.Camel, doc.Snake...)
}

// loginPath reports whether a login shell finds agentx-hook: Codex runs
// the agent's shell tools as `bash -lc`, whose PATH comes from the login
// profile, not from the shell doctor runs in (its hooks get the PATH Codex
// was started with, which the binary check covers).
func (d *run) loginPath(ctx context.Context) {
	path, err := d.p.LoginShell(ctx)
	switch {
	case errors.Is(err, ErrNoShell):
		return
	case err != nil || path == "":
		profile := d.loginProfile()
		fix := `echo 'export PATH="$HOME/go/bin:$PATH"' >> ` + profile
		if self := d.in.Self; self != "" && strings.TrimSuffix(filepath.Base(self), ".exe") == "agentx-hook" {
			fix = fmt.Sprintf(`echo 'export PATH="%s:$PATH"' >> %s`, filepath.Dir(self), profile)
		}
		d.add("login-path", StatusFail, fix,
			"`bash -lc` does not find agentx-hook: Codex runs the agent's shell commands (`agentx-hook clarify request ...`) in a login shell, whose PATH comes from the login profile, so they fail there")
	default:
		d.add("login-path", StatusOK, "", "`bash -lc` finds agentx-hook at %s", path)
	}
}

// loginProfile is the file a login bash reads: the first of
// ~/.bash_profile, ~/.bash_login and ~/.profile that exists (a line
// appended to ~/.profile beside a ~/.bash_profile is never read), else
// ~/.profile.
func (d *run) loginProfile() string {
	if home := d.in.Getenv("HOME"); home != "" {
		for _, name := range []string{".bash_profile", ".bash_login", ".profile"} {
			if _, err := os.Stat(filepath.Join(home, name)); err == nil {
				return "~/" + name
			}
		}
	}
	return "~/.profile"
}

// ErrNoShell is a Probe's LoginShell when there is no bash to ask.
var ErrNoShell = errors.New("no bash")

// missingPayloads reports hook runs whose host payload never came: the
// session was neither captured nor ended.
func (d *run) missingPayloads(runs []hooklog.Entry) {
	n := 0
	var last hooklog.Entry
	for _, r := range runs {
		for _, w := range r.Warnings {
			if strings.Contains(w, "no host payload arrived") {
				n++
				last = r
				break
			}
		}
	}
	if n == 0 {
		return
	}
	d.add("hook-payload", StatusWarn, "agentx-hook hook finish --deadline 30s   # in the host's hook command: a longer wait for its payload",
		"%d of the last %d hook runs got no host payload on stdin within their wait (last: %s, %s): nothing was captured and the agent was not marked done", n, len(runs), last.Command, last.Time.Format("2006-01-02 15:04"))
}
