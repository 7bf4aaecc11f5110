//go:build !unix

package memory

// processAlive cannot probe portably here: assume alive, so markers are
// repaired by age alone.
func processAlive(int) bool { return true }
