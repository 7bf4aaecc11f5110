//go:build !unix

package memanchor

import "github.com/agentx-dev/agentx/internal/core/atomicfile"

// readMapped reads the file at path (no mapping here); release does
// nothing.
func readMapped(path string) (data []byte, release func(), err error) {
	data, err = atomicfile.ReadRegular(path, atomicfile.StateLimit)
	return data, func() {}, err
}
