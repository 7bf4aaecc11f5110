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
	"io/fs"
	"maps"
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
// its path. It is a copy of one made once per test binary (template):
// making it takes eight git processes and cloning it five, and the state
// branch tests make about 140 of them (issue 37).
func Remote(t testing.TB) string {
	t.Helper()
	tm := template(t)
	bare := filepath.Join(t.TempDir(), "remote.git")
	if err := os.CopyFS(bare, os.DirFS(tm.bare)); err != nil {
		t.Fatalf("copy the template remote: %v", err)
	}
	return bare
}

// Clone clones remote into a new directory and returns it. A remote as
// Remote made it (refs and HEAD as the template's) is cloned by copying
// the template's clone, with origin pointed at remote: what git clone
// would make of it, less the hard links a local clone makes to the
// remote's objects. Any other remote is cloned by git.
func Clone(t testing.TB, remote string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	if tm := template(t); sameRefs(tm.bare, remote) {
		if err := copyClone(tm, remote, dir); err != nil {
			t.Fatalf("copy the template clone: %v", err)
		}
		return dir
	}
	Git(t, filepath.Dir(dir), "clone", "--quiet", remote, dir)
	return dir
}

// templateRepos is the remote and clone Remote and Clone copy.
type templateRepos struct {
	bare, clone string
}

var (
	templateOnce sync.Once
	templateVal  templateRepos
	templateErr  error
)

// template makes the template once per process, with git as Remote
// always made its repositories (the environment of Env).
func template(t testing.TB) templateRepos {
	t.Helper()
	templateOnce.Do(func() {
		base, err := os.MkdirTemp("", "sbt-template-")
		if err != nil {
			templateErr = err
			return
		}
		templateVal, templateErr = makeTemplate(context.Background(), base)
	})
	if templateErr != nil {
		t.Fatalf("template repositories: %v", templateErr)
	}
	return templateVal
}

func makeTemplate(ctx context.Context, base string) (templateRepos, error) {
	tm := templateRepos{bare: filepath.Join(base, "remote.git"), clone: filepath.Join(base, "clone")}
	seed := filepath.Join(base, "seed")
	steps := []struct {
		dir  string
		args []string
	}{
		{base, []string{"init", "--quiet", "--bare", "-b", "main", tm.bare}},
		{base, []string{"init", "--quiet", "-b", "main", seed}},
		{seed, []string{"add", "README.md"}},
		{seed, []string{"commit", "--quiet", "-m", "first"}},
		{seed, []string{"push", "--quiet", tm.bare, "main"}},
		{base, []string{"clone", "--quiet", tm.bare, tm.clone}},
	}
	for i, s := range steps {
		if i == 2 {
			if err := os.WriteFile(filepath.Join(seed, "README.md"), []byte("code\n"), 0o644); err != nil {
				return tm, err
			}
		}
		if _, err := TryGit(ctx, s.dir, s.args...); err != nil {
			return tm, fmt.Errorf("git %s: %w", strings.Join(s.args, " "), err)
		}
	}
	return tm, nil
}

// sameRefs says whether remote's HEAD and refs are the template remote's
// (byte for byte; packed-refs included), so that a clone of it is a
// clone of the template.
func sameRefs(template, remote string) bool {
	files := func(root string) map[string]string {
		m := map[string]string{}
		for _, f := range []string{"HEAD", "packed-refs"} {
			if data, err := os.ReadFile(filepath.Join(root, f)); err == nil {
				m[f] = string(data)
			}
		}
		err := filepath.WalkDir(filepath.Join(root, "refs"), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			m[filepath.ToSlash(rel)] = string(data)
			return err
		})
		if err != nil {
			return nil
		}
		return m
	}
	a, b := files(template), files(remote)
	return a != nil && b != nil && maps.Equal(a, b)
}

// copyClone copies the template's clone to dir with its origin at remote.
func copyClone(tm templateRepos, remote, dir string) error {
	if err := os.CopyFS(dir, os.DirFS(tm.clone)); err != nil {
		return err
	}
	cfg := filepath.Join(dir, ".git", "config")
	data, err := os.ReadFile(cfg)
	if err != nil {
		return err
	}
	from := []byte("url = " + tm.bare + "\n")
	if !bytes.Contains(data, from) {
		return fmt.Errorf("%s has no %q", cfg, from)
	}
	return os.WriteFile(cfg, bytes.Replace(data, from, []byte("url = "+remote+"\n"), 1), 0o644)
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
