// Package sync is GitHub Mode: it mirrors clarification ledgers to issue
// comments and labels, takes `/clarify` commands from issue comments back
// into the ledger, and runs the monitor's check for the repository. The
// protocol itself is the core's: commands and monitor actions are applied
// in memory, through protocol.Apply and the monitor's plan, to ledgers read
// from the state branch (GitHub Mode's shared state, which no code branch
// carries), and what changed is written back there in one commit.
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
//   - client.go: the few REST calls GitHub Mode uses; clientextra.go
//     those of the operational edges (reactions with their authors and
//     times, a person's repository role, the repository's comments since
//     a time, the token's login).
//   - statebranch.go: the state branch over the Git Data API: one ref and
//     one tree read, blobs by id, one commit per run, fast-forward only;
//     Update re-applies a change to the fresh branch after a lost race.
//   - branchfiles.go: the branch's layout (ledgers, memory, sync state),
//     seeding it from a checkout, and the digest's source read from it.
//
// Orchestration (a run of the action's commands, over the two above):
//   - syncer.go, branchsync.go: `sync`, with state.go, its
//     content-validated cache kept on the state branch.
//   - ingest.go: `ingest`, one issue_comment event (👀, then 👍 or 😕;
//     people allowed by association, login or repository role); once.go,
//     the record that applies a comment once per edit.
//   - sweep.go: the monitor's sweep, which applies commands no ingest run
//     answered (a run cancelled in GitHub's pending queue, or lost).
//   - monitor.go: `monitor`, the scheduled stale/stuck/deadlock check.
//   - reconcile.go: drift repair, a rotating slice of issues checked
//     against GitHub despite the cache, and the wrong-bot-login stop.
package sync
