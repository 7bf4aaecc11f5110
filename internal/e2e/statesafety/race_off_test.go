//go:build !race

package statesafety

const raceEnabled = false
