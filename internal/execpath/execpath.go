// Package execpath finds executables the way a shell would, on a PATH the
// caller gives (the environment a host starts its hooks with, not
// necessarily this process's), and tells whether two paths are one file.
package execpath

import (
	"os"
	"path/filepath"
	"runtime"
)

// Find is the absolute path of the executable name in the first
// directory of pathList (a PATH value) that holds one, or "".
func Find(pathList, name string) string {
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if runtime.GOOS == "windows" {
			p += ".exe"
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && (runtime.GOOS == "windows" || fi.Mode()&0o111 != 0) {
			if abs, err := filepath.Abs(p); err == nil {
				return abs
			}
			return p
		}
	}
	return ""
}

// Same reports whether paths a and b name one file (links followed).
func Same(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}
