//go:build race

package statesafety

// raceEnabled: under the race detector the harness's own goroutines are
// what is checked, so fewer sequences suffice (the binary under test is
// built without it either way).
const raceEnabled = true
