package verify

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/clock"
)

// branchTree lays the fixture out as the state branch holds it: ledgers
// and memory files at their paths, no manifest, the workspace's trail
// under one writer's directory and a second writer's beside it.
func branchTree(t *testing.T) fstest.MapFS {
	t.Helper()
	ws := fixture(t)
	tree := fstest.MapFS{}
	err := filepath.WalkDir(ws.AgentxDir(), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(ws.AgentxDir(), p)
		rel = filepath.ToSlash(rel)
		switch {
		case strings.HasPrefix(rel, "state/clarifications/issue-"), strings.HasPrefix(rel, "memory/issue-"):
		case strings.HasPrefix(rel, "state/audit"):
			rel = audit.WritersDir + "/aaaa000011112222/" + filepath.Base(rel)
		default:
			return nil
		}
		data, err := os.ReadFile(p)
		tree[rel] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	tr := &audit.Trail{Dir: other, Clock: clock.NewFake(t0)}
	for _, op := range []string{"clarify.request", "clarify.answer", "clarify.resolve"} {
		if err := tr.Append(context.Background(), audit.Entry{Actor: "reviewer", Op: op, Issue: 5}); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(tr.Path())
	if err != nil {
		t.Fatal(err)
	}
	tree[audit.WritersDir+"/bbbb000011112222/audit.jsonl"] = &fstest.MapFile{Data: data}
	// The Action's trail, one line.
	action, err := audit.AppendTo(nil, audit.Entry{Time: ts(0), Actor: "octocat", Op: "clarify.answer", Tool: "agentx-action"})
	if err != nil {
		t.Fatal(err)
	}
	tree["state/audit.jsonl"] = &fstest.MapFile{Data: action}
	return tree
}

func TestRunFSChecksTheBranchLayout(t *testing.T) {
	// Run from a directory holding a broken .agentx/: the tree check
	// must never read the disk.
	t.Chdir(t.TempDir())
	if err := os.MkdirAll(".agentx/state/clarifications", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(".agentx/state/clarifications/issue-5.json", []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	tree := branchTree(t)
	rep, err := RunFS(tree, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := errorsOf(rep, Error); len(got) != 0 {
		t.Fatalf("errors on a clean tree: %v", got)
	}
	c := rep.Counts
	if c.Ledgers != 2 || c.Records != 3 || c.Observations != 3 || c.IssueFiles != 2 || c.Trails != 3 || c.AuditLines != 2+3+1 {
		t.Fatalf("counts = %+v", c)
	}

	// Tampering with a writer's trail, an observation and the Action's
	// trail is reported at the branch's paths; no manifest is looked for.
	edit := func(name, old, new string) {
		t.Helper()
		f := tree[name]
		if !strings.Contains(string(f.Data), old) {
			t.Fatalf("%s does not contain %q", name, old)
		}
		f.Data = []byte(strings.Replace(string(f.Data), old, new, 1))
	}
	edit(audit.WritersDir+"/bbbb000011112222/audit.jsonl", `"op":"clarify.answer"`, `"op":"clarify.abandon"`)
	edit("memory/issue-5.json", "Sessions expire", "Sessions expirE")
	edit("state/audit.jsonl", "octocat", "octodog")
	tree["state/clarifications/issue-9.json"] = &fstest.MapFile{Data: []byte("x"), Mode: fs.ModeSymlink}
	rep, err = RunFS(tree, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range rep.Problems {
		got = append(got, p.Code+" "+p.Path)
	}
	want := []string{
		"OBSERVATION_HASH_MISMATCH memory/issue-5.json",
		"AUDIT_LINE_EDITED state/audit.d/bbbb000011112222/audit.jsonl",
		"AUDIT_LINE_EDITED state/audit.jsonl",
		"SYMLINK state/clarifications/issue-9.json",
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems %v\nwant %v", got, want)
	}
}
