package demo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/responder"
)

func TestCommandLine(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		step Step
		want string
	}{
		{Step{Args: []string{"init"}}, "$ agentx-hook init"},
		{Step{Args: []string{"clarify", "--question", "Why not?"}}, "$ agentx-hook clarify --question 'Why not?'"},
		{Step{Args: []string{"x", "it's", ""}}, `$ agentx-hook x 'it'\''s' ''`},
		{Step{Args: []string{"hook", "finish"}, Stdin: "## Decisions"}, "$ agentx-hook hook finish < summary.md"},
	} {
		if got := tt.step.CommandLine(); got != tt.want {
			t.Errorf("%q: %q, want %q", tt.step.Args, got, tt.want)
		}
	}
}

func TestAnswer(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		req  responder.Request
		want string
	}{
		{responder.Request{Question: "Does it REFRESH tokens?"}, "Yes: refresh"},
		{responder.Request{Question: "Middleware or controller?"}, "Middleware."},
		{responder.Request{Question: "What else?", Round: 2, Topic: "auth"}, `Round 2: see the architecture doc for "auth".`},
	} {
		if got := Answer(tt.req); !strings.HasPrefix(got, tt.want) || !strings.HasSuffix(got, "\n") {
			t.Errorf("%q: %q, want %q...", tt.req.Question, got, tt.want)
		}
	}
}

// The responder is wired in once, right after init, before the first
// request: the tour's first section.
func TestNeedsResponder(t *testing.T) {
	t.Parallel()
	for si, section := range Sections() {
		for i := range section {
			want := si == 0 && i == 1
			if got := NeedsResponder(section, i); got != want {
				t.Errorf("section %d step %d: %v, want %v", si, i, got, want)
			}
		}
	}
}

func TestEnv(t *testing.T) {
	t.Parallel()
	parent := func(k string) string { return "parent-" + k }
	env := Env(parent, map[string]string{"AGENTX_NOW": "2030-01-01T09:00:00Z"})
	for k, want := range map[string]string{
		"AGENTX_NOW": "2030-01-01T09:00:00Z", "AGENTX_ROOT": "", "AGENTX_ISSUE": "", "HOME": "parent-HOME",
	} {
		if got := env(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}

func TestAddResponder(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".agentx"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := AddResponder(root, "/bin/x"); err == nil {
		t.Fatal("no agentx.toml: want an error")
	}
	path := filepath.Join(root, ".agentx", "agentx.toml")
	if err := os.WriteFile(path, []byte("mode = \"local\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AddResponder(root, `/bin/a "b"`); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	want := "mode = \"local\"\n\n[responders.architect]\ncommand = [\"/bin/a \\\"b\\\"\", \"__demo-responder\"]\ntimeout = \"10s\"\n"
	if string(data) != want {
		t.Errorf("agentx.toml:\n%s\nwant:\n%s", data, want)
	}
}

// A given directory is the tour's and stays; a temporary one goes unless
// kept.
func TestRoot(t *testing.T) {
	t.Parallel()
	given := t.TempDir()
	for _, tt := range []struct {
		dir      string
		keep     bool
		wantGone bool
	}{{given, false, false}, {"", true, false}, {"", false, true}} {
		root, done, err := Root(tt.dir, tt.keep)
		if err != nil {
			t.Fatal(err)
		}
		if tt.dir != "" && root != tt.dir {
			t.Errorf("root %s, want %s", root, tt.dir)
		}
		if err := done(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(root); os.IsNotExist(err) != tt.wantGone {
			t.Errorf("dir %q keep %v: %s gone %v, want %v", tt.dir, tt.keep, root, os.IsNotExist(err), tt.wantGone)
		}
		if !tt.wantGone && tt.dir == "" {
			_ = os.RemoveAll(root)
		}
	}
}
