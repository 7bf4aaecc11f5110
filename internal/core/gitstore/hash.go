package gitstore

import (
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Hash is a git object id. It is go-git's type under this package's name,
// so that the packages above (statebranch, checkpoint) import gitstore
// alone and go-git stays an implementation detail of this package.
type Hash = plumbing.Hash

// ZeroHash is the all-zero id: no object, a ref that does not exist, the
// empty tree for Files.
var ZeroHash Hash

// NewHash parses a hexadecimal object id (go-git's plumbing.NewHash: a
// malformed string gives a hash that names no object).
func NewHash(s string) Hash { return plumbing.NewHash(s) }

// FileMode is the mode of a tree entry.
type FileMode = filemode.FileMode

// The tree entry modes agentx reads and writes.
const (
	ModeRegular    = filemode.Regular
	ModeExecutable = filemode.Executable
	ModeSymlink    = filemode.Symlink
	ModeSubmodule  = filemode.Submodule
	ModeDir        = filemode.Dir
)
