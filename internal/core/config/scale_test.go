package config

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/testenv"
)

// An agentx.toml with 2,000 unknown sections (it can arrive in a pull
// request) loads in linear time, and warns about the first few and a
// count, not 2,000 times: it cost 9.5-16 s in every command and hook.
func TestTwoThousandUnknownSections(t *testing.T) {
	var b strings.Builder
	b.WriteString("mode = \"local\"\n[memory]\nenabled = true\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "\n[unknown%d]\nx = %d\n[memory%d.sub]\ny = 1\n", i, i, i)
	}
	b.WriteString("[hooks]\nmystery = 1\n")
	var c Config
	var err error
	cpu := testenv.CPUOf(t, func() { c, err = ParseConfig("a.toml", []byte(b.String())) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s of CPU, warnings %q", cpu, c.Warnings)
	if limit := 200 * time.Millisecond * testenv.RaceSlowdown; cpu > limit {
		t.Errorf("loading took %s of CPU, over %s", cpu, limit)
	}
	want := []string{
		`a.toml:5: unknown section "unknown0" is ignored`,
		`a.toml:7: unknown section "memory0" is ignored`,
		`a.toml:10: unknown section "unknown1" is ignored`,
		`a.toml:12: unknown section "memory1" is ignored`,
		`a.toml:15: unknown section "unknown2" is ignored`,
		`a.toml: 3996 more unknown keys or sections are ignored (` + "`agentx-hook verify`" + ` lists them all)`,
	}
	if strings.Join(c.Warnings, "\n") != strings.Join(want, "\n") {
		t.Fatalf("warnings:\n%s\nwant:\n%s", strings.Join(c.Warnings, "\n"), strings.Join(want, "\n"))
	}
}
