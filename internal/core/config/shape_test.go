package config

import (
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/testenv"
)

func TestCheckShape(t *testing.T) {
	t.Parallel()
	deep := "x = " + strings.Repeat("{a = ", 2000) + "1" + strings.Repeat("}", 2000) + "\n"
	tests := []struct {
		name, text string
		ok         bool
	}{
		{"plain", "[memory]\nenabled = true\nlist = [[1, 2], [3]]\n", true},
		{"brackets in strings and comments", "a = \"[[[[[[[[[[[[[[[[[[[[\"\nb = '{{{{{{{{{{{{{{{{{{{{{'\n# [[[[[[[[[[[[[[[[[[[[[[[[\nc = \"\"\"\n[[[[[[[[[[[[[[[[[[[[[\n\"\"\"\n", true},
		{"nested inline tables", deep, false},
		{"too large", "# " + strings.Repeat("x", MaxFileBytes), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkShape("agentx.toml", []byte(tt.text))
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
			if err != nil && (!errcode.Is(err, errcode.CorruptState) || !strings.Contains(err.Error(), "agentx.toml")) {
				t.Fatalf("err = %v, want CORRUPT_STATE naming the file", err)
			}
		})
	}
}

// The 56 KB file of the report took 7 s and 2.7 GB; refused on its shape,
// it must fail at once.
func TestParseConfigRefusesDeepNestingQuickly(t *testing.T) {
	text := "x = " + strings.Repeat("{a = ", 11000) + "1" + strings.Repeat("}", 11000) + "\n"
	var err error
	cpu := testenv.CPUOf(t, func() { _, err = ParseConfig("agentx.toml", []byte(text)) })
	if err == nil {
		t.Fatal("deeply nested config accepted")
	}
	// CPU on the parsing thread, not wall time: the load beside the test
	// does not change it (the old parse: 7 s).
	if limit := time.Second * testenv.RaceSlowdown; cpu > limit {
		t.Fatalf("refusal took %v of CPU, over %v", cpu, limit)
	}
}

// A dotted key or table header of thousands of parts is refused before
// the decoder sees it (it took 12-16 s and 5.3 GB for 40 KB), in a few
// milliseconds; ordinary dotted keys, floats and times pass.
func TestShapeBoundsDottedKeys(t *testing.T) {
	long := strings.Repeat("k.", 20000) + "k = 1\n"
	header := "[" + strings.Repeat("t.", 20000) + "t]\n"
	for name, data := range map[string]string{"key": long, "header": header} {
		var err error
		cpu := testenv.CPUOf(t, func() { _, err = ParseConfig("agentx.toml", []byte(data)) })
		if err == nil || !strings.Contains(err.Error(), "more than 32 parts") {
			t.Errorf("%s: %v", name, err)
		}
		if limit := 300 * time.Millisecond * testenv.RaceSlowdown; cpu > limit {
			t.Errorf("%s: refused after %s of CPU, over %s", name, cpu, limit)
		}
	}
	ok := "mode = \"local\"\n[responders.architect]\ncommand = [\"a.b.c\"]\ntimeout = \"2m\"\n# a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g\n[memory]\nmax_tokens = 20000\n"
	if _, err := ParseConfig("agentx.toml", []byte(ok)); err != nil {
		t.Fatal(err)
	}
}

// Values a file may hold but must not are refused where they are made,
// naming the key.
func TestSemanticErrors(t *testing.T) {
	t.Parallel()
	configs := map[string]string{
		"[responders.architect]\ncommand = []\n":                         "command is empty",
		"[responders.\"../../etc\"]\ncommand = [\"x\"]\n":                "must match",
		"[hooks]\ndeadline = \"-3s\"\n":                                  "[hooks] deadline is negative",
		"[hooks]\ndeadline = \"100h\"\n":                                 "[hooks] deadline is 100h0m0s; it is at most 10m0s",
		"[hooks]\ndefault_agent = \"Engineer\"\n":                        "must match",
		"[checkpoints]\nkeep = -1\n":                                     "keep is negative",
		"[memory]\nmax_tokens = -5\n":                                    "max_tokens is negative",
		"[memory]\nmanifest = \"full\"\n":                                "[memory] manifest is \"full\"",
		"[retention]\narchive_after_days = -1\n":                         "archive_after_days is -1",
		"[retention]\narchive_after_days = 100000\n":                     "archive_after_days is 100000",
		"[retention]\ncompact_over = 3\n":                                "compact_over is 3",
		"agents = [\"ok\", \"../x\"]\n":                                  "agents[1]",
		"[responders.architect]\ncommand = [\"a\"]\ntimeout = \"-1m\"\n": "timeout is negative",
	}
	for toml, want := range configs {
		if _, err := ParseConfig("agentx.toml", []byte(toml)); err == nil || !strings.Contains(err.Error(), want) || !errcode.Is(err, errcode.CorruptState) {
			t.Errorf("%q: %v, want %q", toml, err, want)
		}
	}
	workflows := map[string]string{
		"[[steps]]\nid = \"a\"\nagent = \"x\"\nclarify_sla_minutes = -5\n":                                               "clarify_sla_minutes is -5",
		"[[steps]]\nid = \"a\"\nagent = \"x\"\nclarify_max_rounds = 0\n":                                                 "clarify_max_rounds is 0",
		"[[steps]]\nid = \"a\"\nagent = \"x/y\"\n":                                                                       "must match",
		"[[steps]]\nid = \"a\"\nagent = \"x\"\nneeds = [\"b\"]\n[[steps]]\nid = \"b\"\nagent = \"y\"\nneeds = [\"a\"]\n": "cycle: a -> b -> a",
	}
	for toml, want := range workflows {
		if _, err := ParseWorkflow("feature.toml", []byte(toml)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", toml, err, want)
		}
	}
}

// [memory] manifest is a known key: "reference" switches the store to
// rendering manifest.json at every write, and warns of nothing.
func TestMemoryManifestSetting(t *testing.T) {
	t.Parallel()
	c, err := ParseConfig("agentx.toml", []byte("[memory]\nmanifest = \"reference\"\n"))
	if err != nil || !c.Memory.ReferenceManifest() || len(c.Warnings) != 0 {
		t.Fatalf("%+v %v", c, err)
	}
	c, err = ParseConfig("agentx.toml", []byte("[memory]\nenabled = true\n"))
	if err != nil || c.Memory.ReferenceManifest() {
		t.Fatalf("the default is the delta: %+v %v", c, err)
	}
}
