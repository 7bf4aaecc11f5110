//go:build !unix

package atomicfile

// oNoFollow: no such open flag here; symlinks need privileges to create.
const oNoFollow = 0
