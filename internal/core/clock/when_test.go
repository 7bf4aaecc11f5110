package clock

import (
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

func TestParseWhen(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Time
		bad  bool
	}{
		{in: "", want: time.Time{}},
		{in: "2026-03-01T10:00:00.000Z", want: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)},
		{in: "2026-03-01", want: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
		{in: "7d", want: now.Add(-7 * 24 * time.Hour)},
		{in: "0d", want: now},
		{in: "12h", want: now.Add(-12 * time.Hour)},
		{in: "30m", want: now.Add(-30 * time.Minute)},
		{in: "-3d", bad: true},
		{in: "-1h", bad: true},
		{in: "yesterday", bad: true},
	} {
		got, err := ParseWhen(tc.in, now)
		if tc.bad {
			if !errcode.Is(err, errcode.InvalidInput) {
				t.Errorf("ParseWhen(%q) error = %v, want INVALID_INPUT", tc.in, err)
			}
			continue
		}
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("ParseWhen(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}
