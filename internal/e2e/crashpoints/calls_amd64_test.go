//go:build linux

package crashpoints

import "syscall"

// callKinds are the system calls that can change a file on amd64 (the
// kills happen on entry to them; a kill before a call that only reads
// leaves the files as a kill before the next of these does).
var callKinds = map[uint64]callKind{
	syscall.SYS_OPEN:           {"open", 1, []int{0}, -1},
	syscall.SYS_OPENAT:         {"openat", 2, []int{1}, -1},
	syscall.SYS_CREAT:          {"creat", -1, []int{0}, -1},
	syscall.SYS_WRITE:          {"write", -1, nil, 0},
	syscall.SYS_WRITEV:         {"writev", -1, nil, 0},
	syscall.SYS_PWRITE64:       {"pwrite64", -1, nil, 0},
	syscall.SYS_PWRITEV:        {"pwritev", -1, nil, 0},
	syscall.SYS_FSYNC:          {"fsync", -1, nil, 0},
	syscall.SYS_FDATASYNC:      {"fdatasync", -1, nil, 0},
	syscall.SYS_FTRUNCATE:      {"ftruncate", -1, nil, 0},
	syscall.SYS_TRUNCATE:       {"truncate", -1, []int{0}, -1},
	syscall.SYS_FALLOCATE:      {"fallocate", -1, nil, 0},
	syscall.SYS_RENAME:         {"rename", -1, []int{0, 1}, -1},
	syscall.SYS_RENAMEAT:       {"renameat", -1, []int{1, 3}, -1},
	316 /* renameat2 */ :       {"renameat2", -1, []int{1, 3}, -1},
	syscall.SYS_UNLINK:         {"unlink", -1, []int{0}, -1},
	syscall.SYS_UNLINKAT:       {"unlinkat", -1, []int{1}, -1},
	syscall.SYS_RMDIR:          {"rmdir", -1, []int{0}, -1},
	syscall.SYS_MKDIR:          {"mkdir", -1, []int{0}, -1},
	syscall.SYS_MKDIRAT:        {"mkdirat", -1, []int{1}, -1},
	syscall.SYS_LINK:           {"link", -1, []int{0, 1}, -1},
	syscall.SYS_LINKAT:         {"linkat", -1, []int{1, 3}, -1},
	syscall.SYS_SYMLINK:        {"symlink", -1, []int{0, 1}, -1},
	syscall.SYS_SYMLINKAT:      {"symlinkat", -1, []int{0, 2}, -1},
	syscall.SYS_CHMOD:          {"chmod", -1, []int{0}, -1},
	syscall.SYS_FCHMOD:         {"fchmod", -1, nil, 0},
	syscall.SYS_FCHMODAT:       {"fchmodat", -1, []int{1}, -1},
	syscall.SYS_UTIMENSAT:      {"utimensat", -1, []int{1}, -1},
	326 /* copy_file_range */ : {"copy_file_range", -1, nil, 2},
	syscall.SYS_SENDFILE:       {"sendfile", -1, nil, 0},
}
