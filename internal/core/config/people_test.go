package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

func TestPeopleHandleOrTable(t *testing.T) {
	t.Parallel()
	c, err := ParseConfig("agentx.toml", []byte(`[clarify]
person_sla = "2h"

[people]
lead = "@octo-lead"
qa = { github = "octo/qa-team", sla = "8h" }
ops = { github = "@ops1", gihub = "x" }
`))
	if err != nil {
		t.Fatal(err)
	}
	set := &Set{Config: c}
	if p, ok := set.Person("lead"); !ok || p.GitHub != "octo-lead" || p.Mention() != "@octo-lead" {
		t.Errorf("lead = %+v, %v", p, ok)
	}
	if got := set.PersonSLA("lead"); got != 2*time.Hour {
		t.Errorf("lead's SLA = %s, want [clarify] person_sla 2h", got)
	}
	if got := set.PersonSLA("qa"); got != 8*time.Hour {
		t.Errorf("qa's SLA = %s, want its own 8h", got)
	}
	if got := (&Set{}).PersonSLA(""); got != DefaultPersonSLA {
		t.Errorf("default SLA = %s", got)
	}
	if got := strings.Join(set.PersonNames(), ","); got != "lead,ops,qa" {
		t.Errorf("names = %s", got)
	}
	// The typo in ops' table is a warning at its line, like any unknown key.
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], `agentx.toml:7: unknown key "people.ops.gihub" is ignored`) {
		t.Errorf("warnings = %q", c.Warnings)
	}
}

func TestPeopleRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, toml, want string }{
		{"bad name", "[people]\nLead = \"@x\"\n", "must match"},
		{"reserved", "[people]\nhuman = \"@x\"\n", "is reserved"},
		{"bad handle", "[people]\nlead = \"@not a handle\"\n", "is not a GitHub login"},
		{"negative sla", "[people]\nlead = { github = \"@x\", sla = \"-1h\" }\n", "is negative"},
		{"short sla", "[clarify]\nperson_sla = \"10s\"\n", "at least 1 minute"},
		{"not a handle", "[people]\nlead = 3\n", "GitHub handle"},
	} {
		_, err := ParseConfig("agentx.toml", []byte(tc.toml))
		if !errcode.Is(err, errcode.CorruptState) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want CORRUPT_STATE with %q", tc.name, err, tc.want)
		}
	}
}

// A person who is also an agent is a warning naming the line; many such
// warnings are capped like unknown keys.
func TestPersonWhoIsAnAgentWarnsCapped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("agents = [\"a1\", \"a2\", \"a3\", \"a4\", \"a5\", \"a6\", \"a7\"]\n[people]\n")
	for i := 1; i <= 7; i++ {
		b.WriteString("a" + string(rune('0'+i)) + " = \"@x\"\n")
	}
	cfg := filepath.Join(dir, "agentx.toml")
	if err := os.WriteFile(cfg, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := Load(cfg, filepath.Join(dir, "workflows"))
	if err != nil {
		t.Fatal(err)
	}
	w := set.Config.Warnings
	if len(w) != MaxUnknownWarnings+1 {
		t.Fatalf("warnings = %q", w)
	}
	if !strings.Contains(w[0], `agentx.toml:3: person "a1" is also an agent: --to a1 asks the agent; --to human:a1 asks the person`) {
		t.Errorf("first = %q", w[0])
	}
	if !strings.Contains(w[MaxUnknownWarnings], "2 more people are also agents") {
		t.Errorf("last = %q", w[MaxUnknownWarnings])
	}
}
