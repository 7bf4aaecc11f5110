package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindOrder(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	deep := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	if got := Find("", "", deep).Root; got != repo {
		t.Errorf("git top level: %s", got)
	}
	_ = os.Mkdir(filepath.Join(repo, "a", Dir), 0o755)
	if got := Find("", "", deep).Root; got != filepath.Join(repo, "a") {
		t.Errorf("nearest .agentx: %s", got)
	}
	if got := Find("", "/env/root", deep).Root; got != "/env/root" {
		t.Errorf("env: %s", got)
	}
	if got := Find("/flag", "/env/root", deep).Root; got != "/flag" {
		t.Errorf("flag: %s", got)
	}
	lone := filepath.Join(root, "lone")
	_ = os.Mkdir(lone, 0o755)
	if got := Find("", "", lone).Root; got != lone && filepath.Dir(got) == root {
		t.Errorf("cwd fallback: %s", got)
	}
}

func TestLedgerIssue(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]int{"issue-42.json": 42, "issue-1.json": 1, "issue-0.json": 0, "issue-x.json": 0,
		"issue-.json": 0, "issue-42.json.lock": 0, ".issue-42.json.tmp-1": 0, "issue-4a.json": 0} {
		got, ok := LedgerIssue(name)
		if got != want || ok != (want > 0) {
			t.Errorf("LedgerIssue(%q) = %d, %v", name, got, ok)
		}
	}
}

func TestGitBranch(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	_ = os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	_ = os.WriteFile(filepath.Join(root, ".git", "HEAD"), []byte("ref: refs/heads/feat/42-login\n"), 0o644)
	if got := GitBranch(context.Background(), root); got != "feat/42-login" {
		t.Errorf("branch = %q", got)
	}
	_ = os.WriteFile(filepath.Join(root, ".git", "HEAD"), []byte("0123456789abcdef\n"), 0o644)
	if got := GitBranch(context.Background(), root); got != "" {
		t.Errorf("detached = %q", got)
	}
}

// The generated .agentx/.gitignore is what init wrote before the patterns
// moved here, plus the writer id (issue 13): repositories initialised by
// older versions keep theirs, and a state-branch mirror skips exactly these;
// then the marker of a background index rebuild (issue 20), then the log of
// the last hook runs (issue 21), then the per-machine files (issue 37),
// then the configuration cache (issue 35).
func TestGitignoreContent(t *testing.T) {
	t.Parallel()
	want := "# local: locks, temporaries, spools, crash markers, this clone's writer id\n*.lock\n*.lock.*\n.*.tmp-*\nspool/\nmemory/spool\ncursors/\nmemory/pending/\nindex-rebuild*\nrecall-pending.jsonl*\nhook-log.jsonl*\nstate/writer-id\nmemory/retention.json\nstate/inbox/\n" +
		"# derived: rebuilt from the JSON files when missing\n.monitor-index\n.artifact-index\nsearch.idx\nsearch.files\nsearch.delta\nanchors.idx\nanchors.state\n.config-cache\n" +
		"# per machine: rewritten by every hook here (status, events, audit trail, metrics); checkpoints keep them\n" +
		"state/agent-status.json\nstate/events.jsonl\nstate/audit*.jsonl\nstate/metrics/\n"
	if got := string(Gitignore()); got != want {
		t.Errorf("Gitignore() =\n%s\nwant\n%s", got, want)
	}
}

// Every local-only path method names a file the ignore patterns cover.
func TestLocalPathsAreIgnored(t *testing.T) {
	t.Parallel()
	w := Workspace{Root: "/r"}
	for _, p := range []string{w.SpoolDir() + "/", w.CursorsDir() + "/", w.RecallJournalFile(), w.RecallJournalFile() + ".applying", w.WriterIDFile(), w.HookLogFile()} {
		rel, _ := filepath.Rel(w.AgentxDir(), p)
		rel = filepath.ToSlash(rel)
		if strings.HasSuffix(p, "/") {
			rel += "/"
		}
		if !IsLocalOnly(rel) {
			t.Errorf("%s is not covered by LocalOnly", rel)
		}
	}
}

func TestIsLocalOnly(t *testing.T) {
	t.Parallel()
	for rel, want := range map[string]bool{
		"agentx.toml": false, "workflows/feature.toml": false, "state/clarifications/issue-1.json": false,
		"state/clarifications/issue-1.json.lock": true, "state/.agent-status.json.tmp-123": true,
		"state/clarifications/.monitor-index": true, "memory/search.idx": true, "memory/manifest.json": false,
		"memory/spool/x.json": true, "memory/cursors/s1.json": true, "memory/pending/issue-1": true,
		"memory/recall-pending.jsonl": true, "memory/recall-pending.jsonl.applying": true,
		"memory/archive/issue-1.json": false, "state/audit.jsonl": false, "pending/x": false,
		"memory/spool/": true, "memory/": false, "state/writer-id": true, "writer-id": false,
	} {
		if got := IsLocalOnly(rel); got != want {
			t.Errorf("IsLocalOnly(%q) = %v, want %v", rel, got, want)
		}
	}
}

// Issue 32: a symbolic link at the spool's place is ignored too (git's
// `spool/` matches directories only).
func TestSpoolLinkIsLocal(t *testing.T) {
	t.Parallel()
	if !IsLocalOnly("memory/spool") || !strings.Contains(string(Gitignore()), "\nmemory/spool\n") {
		t.Fatal("a symbolic link at memory/spool is not ignored")
	}
}
