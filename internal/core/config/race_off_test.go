//go:build !race

package config

// raceSlowdown scales the CPU bounds of tests run with -race.
const raceSlowdown = 1
