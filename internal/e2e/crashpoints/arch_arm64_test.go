//go:build linux

package crashpoints

// auditArch is AUDIT_ARCH_AARCH64, the arch of seccomp_data on arm64.
const auditArch = 0xc00000b7
