//go:build race

package testenv

// RaceSlowdown scales a CPU bound for a race-built test binary, which
// does the same work several times slower.
const RaceSlowdown = 10
