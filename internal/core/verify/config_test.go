package verify

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestConfiguration(t *testing.T) {
	t.Parallel()
	write := func(t *testing.T, path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type finding struct {
		code string
		sev  Severity
		path string
		line int
	}
	for _, tt := range []struct {
		name   string
		config string            // agentx.toml ("" none)
		flows  map[string]string // workflows/NAME.toml
		want   []finding
	}{
		{name: "clean", config: "mode = \"local\"\n[memory]\nenabled = true\n",
			flows: map[string]string{"feature": "name = \"feature\"\n[[steps]]\nid = \"plan\"\nagent = \"architect\"\niterate = true\n"}},
		{name: "no configuration at all"},
		{name: "unknown section, key and mode are warnings with their line",
			config: "mode = \"remote\"\n\n[responder.architect]\ncommand = [\"x\"]\n\n[memory]\nmax_token = 5\n",
			want: []finding{
				{CodeConfigMode, Warning, ".agentx/agentx.toml", 1},
				{CodeConfigUnknownKey, Warning, ".agentx/agentx.toml", 3},
				{CodeConfigUnknownKey, Warning, ".agentx/agentx.toml", 7},
			}},
		// The line is the TOML decoder's: where it found the text unreadable.
		{name: "agentx.toml that does not parse", config: "mode = \"local\"\n[memory\nenabled = true\n",
			want: []finding{{CodeConfigCorrupt, Error, ".agentx/agentx.toml", 3}}},
		{name: "a value of the wrong type", config: "[memory]\nenabled = \"yes\"\n",
			want: []finding{{CodeConfigCorrupt, Error, ".agentx/agentx.toml", 0}}},
		{name: "a workflow that does not parse, beside a good one",
			flows: map[string]string{"bad": "name = \"bad\"\n[[steps]\n", "good": "[[steps]]\nid = \"a\"\n"},
			want:  []finding{{CodeWorkflowCorrupt, Error, ".agentx/workflows/bad.toml", 3}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := fixture(t)
			if tt.config != "" {
				write(t, ws.ConfigFile(), tt.config)
			}
			for name, content := range tt.flows {
				write(t, filepath.Join(ws.WorkflowsDir(), name+".toml"), content)
			}
			rep := run(t, ws)
			var got []finding
			for _, p := range rep.Problems {
				if p.Code == CodeConfigCorrupt || p.Code == CodeWorkflowCorrupt || p.Code == CodeConfigMode || p.Code == CodeConfigUnknownKey {
					got = append(got, finding{p.Code, p.Severity, p.Path, p.Line})
					if p.Message == "" {
						t.Errorf("%s without a message", p.Code)
					}
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("config findings = %v, want %v", got, tt.want)
			}
			if tt.want == nil && rep.Errors() != 0 {
				t.Errorf("errors: %v", errorsOf(rep, Error))
			}
			if w := slices.IndexFunc(tt.want, func(f finding) bool { return f.sev == Error }); w < 0 && rep.Errors() != 0 {
				t.Errorf("warnings only, but errors: %v", errorsOf(rep, Error))
			}
		})
	}
}
