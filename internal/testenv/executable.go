package testenv

import (
	"io/fs"
	"os"
	"syscall"
)

// WriteExecutable writes a program a test then runs (a fake git, a hook
// script) as os.WriteFile does, holding syscall.ForkLock for reading, as
// the product's own writes of executables do (atomicfile): a child that
// another test of this process starts meanwhile would otherwise inherit
// the file open for writing, and until that child execs, running the
// program fails with ETXTBSY, "text file busy" (golang/go#22315). A
// second copy of the suite beside this one made it happen
// (statebranch's TestTransportTakesASuccessfulExitWhateverHoldsThePipes).
func WriteExecutable(path string, data []byte, perm fs.FileMode) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	return os.WriteFile(path, data, perm)
}
