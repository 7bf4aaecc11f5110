// Package crashpoints proves, with real processes, that a writing command
// of agentx-hook killed at any point loses nothing already stored and
// leaves nothing half-written. Each writing command (hook start in a
// fresh GitHub Mode clone, restoring the state branch's files; setup
// --remove; memory rebuild --reference; clarify request,
// answer, ask, resolve, escalate and abandon, and a request whose check
// breaks a deadlock in two ledgers; init; setup for Claude Code, Codex
// and Copilot over a user's own settings; uninstall; artifact add and
// approve, and the post-commit hook recording a step's output; monitor
// marking a clarification stale; memory recall --write-instructions;
// memory add (one, and a file of several), capture,
// remove, rebuild and
// compact; hook start; hook finish capturing a transcript, in Local and
// in GitHub Mode; checkpoint create and restore; sync in GitHub Mode
// against a bare remote; sync --recover bringing back what a stripped
// state branch lost; the move to GitHub Mode, init --mode github and
// sync --init-from HEAD) is first run under a ptrace(2) tracer that
// counts the system calls it enters that can change a file (M: opens for
// writing, writes, renames, unlinks, syncs, truncations...), then run
// again in a fresh copy of its prepared workspace once per kill point N,
// killed with SIGKILL on entry to its Nth such call: its process group,
// as a host kills a hook (the git it runs in a group of its own lives on,
// as it would); and, for sync once more with git's calls counted too,
// every process at once, as a crash would. After each kill: `agentx-hook verify` is clean, or `verify
// --repair` makes it clean; every record (clarification, observation)
// stored before is there with the same content (a record the command
// changes keeps its thread as a prefix; an observation compacted away is
// in the archive); everything the killed command printed as stored is
// there; a new record is whole or absent, never doubled; and the next run
// of the same command succeeds (or, for answer, ask and resolve, refuses
// only because the killed run's change is already there; resolve's
// decision in memory is then stored by the next hook start, as the
// router documents; outside .agentx/ no temporary a killed write left
// survives the next run, and a user's files are each as before or as a
// complete run leaves them; a ref lock a kill left on the bare remote is named by
// the sync, and the test removes it as a person would; a recovery's next
// run has also pushed what it recovered).
//
// The kill point is a count of system calls, not a time: the verdict does
// not depend on load. strace's --inject counts each thread's calls apart,
// which in a Go program makes "the Nth call" the scheduler's choice, so
// the tracer is the test's own (tracer_test.go); a seccomp filter the
// command is started under stops it only at those calls
// (seccomp_test.go), not twice at each of its thousands of others.
//
// By default each command is killed at a deterministic sample of its
// points (the first, the middle and the last: about 3 s of CPU in `go
// test ./...`). AGENTX_CRASH_ALL=1 kills it at every point
// (scripts/ci/crashpoints.sh; the sync with git's calls, about 480 of
// them, at every third, the recovery at every second and, with git's
// calls, every fourth; AGENTX_CRASH_ALL=every at every one);
// AGENTX_CRASH_POINTS=N[,N...] at those alone (a failure names its N).
// The count M may differ by a call or two between runs of a command that
// writes git objects (whether an object's fan-out directory exists
// depends on hashes of timestamped content); a kill whose call is not the
// count's names both.
//
// Linux only (ptrace); the package holds tests only.
package crashpoints
