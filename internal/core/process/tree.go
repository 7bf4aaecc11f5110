package process

import (
	"crypto/rand"
	"encoding/hex"
	"os/exec"
)

// treeEnv names the environment variable that marks a command's
// descendants (TrackTree).
const treeEnv = "AGENTX_PROCESS_TREE"

// Tree is the set of processes a command started, however far they moved
// from it: a child that left the command's process group (`setsid`), or
// one that outlived the command and was reparented to init. Every one of
// them inherits an environment variable with a token of the tree's own,
// and KillAll finds them by it (where the system lets a process read
// another's environment: Linux /proc; elsewhere the process group is all
// there is).
type Tree struct{ token string }

// TrackTree marks cmd's environment (set cmd.Env first) and returns its
// tree. Call it before cmd starts.
func TrackTree(cmd *exec.Cmd) *Tree {
	var b [12]byte
	_, _ = rand.Read(b[:])
	t := &Tree{token: hex.EncodeToString(b[:])}
	if cmd.Env == nil {
		cmd.Env = cmd.Environ()
	}
	cmd.Env = append(cmd.Env, treeEnv+"="+t.token)
	return t
}

// KillAll sends SIGKILL to every live process of the tree and returns how
// many it found (best effort: a process of another user, or one that
// cleared its environment, is not found).
func (t *Tree) KillAll() int { return killMarked(treeEnv + "=" + t.token) }
