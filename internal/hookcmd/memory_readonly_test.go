package hookcmd

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// treeState is every file under dir with its bytes and modification time,
// the configuration's cache (.config-cache) aside: any command writes it
// once agentx.toml and the workflows are 2 s old (fileid.RacyWindow), so
// whether a reader wrote it depended on how fast the machine got there
// from init, not on what memory's readers do.
func treeState(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == workspace.ConfigCacheName {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[p] = info.ModTime().Format(time.RFC3339Nano) + "\x00" + string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Read-only commands never write (issue 14): over files the old tools
// wrote (issue 0, a manifest that disagrees with the issue files and has
// no index), `memory stats`, `search` and `get` change no byte and no
// modification time anywhere under .agentx, and report the disagreement.
func TestMemoryReadersWriteNothing(t *testing.T) {
	t.Parallel()
	root := initWorkspace(t)
	mem := filepath.Join(root, ".agentx", "memory")
	obs := func(issue, n int, text string) string {
		return `{"id":"obs-engineer-` + itoa(issue) + `-170903520000` + itoa(n) + `-a1b2c3","agent":"engineer","issueNumber":` + itoa(issue) +
			`,"category":"decision","content":"` + text + `","summary":"` + text + `","tokens":9,"timestamp":"2026-02-27T10:00:00.000Z","sessionId":"s1"}`
	}
	files := map[string]string{
		"issue-0.json":  `{"version":1,"issueNumber":0,"updatedAt":"2026-02-27T10:00:00.000Z","observations":[` + obs(0, 1, "Chat storage uses per-issue files") + "]}\n",
		"issue-29.json": `{"version":1,"issueNumber":29,"updatedAt":"2026-02-27T10:00:00.000Z","observations":[` + obs(29, 2, "Zebra crossings are graphs") + "]}\n",
		// The manifest lists issue 0 only: issue 29's observation is missing.
		"manifest.json": `{"version":1,"updatedAt":"2026-02-27T10:00:00.000Z","entries":[{"id":"obs-engineer-0-1709035200001-a1b2c3","agent":"engineer","issueNumber":0,"category":"decision","summary":"Chat storage uses per-issue files","tokens":9,"timestamp":"2026-02-27T10:00:00.000Z"}]}` + "\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(mem, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := treeState(t, filepath.Join(root, ".agentx"))
	time.Sleep(20 * time.Millisecond) // a rewrite shows in the modification times
	var out strings.Builder
	for _, args := range [][]string{
		{"memory", "stats"}, {"memory", "stats", "--json"},
		{"memory", "search", "zebra"}, {"memory", "search", "chat", "--json"},
		{"memory", "get", "obs-engineer-0-1709035200001-a1b2c3"}, {"memory", "get", "obs-engineer-29-1709035200002-a1b2c3"},
	} {
		out.WriteString(run(t, root, nil, "agentx-hook", append([]string{"--root", root}, args...)...))
	}
	after := treeState(t, filepath.Join(root, ".agentx"))
	for p, v := range before {
		if after[p] != v {
			t.Errorf("changed %s", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("created %s", p)
		}
	}
	s := out.String()
	for _, want := range []string{`"totalObservations": 2`, "Zebra crossings are graphs", "Chat storage uses per-issue files", "disagrees with the issue files"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in\n%s", want, s)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
