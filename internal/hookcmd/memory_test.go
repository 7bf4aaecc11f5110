package hookcmd

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/memory"
)

// A rebuild over a large store reports progress on stderr, and only when
// stderr is a terminal (scripts and agents read stderr for errors).
func TestMemoryRebuildProgressOnlyOnTerminal(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	// A git repository: outside one, the checkpoint a rebuild takes first
	// is a warning on stderr.
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	run := func(tty bool, args ...string) (string, string) {
		var out, errb bytes.Buffer
		a := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Cwd: root, rootFlag: root,
			Getenv: func(string) string { return "" }, Clock: clock.Real{}, StderrTTY: tty}
		if code := a.Run(context.Background(), args); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		return out.String(), errb.String()
	}
	run(false, "init")
	run(false, "memory", "generate", "--observations", "1200", "--issues", "600", "--into-store")
	if _, stderr := run(false, "memory", "rebuild"); stderr != "" {
		t.Fatalf("progress on a non-terminal: %q", stderr)
	}
	out, stderr := run(true, "memory", "rebuild")
	// 1,200 observations land in some 520 of the 600 issues.
	if !regexp.MustCompile(`rebuilding the memory index: (\d+)/(\d+)\n$`).MatchString(stderr) || !strings.Contains(out, "1200 observations from") {
		t.Fatalf("stdout %q stderr %q", out, stderr)
	}
}

// manifestOf reads root's manifest.json and its layout: 0 compact (one
// entry a line), 2 reference (the old tools' 2-space indent), in Version.
func manifestOf(t *testing.T, root string) *memory.Manifest {
	t.Helper()
	path := filepath.Join(root, ".agentx", "memory", "manifest.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := memory.ParseManifest(path, data)
	if err != nil {
		t.Fatal(err)
	}
	rows := bytes.Count(data, []byte("\n{\"id\":"))
	indented := bytes.Count(data, []byte("\n    {\n      \"id\": "))
	switch {
	case rows == len(m.Entries) && indented == 0:
		m.Version = 0 // compact
	case indented == len(m.Entries) && rows == 0:
		m.Version = 2 // reference
	default:
		t.Fatalf("mixed layout: %d compact rows, %d indented, %d entries", rows, indented, len(m.Entries))
	}
	return m
}

// listsAll reports whether m lists every entry of sub, the same.
func listsAll(m, sub *memory.Manifest) bool {
	by := map[string]memory.Entry{}
	for _, e := range m.Entries {
		by[e.ID] = e
	}
	for _, e := range sub.Entries {
		if got, ok := by[e.ID]; !ok || !reflect.DeepEqual(got, e) {
			return false
		}
	}
	return true
}

// The interop switch (issue 35): by default no manifest.json is written;
// `memory rebuild --reference` writes the old tools' exact layout on
// demand, and the default's next rebuild removes it again (only agentx
// wrote it); [memory] manifest = "delta" keeps one a line an entry at each
// rebuild, "reference" the old tools' layout at every write. The entries
// are the same whichever writes them, and every search finds every
// observation whatever the mode.
func TestManifestModesRoundTrip(t *testing.T) {
	t.Parallel()
	root, run := limitWorkspace(t)
	must := func(args ...string) string {
		t.Helper()
		code, out, stderr := run(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return out
	}
	manifest := filepath.Join(root, ".agentx", "memory", "manifest.json")
	absent := func(when string) {
		t.Helper()
		if _, err := os.Stat(manifest); !os.IsNotExist(err) {
			t.Fatalf("%s: manifest.json is there (%v); the default writes none", when, err)
		}
	}
	found := func(query string, want int) {
		t.Helper()
		out := must("memory", "search", query, "--limit", "0")
		if got := strings.Count(out, "obs-"); got != want {
			t.Fatalf("search %q: %d rows, want %d:\n%s", query, got, want, out)
		}
	}
	must("memory", "generate", "--observations", "60", "--issues", "6", "--into-store")
	absent("after generate")
	must("memory", "rebuild")
	absent("after rebuild")
	must("memory", "rebuild", "--reference")
	reference := manifestOf(t, root)
	if reference.Version != 2 || len(reference.Entries) != 60 {
		t.Fatalf("rebuild --reference: layout %d, %d entries", reference.Version, len(reference.Entries))
	}
	must("memory", "add", "--agent", "engineer", "--issue", "3", "--category", "decision", "chose the quokka ring buffer for eviction")
	found("quokka", 1)
	must("memory", "rebuild")
	absent("after a plain rebuild that followed --reference")
	found("quokka", 1)

	manifestMode(t, root, "delta")
	must("memory", "rebuild")
	compact := manifestOf(t, root)
	if compact.Version != 0 || len(compact.Entries) != 61 || !listsAll(compact, reference) {
		t.Fatalf("delta: layout %d, %d entries, the reference's listed %v", compact.Version, len(compact.Entries), listsAll(compact, reference))
	}
	if code, out, stderr := run("verify"); code != 0 {
		t.Fatalf("verify of the delta mode's store: exit %d\n%s%s", code, out, stderr)
	}

	data, err := os.ReadFile(filepath.Join(root, ".agentx", "agentx.toml"))
	if err != nil {
		t.Fatal(err)
	}
	toml := bytes.Replace(data, []byte(`manifest = "delta"`), []byte(`manifest = "reference"`), 1)
	if err := os.WriteFile(filepath.Join(root, ".agentx", "agentx.toml"), toml, 0o644); err != nil {
		t.Fatal(err)
	}
	must("memory", "add", "--agent", "engineer", "--issue", "4", "--category", "key-fact", "the quokka table holds four thousand entries")
	if m := manifestOf(t, root); m.Version != 2 || len(m.Entries) != 62 || !listsAll(m, compact) {
		t.Fatalf("reference mode after a write: layout %d, %d entries", m.Version, len(m.Entries))
	}
	found("quokka", 2)
	if code, out, stderr := run("verify"); code != 0 {
		t.Fatalf("verify of the reference mode's store: exit %d\n%s%s", code, out, stderr)
	}

	toml = bytes.Replace(data, []byte("manifest = \"delta\"\n"), nil, 1)
	if err := os.WriteFile(filepath.Join(root, ".agentx", "agentx.toml"), toml, 0o644); err != nil {
		t.Fatal(err)
	}
	must("memory", "rebuild")
	absent("after a rebuild back in the default")
	found("quokka", 2)
	if code, out, stderr := run("verify"); code != 0 {
		t.Fatalf("verify of the default's store: exit %d\n%s%s", code, out, stderr)
	}
}

// A store the reference tools made (their manifest.json, indented, with no
// agentxIndex; their issue files; no search index) is read and written by
// default: searches find its observations, and the manifest, theirs, is
// left as they wrote it (agentx removes only a manifest it wrote itself).
func TestReferenceToolsStoreStaysReadable(t *testing.T) {
	t.Parallel()
	root, run := limitWorkspace(t)
	old := filepath.Join("..", "core", "memory", "testdata", "old")
	dir := filepath.Join(root, ".agentx", "memory")
	var theirs []byte
	for _, name := range []string{"manifest.json", "issue-29.json"} {
		data, err := os.ReadFile(filepath.Join(old, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if name == "manifest.json" {
			theirs = data
		}
	}
	for _, args := range [][]string{
		{"memory", "search", "per-issue JSON files"},
		{"memory", "add", "--agent", "engineer", "--issue", "29", "--category", "decision", "chose the ring buffer for the eviction cache"},
		{"memory", "search", "ring buffer eviction"},
		{"memory", "rebuild"},
		{"memory", "search", "per-issue JSON files"},
		{"verify"},
	} {
		code, out, stderr := run(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, stderr)
		}
		if len(args) > 1 && args[1] == "search" && strings.Count(out, "obs-") != 1 {
			t.Fatalf("%v: want one row:\n%s%s", args, out, stderr)
		}
	}
	// verify says the manifest is theirs and not kept, without failing.
	if code, out, _ := run("verify"); code != 0 || !strings.Contains(out, "warning MANIFEST_NOT_KEPT .agentx/memory/manifest.json") {
		t.Fatalf("verify: exit %d\n%s", code, out)
	}
	if now, err := os.ReadFile(filepath.Join(dir, "manifest.json")); err != nil || !bytes.Equal(now, theirs) {
		t.Fatalf("the old tools' manifest.json was changed or removed: %v\n%s", err, now)
	}
}
