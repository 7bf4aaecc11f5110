package spool

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrLinked is a spool directory that is a symbolic link (issue 32): the
// spool holds raw captures, so one followed outside the repository would
// write them where nobody looks (and read payloads planted there into
// memory). It is refused, never followed.
var ErrLinked = errors.New("the spool directory is a symbolic link")

// confined refuses a spool directory that is a symbolic link; a missing
// one is fine (Put creates it).
func (s *Spool) confined() error {
	fi, err := os.Lstat(s.dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("spool %s: %w", s.dir, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("spool %s: %w; remove the link (`rm %s`) and the next hook recreates the directory", s.dir, ErrLinked, s.dir)
	}
	return nil
}
