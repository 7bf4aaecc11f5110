package digest

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestWindowFor(t *testing.T) {
	if want := "1 to " + strconv.Itoa(MaxDays); !strings.HasSuffix(ErrDays.Error(), want) {
		t.Errorf("ErrDays %q does not say %s", ErrDays, want)
	}
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, since, until string
		days               int
		want               Window
		err                error
	}{
		{"last days", "", "", 7, LastDays(now, 7), nil},
		{"last days to until", "", "2026-11-10", 3, LastDays(time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC), 3), nil},
		{"no days", "", "", 0, Window{}, ErrDays},
		{"the most days", "", "", MaxDays, LastDays(now, MaxDays), nil},
		{"past the most days", "", "", MaxDays + 1, Window{}, ErrDays},
		{"since, read against now", "2d", "2026-11-19T12:00:00Z", 0,
			Window{Since: now.Add(-48 * time.Hour), Until: now.Add(-24 * time.Hour)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := WindowFor(now, tc.since, tc.until, tc.days)
			if !errors.Is(err, tc.err) || !w.Since.Equal(tc.want.Since) || !w.Until.Equal(tc.want.Until) {
				t.Errorf("WindowFor = %v %v, want %v %v", w, err, tc.want, tc.err)
			}
		})
	}
}
