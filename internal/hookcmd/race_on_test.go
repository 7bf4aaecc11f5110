//go:build race

package hookcmd

// raceEnabled: under the race detector every child process is instrumented
// too and starts ~10x slower, so the process tests scale their counts down;
// the full counts run in the plain `go test ./...`.
const raceEnabled = true
