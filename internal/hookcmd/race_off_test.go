//go:build !race

package hookcmd

const raceEnabled = false
