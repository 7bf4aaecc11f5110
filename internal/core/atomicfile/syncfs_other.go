//go:build !linux

package atomicfile

// syncFS has no file-system-wide sync to offer here: each staged file is
// synced on its own.
func syncFS(string) bool { return false }
