package statebranch

import "time"

// SetCleanTiming sets the clean record's racy margin and full-scan age of
// the syncs o runs (tests that must not wait 2 s).
func SetCleanTiming(o *Options, margin, age time.Duration) {
	o.racyMargin, o.fullScanAge = margin, age
}
