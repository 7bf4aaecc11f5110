package atomicfile

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// A write with ClearDead removes what killed writers of the same file
// left, and nothing else: a live writer's temporary, one without a
// process id (an older agentx's or another tool's) and another file's
// stay.
func TestWriteClearsDeadWritersTemporaries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	const dead, live = 2_000_001, 2_000_002
	prev := alive
	t.Cleanup(func() { alive = prev })
	alive = func(pid int) bool { return pid == live }
	names := map[string]bool{ // name: kept by the write
		".settings.json.tmp-" + strconv.Itoa(dead) + "-123":       false,
		".settings.json.tmp-" + strconv.Itoa(dead) + "-456":       false,
		".settings.json.tmp-" + strconv.Itoa(live) + "-789":       true,
		".settings.json.tmp-" + strconv.Itoa(os.Getpid()) + "-42": true,
		".settings.json.tmp-abcdef":                               true,
		".other.json.tmp-" + strconv.Itoa(dead) + "-1":            true,
		"settings.json.tmp-" + strconv.Itoa(dead) + "-1":          true,
	}
	for n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := Write(path, []byte("{}\n"), Options{ClearDead: true}); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range ents {
		left = append(left, e.Name())
	}
	for n, kept := range names {
		if slices.Contains(left, n) != kept {
			t.Errorf("%s: kept %v, want %v (left: %v)", n, !kept, kept, left)
		}
	}
	if !slices.Contains(left, "settings.json") {
		t.Errorf("the file was not written: %v", left)
	}
}

// Without ClearDead a write leaves other writers' temporaries alone (the
// hot paths under .agentx/ never read their directory).
func TestWriteWithoutClearDeadReadsNoDirectory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "issue-7.json")
	stale := filepath.Join(dir, ".issue-7.json.tmp-2000001-1")
	if err := os.WriteFile(stale, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	prev := alive
	t.Cleanup(func() { alive = prev })
	alive = func(int) bool { t.Error("a write without ClearDead asked whether a process lives"); return true }
	if err := Write(path, []byte("{}\n"), Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err != nil {
		t.Errorf("a write without ClearDead removed %s: %v", stale, err)
	}
}
