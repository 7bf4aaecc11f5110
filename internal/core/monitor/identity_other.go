//go:build !linux

package monitor

// statIdentity is unavailable here: without a change time the identity
// could be forged by a tool that restores modification times, so every
// ledger is read on each scan (correct, only slower).
func statIdentity(string) (identity, bool) { return identity{}, false }
