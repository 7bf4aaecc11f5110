//go:build !linux

package fileid

import (
	"os"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
)

// Supported reports whether identities can be read here: without a
// change time an identity could be forged by a tool that restores
// modification times, so every file is read on each scan (correct, only
// slower).
const Supported = false

// StatAt never vouches for a file here.
func StatAt(*os.File, string) (ID, bool) { return ID{}, false }

// Stat never vouches for a file here.
func Stat(string) (id ID, ok, absent bool) { return ID{}, false, false }

// Read reads the file; its identity is never taken here.
func Read(path string, limit int64) ([]byte, ID, bool, error) {
	data, err := atomicfile.ReadRegular(path, limit)
	return data, ID{}, false, err
}

// ReadExpect is Read: without identities nothing is saved by comparing.
func ReadExpect(path string, limit int64, _ []byte) ([]byte, ID, bool, error) {
	return Read(path, limit)
}
