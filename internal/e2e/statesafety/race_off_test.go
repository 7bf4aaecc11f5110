//go:build unix && !race

package statesafety

const raceBuilt = false
