package intake

import (
	"context"

	"github.com/agentx-dev/agentx/internal/core/gitcmd"
	"github.com/agentx-dev/agentx/internal/core/issueref"
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
