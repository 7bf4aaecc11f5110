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

// memory rebuild writes manifest.json one entry a line; --reference writes
// the old tools' exact layout (2-space indent) on demand, with the same
// entries; a plain rebuild makes it compact again.
func TestMemoryRebuildReferenceLayout(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	run := func(args ...string) {
		var out, errb bytes.Buffer
		a := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Cwd: root, rootFlag: root,
			Getenv: func(string) string { return "" }, Clock: clock.Real{}}
		if code := a.Run(context.Background(), args); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
	}
	manifest := func() *memory.Manifest {
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
	run("init")
	run("memory", "generate", "--observations", "60", "--issues", "6", "--into-store")
	run("memory", "rebuild")
	compact := manifest()
	run("memory", "rebuild", "--reference")
	reference := manifest()
	if compact.Version != 0 || reference.Version != 2 || len(compact.Entries) != 60 || !reflect.DeepEqual(compact.Entries, reference.Entries) {
		t.Fatalf("layouts: compact %d (%d entries), reference %d (%d entries), same entries %v",
			compact.Version, len(compact.Entries), reference.Version, len(reference.Entries), reflect.DeepEqual(compact.Entries, reference.Entries))
	}
	run("memory", "rebuild")
	if again := manifest(); again.Version != 0 || !reflect.DeepEqual(again.Entries, compact.Entries) {
		t.Fatalf("plain rebuild after --reference: layout %d", again.Version)
	}
}
