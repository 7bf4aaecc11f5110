//go:build !unix

package lock

import "time"

// Without link counts a lock's file is never reused here.
func claimSpare(string, string, []byte, time.Duration) string { return "" }

func keepSpare(string) bool { return false }
