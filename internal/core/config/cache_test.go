package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/fileid"
)

// The configuration of the cache tests: every kind of warning (an unknown
// section and key, a person's unknown key, a person who is an agent), so
// that replaying them from the cache is checked too.
const cacheTestConfig = `mode = "local"
default_workflow = "feature"
typo_key = 1

[hooks]
default_agent = "aaaa"

[responder.architect]
command = ["true"]

[people]
lead = "@octo-lead"
engineer = "@octo-eng"
qa = { github = "@octo-qa", sla = "8h", pager = "x" }
`

const cacheTestWorkflow = `name = "bug"

[[steps]]
id = "fix"
agent = "engineer"
can_clarify = ["architect"]
`

// cacheWorkspace writes a configuration and returns its paths.
func cacheWorkspace(t *testing.T) (cfg, wfDir, cache string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".agentx")
	wfDir = filepath.Join(dir, "workflows")
	if err := os.MkdirAll(wfDir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg = filepath.Join(dir, "agentx.toml")
	writeFile(t, cfg, cacheTestConfig)
	writeFile(t, filepath.Join(wfDir, "feature.toml"), referenceWorkflow)
	writeFile(t, filepath.Join(wfDir, "bug.toml"), cacheTestWorkflow)
	writeFile(t, filepath.Join(dir, ".gitignore"), "*.lock\n.config-cache\n")
	return cfg, wfDir, filepath.Join(dir, ".config-cache")
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// cacheClock makes every file older than the racy window (now is an hour
// ahead), or, with racy, as young as the real clock says; it counts the
// Sets served from the cache.
func cacheClock(t *testing.T) (hits *int, racy *bool) {
	t.Helper()
	hits, racy = new(int), new(bool)
	cacheNow = func() time.Time {
		if *racy {
			return time.Now()
		}
		return time.Now().Add(time.Hour)
	}
	cacheHit = func() { *hits++ }
	t.Cleanup(func() { cacheNow, cacheHit = time.Now, nil })
	return hits, racy
}

// loadBoth loads through the cache and by parsing, and fails unless both
// give the same Set (unexported parts, warnings and their order included).
func loadBoth(t *testing.T, cfg, wfDir, cache, stamp string) *Set {
	t.Helper()
	got, err := LoadCached(cfg, wfDir, cache, stamp)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Load(cfg, wfDir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("from the cache:\n%+v\nparsed:\n%+v", got, want)
	}
	return got
}

func TestConfigCacheServesWhatParsingGives(t *testing.T) {
	if !fileid.Supported {
		t.Skip("no file identities on this system: LoadCached is Load")
	}
	hits, _ := cacheClock(t)
	cfg, wfDir, cache := cacheWorkspace(t)
	first := loadBoth(t, cfg, wfDir, cache, "v1")
	if *hits != 0 {
		t.Fatal("a hit without a cache")
	}
	if _, err := os.Stat(cache); err != nil {
		t.Fatalf("no cache written: %v", err)
	}
	second := loadBoth(t, cfg, wfDir, cache, "v1")
	if *hits != 1 {
		t.Fatalf("hits = %d, want 1", *hits)
	}
	// The warnings are replayed identically: same text, same number.
	if len(first.Config.Warnings) < 4 || !reflect.DeepEqual(first.Config.Warnings, second.Config.Warnings) {
		t.Fatalf("warnings parsed %q, from the cache %q", first.Config.Warnings, second.Config.Warnings)
	}
	for _, w := range []string{"typo_key", "responder", "pager", "engineer"} {
		if !strings.Contains(strings.Join(second.Config.Warnings, "\n"), w) {
			t.Errorf("no warning names %s: %q", w, second.Config.Warnings)
		}
	}
}

// Every change to an input is a miss, and what is served afterwards is
// what parsing gives: a cache that served stale data fails loadBoth.
func TestConfigCacheInvalidation(t *testing.T) {
	if !fileid.Supported {
		t.Skip("no file identities on this system: LoadCached is Load")
	}
	for _, tt := range []struct {
		name   string
		change func(t *testing.T, cfg, wfDir, cache string) (stamp string)
		// rewrites: the miss writes the cache again (false: the change
		// left a file no identity vouches for, so nothing is cached).
		rewrites bool
	}{
		{"same size, same times, in place", func(t *testing.T, cfg, _, _ string) string {
			// An edit within one tick: size and modification time are
			// kept, only the change time (and content) differ.
			fi, err := os.Stat(cfg)
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(cfg, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			at := strings.Index(cacheTestConfig, "aaaa")
			if _, err := f.WriteAt([]byte("bbbb"), int64(at)); err != nil {
				t.Fatal(err)
			}
			_ = f.Close()
			if err := os.Chtimes(cfg, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
			return "v1"
		}, true},
		{"touched", func(t *testing.T, cfg, _, _ string) string {
			later := time.Now().Add(time.Minute)
			if err := os.Chtimes(cfg, later, later); err != nil {
				t.Fatal(err)
			}
			return "v1"
		}, true},
		{"replaced by rename", func(t *testing.T, cfg, _, _ string) string {
			tmp := cfg + ".new"
			writeFile(t, tmp, strings.Replace(cacheTestConfig, "aaaa", "cccc", 1))
			if err := os.Rename(tmp, cfg); err != nil {
				t.Fatal(err)
			}
			return "v1"
		}, true},
		{"config removed", func(t *testing.T, cfg, _, _ string) string {
			if err := os.Remove(cfg); err != nil {
				t.Fatal(err)
			}
			return "v1"
		}, true},
		{"workflow added", func(t *testing.T, _, wfDir, _ string) string {
			writeFile(t, filepath.Join(wfDir, "story.toml"), strings.Replace(cacheTestWorkflow, "bug", "story", 1))
			return "v1"
		}, true},
		{"workflow removed", func(t *testing.T, _, wfDir, _ string) string {
			if err := os.Remove(filepath.Join(wfDir, "bug.toml")); err != nil {
				t.Fatal(err)
			}
			return "v1"
		}, true},
		{"workflow edited", func(t *testing.T, _, wfDir, _ string) string {
			writeFile(t, filepath.Join(wfDir, "bug.toml"), strings.Replace(cacheTestWorkflow, `"fix"`, `"fox"`, 1))
			return "v1"
		}, true},
		{"workflows directory removed", func(t *testing.T, _, wfDir, _ string) string {
			if err := os.RemoveAll(wfDir); err != nil {
				t.Fatal(err)
			}
			return "v1"
		}, true},
		{"workflow replaced by a symbolic link", func(t *testing.T, _, wfDir, _ string) string {
			p := filepath.Join(wfDir, "bug.toml")
			other := filepath.Join(filepath.Dir(wfDir), "bug-elsewhere.toml")
			writeFile(t, other, cacheTestWorkflow)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, p); err != nil {
				t.Fatal(err)
			}
			return "v1"
		}, false},
		{"another binary version", func(*testing.T, string, string, string) string { return "v2" }, true},
		{"corrupt cache: a byte flipped", func(t *testing.T, _, _, cache string) string {
			data, err := os.ReadFile(cache)
			if err != nil {
				t.Fatal(err)
			}
			data[len(data)-10] ^= 0x20
			writeFile(t, cache, string(data))
			return "v1"
		}, true},
		{"corrupt cache: torn", func(t *testing.T, _, _, cache string) string {
			data, err := os.ReadFile(cache)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, cache, string(data[:len(data)/2]))
			return "v1"
		}, true},
		{"corrupt cache: empty", func(t *testing.T, _, _, cache string) string {
			writeFile(t, cache, "")
			return "v1"
		}, true},
		{"corrupt cache: valid checksum, another document", func(t *testing.T, _, _, cache string) string {
			data, err := encodeCache(cacheKey{}, &Set{})
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, cache, string(data))
			return "v1"
		}, true},
		{"corrupt cache: a directory", func(t *testing.T, _, _, cache string) string {
			if err := os.Remove(cache); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(cache, 0o755); err != nil {
				t.Fatal(err)
			}
			return "v1"
		}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hits, _ := cacheClock(t)
			cfg, wfDir, cache := cacheWorkspace(t)
			loadBoth(t, cfg, wfDir, cache, "v1")
			loadBoth(t, cfg, wfDir, cache, "v1")
			if *hits != 1 {
				t.Fatalf("hits = %d before the change, want 1", *hits)
			}
			stamp := tt.change(t, cfg, wfDir, cache)
			loadBoth(t, cfg, wfDir, cache, stamp)
			if *hits != 1 {
				t.Fatalf("hits = %d after the change, want a miss", *hits)
			}
			loadBoth(t, cfg, wfDir, cache, stamp)
			if want := 1 + btoi(tt.rewrites); *hits != want {
				t.Fatalf("hits = %d after the miss, want %d", *hits, want)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A file younger than the racy window could change again within the same
// tick and keep its identity: no cache is written while one is.
func TestConfigCacheRacyFilesAreNotCached(t *testing.T) {
	if !fileid.Supported {
		t.Skip("no file identities on this system: LoadCached is Load")
	}
	hits, racy := cacheClock(t)
	*racy = true
	cfg, wfDir, cache := cacheWorkspace(t)
	loadBoth(t, cfg, wfDir, cache, "v1")
	loadBoth(t, cfg, wfDir, cache, "v1")
	if _, err := os.Stat(cache); err == nil || *hits != 0 {
		t.Fatalf("a cache of files younger than the racy window (hits %d, %v)", *hits, err)
	}
	*racy = false
	loadBoth(t, cfg, wfDir, cache, "v1")
	loadBoth(t, cfg, wfDir, cache, "v1")
	if *hits != 1 {
		t.Fatalf("hits = %d once the files are old, want 1", *hits)
	}
}

// A workspace without its `.agentx` directory is not made one by a read,
// and an invalid configuration is an error every time, never cached.
func TestConfigCacheWritesNothingElse(t *testing.T) {
	if !fileid.Supported {
		t.Skip("no file identities on this system: LoadCached is Load")
	}
	hits, _ := cacheClock(t)
	root := t.TempDir()
	dir := filepath.Join(root, ".agentx")
	if _, err := LoadCached(filepath.Join(dir, "agentx.toml"), filepath.Join(dir, "workflows"), filepath.Join(dir, ".config-cache"), "v1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Fatal("loading the configuration created .agentx")
	}
	cfg, wfDir, cache := cacheWorkspace(t)
	writeFile(t, cfg, "mode = [\n")
	for range 2 {
		if _, err := LoadCached(cfg, wfDir, cache, "v1"); err == nil {
			t.Fatal("an invalid configuration loaded")
		}
	}
	if _, err := os.Stat(cache); err == nil || *hits != 0 {
		t.Fatalf("an invalid configuration was cached (hits %d)", *hits)
	}
}

// A workspace whose .agentx/.gitignore predates the cache (it does not
// list it) gets none: the file would show in every `git status` there.
// Once the line is added (doctor's fix), the cache is written.
func TestConfigCacheOnlyWhereGitignoreListsIt(t *testing.T) {
	if !fileid.Supported {
		t.Skip("no file identities on this system: LoadCached is Load")
	}
	hits, _ := cacheClock(t)
	cfg, wfDir, cache := cacheWorkspace(t)
	gi := filepath.Join(filepath.Dir(cache), ".gitignore")
	for _, old := range []string{"*.lock\nsearch.idx\n", ""} {
		if old == "" {
			if err := os.Remove(gi); err != nil {
				t.Fatal(err)
			}
		} else {
			writeFile(t, gi, old)
		}
		for range 2 {
			loadBoth(t, cfg, wfDir, cache, "v1")
		}
		if _, err := os.Stat(cache); err == nil || *hits != 0 {
			t.Fatalf(".gitignore %q: a cache was written (hits %d)", old, *hits)
		}
	}
	writeFile(t, gi, "*.lock\n.config-cache\n")
	loadBoth(t, cfg, wfDir, cache, "v1")
	loadBoth(t, cfg, wfDir, cache, "v1")
	if *hits != 1 {
		t.Fatalf("with .config-cache listed: %d hits, want 1", *hits)
	}
}
