// Package workspace owns the layout of `.agentx/` in a user's repository:
// where the root is, and the path of every file the toolkit keeps there.
// Paths are only ever built from validated issue numbers.
package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/gitcmd"
)

// Dir is the name of the toolkit's directory at the root.
const Dir = ".agentx"

// Workspace is a root holding `.agentx/`.
type Workspace struct {
	Root string
}

// Find picks the root: flag, else $AGENTX_ROOT (env), else the nearest
// ancestor of cwd holding .agentx/, else the git top level, else cwd.
func Find(flagRoot, envRoot, cwd string) Workspace {
	if flagRoot != "" {
		return Workspace{Root: abs(flagRoot)}
	}
	if envRoot != "" {
		return Workspace{Root: abs(envRoot)}
	}
	for dir := cwd; ; {
		if fi, err := os.Stat(filepath.Join(dir, Dir)); err == nil && fi.IsDir() {
			return Workspace{Root: dir}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if top := gitTopLevel(cwd); top != "" {
		return Workspace{Root: top}
	}
	return Workspace{Root: cwd}
}

func abs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

// gitTopLevel walks up for a .git entry instead of running git: the hook
// path must not pay for a process start.
func gitTopLevel(cwd string) string {
	for dir := cwd; ; {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// GitBranch returns the current branch of the repository at root, reading
// .git/HEAD directly (fast: no process on the hook path) and asking git for
// worktrees, where .git is a file. "" on a detached HEAD or outside git.
func GitBranch(ctx context.Context, root string) string {
	head := filepath.Join(root, ".git", "HEAD")
	if data, err := os.ReadFile(head); err == nil {
		s := strings.TrimSpace(string(data))
		if ref, ok := strings.CutPrefix(s, "ref: refs/heads/"); ok {
			return ref
		}
		return ""
	}
	// git rev-parse --abbrev-ref HEAD
	out, err := gitcmd.Exec{Dir: root}.Git(ctx, "rev-parse", "--abbrev-ref", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// AgentxDir is `.agentx/`.
func (w Workspace) AgentxDir() string { return filepath.Join(w.Root, Dir) }

// ConfigFile is `.agentx/agentx.toml`.
func (w Workspace) ConfigFile() string { return filepath.Join(w.Root, Dir, "agentx.toml") }

// ConfigCacheFile is `.agentx/.config-cache`, the derived cache of the
// configuration (config.LoadCached).
func (w Workspace) ConfigCacheFile() string { return filepath.Join(w.Root, Dir, ConfigCacheName) }

// WorkflowsDir is `.agentx/workflows/`.
func (w Workspace) WorkflowsDir() string { return filepath.Join(w.Root, Dir, "workflows") }

// StateDir is `.agentx/state/`.
func (w Workspace) StateDir() string { return filepath.Join(w.Root, Dir, "state") }

// ClarificationsDir is `.agentx/state/clarifications/`.
func (w Workspace) ClarificationsDir() string {
	return filepath.Join(w.Root, Dir, "state", "clarifications")
}

// LedgerFile is `.agentx/state/clarifications/issue-N.json`.
func (w Workspace) LedgerFile(issue int) string {
	return filepath.Join(w.ClarificationsDir(), "issue-"+strconv.Itoa(issue)+".json")
}

// ArtifactsDir is `.agentx/state/artifacts/`: the stage artifact
// ledgers (package artifact).
func (w Workspace) ArtifactsDir() string { return filepath.Join(w.StateDir(), "artifacts") }

// ArtifactFile is `.agentx/state/artifacts/issue-N.json`.
func (w Workspace) ArtifactFile(issue int) string {
	return filepath.Join(w.ArtifactsDir(), "issue-"+strconv.Itoa(issue)+".json")
}

// AnswersDir is `.agentx/state/answers/`: whole responder answers too long
// for a ledger entry, one file per record and round.
func (w Workspace) AnswersDir() string { return filepath.Join(w.StateDir(), "answers") }

// AgentStatusFile is `.agentx/state/agent-status.json`.
func (w Workspace) AgentStatusFile() string {
	return filepath.Join(w.StateDir(), "agent-status.json")
}

// WriterIDFile is `.agentx/state/writer-id`: the random id under which
// this clone's audit trail is kept on the state branch. Local only.
func (w Workspace) WriterIDFile() string { return filepath.Join(w.StateDir(), WriterIDName) }

// InboxDir is `.agentx/state/inbox/`: the delivery stamps (the inbox
// generation every answer bumps, each session's last seen). Local only.
func (w Workspace) InboxDir() string { return filepath.Join(w.StateDir(), InboxName) }

// MetricsDir is `.agentx/state/metrics/`: each machine's weekly metrics
// sums (package metrics), one file per writer id and ISO week, which the
// state branch carries.
func (w Workspace) MetricsDir() string { return filepath.Join(w.StateDir(), "metrics") }

// EventsFile is `.agentx/state/events.jsonl`.
func (w Workspace) EventsFile() string { return filepath.Join(w.StateDir(), "events.jsonl") }

// MemoryDir is `.agentx/memory/`.
func (w Workspace) MemoryDir() string { return filepath.Join(w.Root, Dir, "memory") }

// SpoolDir is `.agentx/memory/spool/`: captures written before they are
// processed (local only).
func (w Workspace) SpoolDir() string { return filepath.Join(w.MemoryDir(), spoolName) }

// IndexRebuildFile is `.agentx/memory/index-rebuild`: the pid of a memory
// index rebuild a hook left running in the background (local only).
func (w Workspace) IndexRebuildFile() string { return filepath.Join(w.MemoryDir(), IndexRebuildName) }

// CursorsDir is `.agentx/memory/cursors/`: how far each session's
// transcript was captured (local only).
func (w Workspace) CursorsDir() string { return filepath.Join(w.MemoryDir(), cursorsName) }

// RetentionFile is `.agentx/memory/pending/retention.json`: which issue
// the hooks' retention visited last and the day the store's alerts were
// last shown (local only; in the pending directory because every hook
// finish rewrites it, and a rename into the memory directory changes the
// stat the search's freshness gate keys on).
func (w Workspace) RetentionFile() string {
	return filepath.Join(w.MemoryDir(), MemoryPendingName, RetentionName)
}

// OldRetentionFile is where agentx kept RetentionFile before issue 35,
// `.agentx/memory/retention.json` (moved at the next hook).
func (w Workspace) OldRetentionFile() string { return filepath.Join(w.MemoryDir(), RetentionName) }

// RecallJournalFile is `.agentx/memory/pending/recall-pending.jsonl`:
// recalls not yet folded into the store's recall counts (local only; in
// the pending directory so that a hook start creating it leaves the
// memory directory, which the search's freshness gate keys on, as it was).
func (w Workspace) RecallJournalFile() string {
	return filepath.Join(w.MemoryDir(), MemoryPendingName, recallJournalName)
}

// OldRecallJournalFile is where agentx kept the recall journal before
// issue 35, `.agentx/memory/recall-pending.jsonl`: read and folded, never
// written.
func (w Workspace) OldRecallJournalFile() string {
	return filepath.Join(w.MemoryDir(), recallJournalName)
}

// HookLogFile is the log of the last hook runs (local only; package hooklog).
func (w Workspace) HookLogFile() string { return filepath.Join(w.Root, Dir, HookLogName) }

// GitignoreFile is `.agentx/.gitignore`, written by init from LocalOnly.
func (w Workspace) GitignoreFile() string { return filepath.Join(w.Root, Dir, ".gitignore") }

// IssuesDir is `.agentx/issues/` (local issue files, where a team keeps them).
func (w Workspace) IssuesDir() string { return filepath.Join(w.Root, Dir, "issues") }

// LedgerIssue returns the issue number of a ledger file name `issue-N.json`.
func LedgerIssue(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "issue-")
	if !ok {
		return 0, false
	}
	num, ok := strings.CutSuffix(rest, ".json")
	if !ok || num == "" {
		return 0, false
	}
	for _, c := range num {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return 0, false
	}
	return n, true
}
