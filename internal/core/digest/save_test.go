package digest

import (
	"testing"
	"time"
)

func TestSaveName(t *testing.T) {
	t.Parallel()
	until := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		days int
		want string
	}{
		{7, "DIGEST-2026-W47.md"},
		{30, "DIGEST-2026-10-24_2026-11-23.md"},
		{1, "DIGEST-2026-11-22_2026-11-23.md"},
	} {
		if got := SaveName(LastDays(until, tt.days)); got != tt.want {
			t.Errorf("%d days: %q, want %q", tt.days, got, tt.want)
		}
	}
}

func TestBetween(t *testing.T) {
	t.Parallel()
	a := time.Date(2026, 11, 16, 0, 0, 0, 0, time.FixedZone("x", 3600))
	b := a.Add(48 * time.Hour)
	for _, tt := range []struct {
		since, until time.Time
		ok           bool
	}{{a, b, true}, {b, a, false}, {a, a, false}} {
		w, err := Between(tt.since, tt.until)
		if (err == nil) != tt.ok {
			t.Errorf("Between(%v, %v): %v, want ok %v", tt.since, tt.until, err, tt.ok)
		}
		if err == nil && (w.Since.Location() != time.UTC || w.Until.Location() != time.UTC || !w.Since.Equal(tt.since)) {
			t.Errorf("Between(%v, %v) = %+v, want the same instants in UTC", tt.since, tt.until, w)
		}
	}
}

func TestIssueURLs(t *testing.T) {
	t.Parallel()
	if IssueURLs("") != nil {
		t.Error("no repository: want no links")
	}
	if got := IssueURLs("o/r")(7); got != "https://github.com/o/r/issues/7" {
		t.Errorf("link %q", got)
	}
}
