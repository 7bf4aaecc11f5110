package intake

import (
	"context"

	"github.com/agentx-dev/agentx/internal/core/capture"
	"github.com/agentx-dev/agentx/internal/core/gitcmd"
	"github.com/agentx-dev/agentx/internal/core/issueref"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/validate"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// CommitAgent is the agent a commit is filed under when $AGENTX_AGENT
// names none: commits are an engineer's work unless told otherwise.
const CommitAgent = "engineer"

// RecordHead is the post-commit hook's work: HEAD of the repository at
// root stored as a code-change observation of the issue issueEnv
// ($AGENTX_ISSUE) or else the branch names, by agentEnv ($AGENTX_AGENT,
// else CommitAgent). With no issue named (a commit on main, a detached
// HEAD) nothing is recorded.
func (x *Intake) RecordHead(ctx context.Context, root, agentEnv, issueEnv string) error {
	issue, ok, err := issueref.Resolve("", issueEnv, workspace.GitBranch(ctx, root))
	if err != nil {
		return err
	}
	if !ok {
		return nil
	}
	agent := agentEnv
	if agent == "" {
		agent = CommitAgent
	} else if err := validate.Agent("AGENTX_AGENT", agent); err != nil {
		return err
	}
	return x.RecordCommit(ctx, gitcmd.Exec{Dir: root}, agent, issue)
}

// RecordCommit stores HEAD of the repository git runs in as a code-change
// observation of issue. Shelled out, not go-git: the post-commit hook runs
// with git's own environment (GIT_INDEX_FILE during `git commit -a`,
// GIT_DIR in worktrees).
func (x *Intake) RecordCommit(ctx context.Context, git gitcmd.Runner, agent string, issue int) error {
	out, err := ShowHead(ctx, git)
	if err != nil {
		return err
	}
	return x.RecordShown(ctx, out, agent, issue)
}

// ShowHead is what the post-commit hook reads of HEAD, once: its short
// hash, subject and changed paths.
func ShowHead(ctx context.Context, git gitcmd.Runner) (string, error) {
	// git show --no-color --no-ext-diff -m --first-parent
	//   --name-status --format='%h %s' HEAD
	// (-m --first-parent: a merge commit lists what it brought in, on
	// every git version; --diff-merges would need 2.31.)
	return git.Git(ctx, "show", "--no-color", "--no-ext-diff", "-m", "--first-parent",
		"--name-status", "--format=%h %s", "HEAD")
}

// RecordShown stores ShowHead's output as a code-change observation of
// issue by agent.
func (x *Intake) RecordShown(ctx context.Context, out, agent string, issue int) error {
	c, ok := capture.FromCommit(out)
	if !ok {
		return nil
	}
	_, err := x.Store.Store(ctx, []memory.Observation{x.withStep(Observation(agent, issue, "", c))})
	return err
}
