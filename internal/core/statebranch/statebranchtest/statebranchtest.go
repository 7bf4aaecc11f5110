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
	"sync"
	"testing"
)

// Env makes git in tests independent of the machine's configuration
// (SetGitEnv, in a directory under $TMPDIR). It sets the environment once
// for the whole process, the same for every test, so tests that call it
// may still run in parallel (t.Setenv would forbid t.Parallel).
func Env(t testing.TB) {
	t.Helper()
	envOnce.Do(func() {
		dir, err := os.MkdirTemp("", "git-home-")
		if err == nil {
			err = SetGitEnv(dir)
		}
		envErr = err
	})
	if envErr != nil {
		t.Fatalf("git test environment: %v", envErr)
	}
}

var (
	envOnce sync.Once
	envErr  error
)

// gitConfig is the global git config of the tests; %s is an empty
// template directory.
const gitConfig = `[user]
	name = Test
	email = test@example.com
[init]
	defaultBranch = main
	templateDir = %s
[gc]
	auto = 0
[receive]
	autogc = false
[advice]
	detachedHead = false
[maintenance]
	auto = false
`

// SetGitEnv points the process's git at a HOME and global config of its
// own under dir (identity, main as the default branch, no automatic gc or
// maintenance, not even the process a push starts on the remote to find
// gc off, no hook samples copied into each repository) and no system
// config. Every test package driving real git shares it.
func SetGitEnv(dir string) error {
	home := filepath.Join(dir, "home")
	tmpl := filepath.Join(dir, "git-template")
	for _, d := range []string{home, tmpl} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	cfg := filepath.Join(home, "gitconfig")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(gitConfig, tmpl)), 0o644); err != nil {
		return err
	}
	for k, v := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": cfg,
		"GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.com",
		"GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.com",
	} {
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	return nil
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
	var doc doc
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("parse %q: %v", data, err)
	}
	var ids []string
	for _, r := range doc.Records {
		ids = append(ids, fmt.Sprint(r["id"]))
	}
	sort.Strings(ids)
	return ids
}

// ErrUnmergeable is what UnionMerge returns for content it cannot read.
var ErrUnmergeable = errors.New("unmergeable")

// UnionMerge stands in for the semantic merge: the records of every side
// (the base's too) unioned by id, less the ids any side lists under
// "dead" (its tombstones, which the result carries). Absence is never a
// deletion, as in the real merge.
func UnionMerge(path string, base, ours, theirs []byte) ([]byte, error) {
	seen := map[string]bool{}
	dead := map[string]bool{}
	var out []map[string]any
	for _, side := range [][]byte{ours, theirs, base} {
		if side == nil {
			continue
		}
		doc, err := parseDoc(path, side)
		if err != nil {
			return nil, err
		}
		for _, id := range doc.Dead {
			dead[id] = true
		}
		for _, r := range doc.Records {
			id := fmt.Sprint(r["id"])
			if !seen[id] {
				seen[id] = true
				out = append(out, r)
			}
		}
	}
	live := out[:0]
	for _, r := range out {
		if !dead[fmt.Sprint(r["id"])] {
			live = append(live, r)
		}
	}
	sort.Slice(live, func(i, j int) bool { return fmt.Sprint(live[i]["id"]) < fmt.Sprint(live[j]["id"]) })
	doc := map[string]any{"records": live}
	if len(dead) > 0 {
		var ids []string
		for id := range dead {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		doc["dead"] = ids
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	return append(data, '\n'), err
}

type doc struct {
	Records []map[string]any `json:"records"`
	Dead    []string         `json:"dead"`
}

func parseDoc(path string, data []byte) (*doc, error) {
	var d doc
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, ErrUnmergeable, err)
	}
	return &d, nil
}

// Valid is the stand-in's parse check: JSON.
func Valid(path string, data []byte) error {
	_, err := parseDoc(path, data)
	return err
}

// Lost lists the ids the sides hold that result lacks without listing
// them as dead.
func Lost(path string, result []byte, sides ...[]byte) ([]string, error) {
	res, err := parseDoc(path, result)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, id := range res.Dead {
		have[id] = true
	}
	for _, r := range res.Records {
		have[fmt.Sprint(r["id"])] = true
	}
	var lost []string
	for _, side := range sides {
		if side == nil {
			continue
		}
		d, err := parseDoc(path, side)
		if err != nil {
			return nil, err
		}
		for _, r := range d.Records {
			if id := fmt.Sprint(r["id"]); !have[id] {
				have[id] = true
				lost = append(lost, id)
			}
		}
	}
	sort.Strings(lost)
	return lost, nil
}

// Live lists the ids of the records a document holds.
func Live(path string, data []byte) ([]string, error) {
	d, err := parseDoc(path, data)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, r := range d.Records {
		ids = append(ids, fmt.Sprint(r["id"]))
	}
	return ids, nil
}
