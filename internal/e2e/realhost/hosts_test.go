//go:build realhost

package realhost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostSpec is how the suite installs, trusts and runs one host.
type hostSpec struct {
	name    string // claude, codex, copilot: setup's flag and doctor's host/NAME
	version string
	// prepare writes the user's own configuration in the throwaway HOME
	// (the model server, trust) after `setup`, and returns the command
	// that runs one headless session and its extra environment.
	prepare func(t *testing.T, w *workspace) (bin string, env []string)
	// trust passes the host's trust gate the way a user does (nil: none).
	trust func(t *testing.T, w *workspace, bin string, env []string)
	// args are the arguments of one headless session with this prompt.
	args func(prompt string) []string
	// loginShell: the host runs its shell tool as a login shell (bash
	// -lc), whose PATH comes from the profile, not the host's.
	loginShell bool
	// shell is the host's shell tool call running a command.
	shell func(offered []string, command string) (string, map[string]any)
}

// mcpTool picks the offered name of one of agentx's MCP tools: each host
// prefixes the server's tool names its own way.
func mcpTool(offered []string, tool string) string {
	for _, name := range offered {
		if strings.HasSuffix(name, tool) && strings.Contains(name, "agentx") {
			return name
		}
	}
	return "agentx-tool-not-offered:" + tool
}

func pick(offered []string, names ...string) string {
	for _, want := range names {
		for _, name := range offered {
			if name == want {
				return name
			}
		}
	}
	return "shell-tool-not-offered"
}

var claude = hostSpec{
	name:    "claude",
	version: claudeVersion,
	prepare: func(t *testing.T, w *workspace) (string, []string) {
		bin := hostBin(t, "claude-code", claudeVersion, "claude")
		// The user's own settings: the project's .mcp.json servers are
		// approved (the prompt a user answers once, interactively).
		dir := filepath.Join(w.home, ".claude")
		must(t, os.MkdirAll(dir, 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{"enableAllProjectMcpServers": true}`+"\n"), 0o644))
		return bin, []string{
			"ANTHROPIC_BASE_URL=" + w.model.URL,
			"ANTHROPIC_API_KEY=sk-ant-realhost-fake",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
			"DISABLE_AUTOUPDATER=1",
			"DISABLE_TELEMETRY=1",
			"DISABLE_ERROR_REPORTING=1",
			"CLAUDE_CODE_ENABLE_TELEMETRY=0",
			// MCP tools offered in the request itself, not deferred
			// behind ToolSearch, so the script can call one directly.
			"ENABLE_TOOL_SEARCH=false",
		}
	},
	args: func(prompt string) []string {
		return []string{"-p", prompt, "--output-format", "text",
			"--allowedTools", "Bash,mcp__agentx__memory_remember,mcp__agentx__clarify_inbox"}
	},
	shell: func(offered []string, command string) (string, map[string]any) {
		return pick(offered, "Bash"), map[string]any{"command": command, "description": "run agentx"}
	},
}

var codex = hostSpec{
	name:    "codex",
	version: codexVersion,
	prepare: func(t *testing.T, w *workspace) (string, []string) {
		bin := hostBin(t, "codex", codexVersion, "codex")
		// The user's ~/.codex/config.toml: a model provider (the fake
		// server) and the project trusted; the project's hooks reviewed
		// is added by trustCodexHooks, as /hooks does.
		dir := filepath.Join(w.home, ".codex")
		must(t, os.MkdirAll(dir, 0o755))
		cfg := `model = "gpt-5.1-codex"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "` + w.model.URL + `/v1"
wire_api = "responses"
env_key = "FAKE_OPENAI_KEY"
requires_openai_auth = false

[projects."` + w.repo + `"]
trust_level = "trusted"
`
		must(t, os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o644))
		return bin, []string{"FAKE_OPENAI_KEY=sk-realhost-fake"}
	},
	trust:      trustCodexHooks,
	loginShell: true,
	args: func(prompt string) []string {
		return []string{"exec", "--dangerously-bypass-approvals-and-sandbox", prompt}
	},
	shell: func(offered []string, command string) (string, map[string]any) {
		name := pick(offered, "exec_command", "shell_command", "shell")
		switch name {
		case "exec_command":
			return name, map[string]any{"cmd": command}
		case "shell":
			return name, map[string]any{"command": []string{"bash", "-lc", command}}
		}
		return name, map[string]any{"command": command}
	},
}

var copilot = hostSpec{
	name:    "copilot",
	version: copilotVersion,
	prepare: func(t *testing.T, w *workspace) (string, []string) {
		bin := hostBin(t, "copilot", copilotVersion, "copilot")
		return bin, []string{
			"COPILOT_OFFLINE=true",
			"COPILOT_PROVIDER_BASE_URL=" + w.model.URL + "/v1",
			"COPILOT_PROVIDER_TYPE=openai",
			"COPILOT_PROVIDER_API_KEY=sk-realhost-fake",
			"COPILOT_MODEL=gpt-4.1",
			"COPILOT_AUTO_UPDATE=false",
			// The package the binary unpacks, shared between tests.
			"COPILOT_PKG_CACHE_HOME=" + filepath.Join(hostsDir(t), "copilot-pkg-cache"),
		}
	},
	trust: func(t *testing.T, w *workspace, _ string, _ []string) {
		// The user's ~/.copilot/config.json: the repository is a trusted
		// folder. This is what 1.0.102 writes when the user answers its
		// prompt "Yes, and remember this folder" (seen in tmux); in -p
		// mode it honours config.json's list, not one in settings.json.
		dir := filepath.Join(w.home, ".copilot")
		must(t, os.MkdirAll(dir, 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte("// User settings belong in settings.json.\n"+
			"// This file is managed automatically.\n"+`{"trustedFolders": ["`+w.repo+`"]}`+"\n"), 0o600))
	},
	args: func(prompt string) []string {
		return []string{"-p", prompt, "--allow-all-tools", "--no-color"}
	},
	shell: func(offered []string, command string) (string, map[string]any) {
		return pick(offered, "bash", "shell"), map[string]any{"command": command, "description": "run agentx", "mode": "sync"}
	},
}
