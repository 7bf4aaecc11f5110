//go:build !race

package capture

// raceSlowdown scales the CPU bounds of tests run with -race.
const raceSlowdown = 1
