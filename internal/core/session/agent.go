package session

import (
	"os"
	"path/filepath"

	"github.com/agentx-dev/agentx/internal/core/capture"
	"github.com/agentx-dev/agentx/internal/core/config"
)

// PickAgent is the agent a hook runs as: named (--agent, else
// $AGENTX_AGENT), else the one the host payload names, else the
// workspace's default, read through load only then.
func PickAgent(named, payloadAgent string, load func() (*config.Set, error)) string {
	if named != "" {
		return named
	}
	if payloadAgent != "" {
		// Claude Code names the agent a session runs as (claude --agent
		// NAME) in its payload's agent_type: one shared settings file then
		// serves every role.
		return payloadAgent
	}
	// Nothing named the agent (Codex and Copilot payloads never do): the
	// workspace's default, so a first session works with no setup beyond
	// `setup`.
	if cfg, err := load(); err == nil {
		return cfg.Config.Hooks.DefaultAgentOr()
	}
	return config.FallbackAgent
}

// ProjectDir is the agent's project directory the payload names (its
// cwd), when it is an absolute path to a directory: the workspace is
// found from there, wherever the host runs the hook from.
func ProjectDir(in capture.Input) (string, bool) { return ProjectDirOf(in.Payload.Cwd) }

// ProjectDirOf is ProjectDir for a payload's cwd read without a
// capture.Input (hook deliver scans the payload itself).
func ProjectDirOf(cwd string) (string, bool) {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return "", false
	}
	fi, err := os.Stat(cwd)
	return cwd, err == nil && fi.IsDir()
}
