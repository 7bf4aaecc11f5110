//go:build !linux

package monitor

import (
	"os"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
)

// File identity is unavailable here: without a change time it could be
// forged by a tool that restores modification times, so every ledger is
// read on each scan (correct, only slower).
func dirFD(*os.File) int { return -1 }

func statAt(int, string, string) (identity, bool) { return identity{}, false }

func readWithIdentity(path string) ([]byte, identity, bool, error) {
	data, err := atomicfile.ReadRegular(path, atomicfile.StateLimit)
	return data, identity{}, false, err
}
