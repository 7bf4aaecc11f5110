package hostsettings

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/testenv"
)

// The Copilot sessionEnd command, run by bash as Copilot runs it: the
// recall instructions are written for the agent named, else for the
// session's $AGENTX_AGENT, and a session without one only finishes (no
// error, no recall).
func TestCopilotSessionEndCommand(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash: %v", err)
	}
	bin := t.TempDir()
	log := filepath.Join(t.TempDir(), "calls")
	// A stand-in agentx-hook that records its arguments.
	fake := "#!/bin/sh\necho \"$*\" >> " + log + "\n"
	if err := testenv.WriteExecutable(filepath.Join(bin, "agentx-hook"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, agent, env string
		want             []string
	}{
		{"named agent", "engineer", "", []string{"hook finish --agent engineer --event sessionEnd", "memory recall --agent engineer --write-instructions"}},
		{"shared file, agent from the environment", "", "architect", []string{"hook finish --event sessionEnd", "memory recall --write-instructions"}},
		// No agent anywhere: memory recall takes [hooks] default_agent, as
		// the hooks do (issue 21: a first session recalls with no setup).
		{"shared file, no agent", "", "", []string{"hook finish --event sessionEnd", "memory recall --write-instructions"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_ = os.Remove(log)
			entry := copilotEntry(true)(tt.agent)
			cmd := exec.Command(sh, "-c", entry.vals["bash"].(string))
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "AGENTX_AGENT="+tt.env)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			data, _ := os.ReadFile(log)
			if got := strings.Split(strings.TrimSpace(string(data)), "\n"); strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("calls %q, want %q", got, tt.want)
			}
			if ps := entry.vals["powershell"].(string); !strings.Contains(ps, "memory recall") {
				t.Errorf("powershell command %q has no recall", ps)
			}
		})
	}
	// agentStop only finishes: recall is written once, at the session's end.
	if bash := copilotEntry(false)("").vals["bash"].(string); strings.Contains(bash, "recall") {
		t.Errorf("agentStop: %q", bash)
	}
}

// setup --copilot for Copilot CLI 1.0.102 (issue 31): the MCP server in
// .github/mcp.json, which the CLI reads (it dropped .vscode/mcp.json; VS
// Code keeps reading that one); a sessionStart hook whose output Copilot
// injects; the finish commands name their event, since the payloads do not.
func TestCopilotWiring(t *testing.T) {
	t.Parallel()
	h, _ := For(Copilot)
	files := apply(t, Files{}, mustEdits(t)(Wire(h, Files{}, "")))
	mcp := string(files[CopilotMCPFile])
	if !strings.Contains(mcp, `"mcpServers"`) || !strings.Contains(mcp, `"agentx-hook"`) {
		t.Errorf("%s:\n%s", CopilotMCPFile, mcp)
	}
	if !strings.Contains(string(files[VSCodeMCPFile]), `"servers"`) {
		t.Errorf("%s:\n%s", VSCodeMCPFile, files[VSCodeMCPFile])
	}
	hooks := string(files[h.File])
	for _, want := range []string{
		`"sessionStart"`, `"bash": "agentx-hook hook start --format copilot"`,
		`"bash": "agentx-hook hook finish --event agentStop"`,
		`"bash": "agentx-hook hook finish --event sessionEnd && agentx-hook memory recall --write-instructions"`,
	} {
		if !strings.Contains(hooks, want) {
			t.Errorf("hooks file lacks %s:\n%s", want, hooks)
		}
	}
	if !h.MCPRegistered(files) {
		t.Error("MCPRegistered is false after Wire")
	}
	// Only VS Code's file: the CLI offers no agentx tool.
	vsOnly := Files{VSCodeMCPFile: files[VSCodeMCPFile]}
	if h.MCPRegistered(vsOnly) {
		t.Error("MCPRegistered counts .vscode/mcp.json, which Copilot CLI does not read")
	}
	if !h.MCPRegistered(Files{ClaudeMCPFile: []byte(`{"mcpServers": {"agentx": {"command": "agentx-hook", "args": ["mcp"]}}}`)}) {
		t.Error("MCPRegistered ignores .mcp.json, which Copilot CLI reads")
	}
	edits := mustEdits(t)(Unwire(h, files))
	if left := apply(t, files, edits); len(left) != 0 {
		t.Errorf("left after remove: %v", left)
	}
}
