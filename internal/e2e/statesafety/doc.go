// Package statesafety proves, with real git and the real agentx-hook
// binary, that GitHub Mode's shared state cannot be lost (issue 20): a
// bare remote, three clones and a linked worktree are driven by seeded
// random sequences of what a team does (clarify request, answer and
// resolve; memory add, compact and remove; sync, hook start and finish, a
// sync killed with SIGKILL; git clean -xfd, a worktree removed and added
// again, the state branch deleted, force-pushed back or renamed in the
// settings, junk written over a state file on either side). After every
// step no acknowledged record, thread entry or observation may vanish from
// every place that holds it (the local files, the sync bases, the state
// branches) unless the user's own act destroyed the last one; after a final
// sync of every clone and worktree each one holds all of them, as does the
// state branch, ids are unique and the user's HEAD, index, branches, stash
// and files outside .agentx/ are untouched. Each scenario of issue 20 is
// also an end-to-end test of its own.
//
// The package holds tests only. AGENTX_MODEL_SEQS and AGENTX_MODEL_SEED
// set the number of sequences and the first seed (docs/PERFORMANCE.md).
package statesafety
