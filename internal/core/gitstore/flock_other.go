//go:build !unix

package gitstore

import "os"

// tryFlock: no flock here; a lock is judged by its age alone.
func tryFlock(*os.File) bool { return true }

func unflock(*os.File) {}
