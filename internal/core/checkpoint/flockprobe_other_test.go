//go:build !unix

package checkpoint

// flockHeld cannot be told here (no flock): see the unix file.
func flockHeld(string) (held, known bool) { return false, false }

// opens cannot be told here: see the unix file.
func opens(string) (n int, known bool) { return 0, false }
