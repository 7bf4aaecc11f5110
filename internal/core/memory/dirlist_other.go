//go:build !linux

package memory

import "os"

// listNames lists the names in dir, unsorted.
func listNames(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer func() { _ = d.Close() }() // read-only
	return d.Readdirnames(-1)
}
