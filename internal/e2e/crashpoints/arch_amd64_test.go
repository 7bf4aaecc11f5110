//go:build linux

package crashpoints

// auditArch is AUDIT_ARCH_X86_64, the arch of seccomp_data on amd64.
const auditArch = 0xc000003e
