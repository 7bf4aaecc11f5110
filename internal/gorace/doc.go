// Package gorace makes the race-built child processes of a test start and
// exit fast. A test that runs its own binary again (a second writer, a
// crash, a killed holder) imports it for its side effect:
//
//	import _ "github.com/agentx-dev/agentx/internal/gorace"
//
// Under -race a process sleeps one second at exit by default (GORACE
// atexit_sleep_ms=1000), so a test starting hundreds of processes spends
// minutes asleep. In a race build this package sets GORACE to Value when
// it is unset, before any test runs, so every child inherits it; a GORACE
// set by the caller is kept. Without -race it does nothing.
//
// The test binary itself read GORACE when it started: export Value
// before `go test -race` (as .ci/run does) to spare its own exit sleep too.
package gorace

// Value is what GORACE is set to: no sleep at exit, and the first race
// report ends the process (a child's race fails its parent's test at once
// instead of being lost in output nobody reads).
const Value = "atexit_sleep_ms=0 halt_on_error=1"
