package sync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/githubfake"
)

// The digest's input from the state branch: every ledger, and the
// observation times of the memory issue files (not the archive, which
// holds compacted originals); a file that does not parse is reported and
// left out, never taken for an empty one.
func TestBranchSourceReadsLedgersAndMemory(t *testing.T) {
	t.Parallel()
	fake := githubfake.New()
	defer fake.Close()
	fake.SetBranchFiles(DefaultStateBranch, map[string][]byte{
		ledgerPath42:                            encode(t, ledger42()),
		"state/clarifications/issue-7.json":     []byte("{not json"),
		"state/clarifications/notes.txt":        []byte("ignored"),
		"memory/issue-42.json":                  []byte(`{"version":1,"issueNumber":42,"observations":[{"id":"obs-1","agent":"engineer","issueNumber":42,"category":"decision","content":"x","summary":"x","tokens":5,"timestamp":"2026-11-20T10:00:00.000Z"}]}`),
		"memory/issue-43.json":                  []byte("[broken"),
		"memory/archive/issue-42-archived.json": []byte(`{"version":1,"issueNumber":42,"observations":[{"id":"obs-0","tokens":9,"timestamp":"2026-11-01T10:00:00.000Z"}]}`),
		SyncStatePath:                           []byte("{}"),
	}, "seed")
	var warned []string
	src := &BranchSource{State: NewStateBranch(newTestClient(t, fake, &sleeps{}), ""), Warn: func(format string, args ...any) { warned = append(warned, fmt.Sprintf(format, args...)) }}
	ctx := context.Background()
	ls, err := src.Ledgers(ctx)
	if err != nil || len(ls) != 1 || ls[0].IssueNumber != 42 {
		t.Fatalf("ledgers %v, %v", ls, err)
	}
	mem, err := src.Memory(ctx)
	if err != nil || len(mem.Times) != 1 || mem.Tokens != 5 || mem.Times[0] != 1795168800000 {
		t.Fatalf("memory %+v, %v", mem, err)
	}
	if evs, err := src.Events(ctx); evs != nil || err != nil {
		t.Fatalf("events %v %v", evs, err)
	}
	if len(warned) != 2 || !strings.Contains(warned[0], "issue-7.json") || !strings.Contains(warned[1], "issue-43.json") {
		t.Fatalf("warnings %q", warned)
	}
	// One ref read and one tree read for the whole digest.
	if c := fake.Calls(); c["GET /repos/{owner}/{repo}/git/ref/{ref...}"] != 1 || c["GET /repos/{owner}/{repo}/git/trees/{sha}"] != 1 {
		t.Fatalf("calls %v", c)
	}
}

// A token without contents: write is refused at the first write; the
// error names the branch and the permission, and nothing is retried.
func TestStateBranchTokenWithoutContentsWrite(t *testing.T) {
	t.Parallel()
	fake := githubfake.New()
	defer fake.Close()
	fake.PutBranchFile(DefaultStateBranch, ledgerPath42, []byte("{}"))
	fake.Fault = func(c githubfake.Call) *githubfake.Response {
		if c.Method != "GET" {
			return &githubfake.Response{Status: 403, Body: `{"message":"Resource not accessible by integration"}`}
		}
		return nil
	}
	sb := NewStateBranch(newTestClient(t, fake, &sleeps{}), "")
	attempts, _, err := sb.Update(context.Background(), "x", func(context.Context, *StateSnapshot, func(string) ([]byte, error)) (map[string][]byte, error) {
		return map[string][]byte{ledgerPath42: []byte("{ }")}, nil
	})
	if !errors.Is(err, ErrProtected) || attempts != 1 || !strings.Contains(err.Error(), "contents: write") || !strings.Contains(err.Error(), DefaultStateBranch) {
		t.Fatalf("attempts %d, err %v", attempts, err)
	}
	if n := fake.Writes(); n != 1 {
		t.Fatalf("%d writes, want 1 (no retry)", n)
	}
}

// Seeding a missing branch from a checkout: the state files and the old
// sync state, in one commit; derived files stay behind; a branch another
// run created first is taken as it is.
func TestSeedFromACheckout(t *testing.T) {
	t.Parallel()
	fake := githubfake.New()
	defer fake.Close()
	root := t.TempDir()
	for rel, content := range map[string]string{
		".agentx/state/clarifications/issue-42.json": "{}",
		".agentx/memory/issue-42.json":               "{}",
		".agentx/memory/archive/a.json":              "{}",
		".agentx/memory/manifest.json":               "{}",
		".agentx/state/agent-status.json":            "{}",
		".agentx/state/github-sync.json":             `{"schema_version":1}`,
		".agentx/agentx.toml":                        "",
	} {
		writeTestFile(t, filepath.Join(root, rel), content)
	}
	sb := NewStateBranch(newTestClient(t, fake, &sleeps{}), "")
	ctx := context.Background()
	snap, _ := sb.Read(ctx)
	next, n, err := Seed(ctx, sb, snap, root)
	if err != nil || n != 4 || next.Commit == "" {
		t.Fatalf("seed: %d files, %v", n, err)
	}
	files := fake.BranchFiles(DefaultStateBranch)
	if len(files) != 5 || string(files[SyncStatePath]) != `{"schema_version":1}` || fake.BranchCommits(DefaultStateBranch) != 1 {
		t.Fatalf("branch %q", files)
	}
	// The branch's trail starts with one line per seeded state file.
	trail := string(files[BranchAuditPath])
	if n := strings.Count(trail, `"op":"sync.seed"`); n != 3 || !strings.Contains(trail, `"ids":["state/clarifications/issue-42.json"]`) {
		t.Fatalf("trail %s", trail)
	}
	trailDir := t.TempDir()
	writeTestFile(t, filepath.Join(trailDir, "audit.jsonl"), trail)
	if findings, lines, err := audit.Check(trailDir); err != nil || len(findings) != 0 || lines != 3 {
		t.Fatalf("the seeded trail does not verify: %v %d %v", findings, lines, err)
	}
	// The branch exists now: nothing more is seeded.
	if again, n, err := Seed(ctx, sb, next, root); err != nil || n != 0 || again.Commit != next.Commit {
		t.Fatalf("second seed: %d, %v", n, err)
	}
	// Another run created the branch between our read and our commit.
	fake2 := githubfake.New()
	defer fake2.Close()
	sb2 := NewStateBranch(newTestClient(t, fake2, &sleeps{}), "")
	empty, _ := sb2.Read(ctx)
	fake2.PutBranchFile(DefaultStateBranch, "state/clarifications/issue-1.json", []byte("{}"))
	got, n, err := Seed(ctx, sb2, empty, root)
	if err != nil || n != 0 || got.Commit == "" || len(fake2.BranchFiles(DefaultStateBranch)) != 1 {
		t.Fatalf("seed after a lost race: %d, %v, %q", n, err, fake2.BranchFiles(DefaultStateBranch))
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
