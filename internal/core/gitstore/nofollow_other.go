//go:build !unix

package gitstore

// oNoFollow: no such open flag here; symlinks need privileges to create.
const oNoFollow = 0
