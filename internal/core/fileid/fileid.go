// Package fileid is what a file's metadata says about its content: its
// identity (inode, size, modification and change times), read by one
// fstatat relative to an open directory, and whether it was old enough
// when read to stand for the content next time. A derived index keyed by
// identities lets a scan skip the files nobody wrote since (the artifact
// ledgers' and the monitor's scans, which share its line format here).
//
// No writer can keep all four parts: an atomic rename changes the inode,
// an in-place rewrite the change time, which no user-level tool can set
// back. File times are coarse (a kernel tick), so two writes inside one
// tick can leave the same identity; a file younger than RacyWindow is not
// trusted by its identity (git's "racy clean").
package fileid

import (
	"time"
)

// RacyWindow is how recently a file may have changed and still be
// trusted by its identity alone.
const RacyWindow = 2 * time.Second

// ID is a file's identity. The zero ID is never a file's.
type ID struct {
	Ino, Size, Mtime, Ctime int64
}

// RacyFree reports whether a file with identity id was already older than
// the racy window at start (the scan's start, on the wall clock: file
// times are wall times).
func (id ID) RacyFree(start time.Time) bool {
	edge := start.Add(-RacyWindow)
	return id != ID{} && time.Unix(0, id.Ctime).Before(edge) && time.Unix(0, id.Mtime).Before(edge)
}
