// Package sync is GitHub Mode: it mirrors clarification ledgers to issue
// comments and labels, takes `/clarify` commands from issue comments back
// into the ledger, and runs the monitor's check for the repository. The
// protocol itself is the core's: commands and monitor actions are applied
// in memory, through protocol.Apply and the monitor's plan, to ledgers read
// from the repository, and what changed is written back.
//
// The files fall in three groups, so most tests need neither disk nor
// network:
//
// Pure planning (no I/O; values in, values out):
//   - command.go: parse a `/clarify` comment into a Command.
//   - marker.go: the hidden marker naming record, round and entry type.
//   - render.go: a thread entry rendered for people, with its marker.
//   - plan.go: the comments and labels an issue should carry, and the
//     operations that take it there.
//
// The GitHub client (effects on the REST API):
//   - transport.go: pacing of writes, retries on rate limits and 5xx.
//   - client.go: the few REST calls GitHub Mode uses.
//   - commit.go: one repository file changed with optimistic concurrency
//     (the change is re-applied to the fresh file on a conflict).
//
// Orchestration (a run of the action's commands, over the two above):
//   - syncer.go: `sync`, with state.go, its content-validated cache.
//   - ingest.go: `ingest`, one issue_comment event.
//   - monitor.go: `monitor`, the scheduled stale/stuck/deadlock check.
package sync
