package statebranch

import "time"

// SetCleanTiming sets the clean record's racy margin and full-scan age
// (tests that must not wait 2 s) and returns the restore. Only tests that
// do not run in parallel call it.
func SetCleanTiming(margin, age time.Duration) (restore func()) {
	m, a := racyMargin, fullScanAge
	racyMargin, fullScanAge = margin, age
	return func() { racyMargin, fullScanAge = m, a }
}
