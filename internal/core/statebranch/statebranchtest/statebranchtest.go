// Package statebranchtest holds what tests of the state branch share: real
// git repositories on disk (a bare remote and clones standing for agents on
// different machines) and a stand-in merger that unions JSON records by id.
package statebranchtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Env makes git in tests independent of the machine's configuration.
func Env(t testing.TB) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "gitconfig"))
	for _, k := range []string{"GIT_AUTHOR", "GIT_COMMITTER"} {
		t.Setenv(k+"_NAME", "Test")
		t.Setenv(k+"_EMAIL", "test@example.com")
	}
}

// Git runs git in dir and returns its trimmed stdout; it fails the test on
// an error.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := TryGit(t.Context(), dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// TryGit is Git returning the error.
func TryGit(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%w: %s", err, errb.String())
	}
	return strings.TrimSpace(out.String()), nil
}

// Remote creates a bare repository with one commit on main and returns
// its path.
func Remote(t testing.TB) string {
	t.Helper()
	base := t.TempDir()
	bare := filepath.Join(base, "remote.git")
	Git(t, base, "init", "--quiet", "--bare", "-b", "main", bare)
	seed := filepath.Join(base, "seed")
	Git(t, base, "init", "--quiet", "-b", "main", seed)
	WriteFile(t, filepath.Join(seed, "README.md"), "code\n")
	Git(t, seed, "add", "README.md")
	Git(t, seed, "commit", "--quiet", "-m", "first")
	Git(t, seed, "push", "--quiet", bare, "main")
	return bare
}

// Clone clones remote into a new directory and returns it.
func Clone(t testing.TB, remote string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	Git(t, filepath.Dir(dir), "clone", "--quiet", remote, dir)
	return dir
}

// WriteFile writes content, creating directories.
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Records returns a JSON document {"records":[{"id":ID},...]}.
func Records(ids ...string) string {
	recs := make([]map[string]string, len(ids))
	for i, id := range ids {
		recs[i] = map[string]string{"id": id}
	}
	data, _ := json.MarshalIndent(map[string]any{"records": recs}, "", "  ")
	return string(data) + "\n"
}

// IDs lists the ids of the records of a document written by Records (or
// merged by UnionMerge), sorted.
func IDs(t testing.TB, data []byte) []string {
	t.Helper()
	var doc map[string][]map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("parse %q: %v", data, err)
	}
	var ids []string
	for _, r := range doc["records"] {
		ids = append(ids, fmt.Sprint(r["id"]))
	}
	sort.Strings(ids)
	return ids
}

// ErrUnmergeable is what UnionMerge returns for content it cannot read.
var ErrUnmergeable = errors.New("unmergeable")

// UnionMerge stands in for the semantic merge: the records of every side
// unioned by id (ours first, then theirs), a deletion on either side
// honoured only when the other side did not change the file.
func UnionMerge(path string, base, ours, theirs []byte) ([]byte, error) {
	if ours == nil || theirs == nil {
		if ours == nil && bytes.Equal(theirs, base) || theirs == nil && bytes.Equal(ours, base) {
			return nil, nil
		}
		if ours == nil {
			return theirs, nil
		}
		return ours, nil
	}
	seen := map[string]bool{}
	var out []map[string]any
	for _, side := range [][]byte{ours, theirs} {
		var doc map[string][]map[string]any
		if err := json.Unmarshal(side, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w: %w", path, ErrUnmergeable, err)
		}
		for _, r := range doc["records"] {
			id := fmt.Sprint(r["id"])
			if !seen[id] {
				seen[id] = true
				out = append(out, r)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]["id"]) < fmt.Sprint(out[j]["id"]) })
	data, err := json.MarshalIndent(map[string]any{"records": out}, "", "  ")
	return append(data, '\n'), err
}
