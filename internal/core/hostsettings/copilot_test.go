package hostsettings

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	if err := os.WriteFile(filepath.Join(bin, "agentx-hook"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, agent, env string
		want             []string
	}{
		{"named agent", "engineer", "", []string{"hook finish --agent engineer", "memory recall --agent engineer --write-instructions"}},
		{"shared file, agent from the environment", "", "architect", []string{"hook finish", "memory recall --write-instructions"}},
		// No agent anywhere: memory recall takes [hooks] default_agent, as
		// the hooks do (issue 21: a first session recalls with no setup).
		{"shared file, no agent", "", "", []string{"hook finish", "memory recall --write-instructions"}},
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
