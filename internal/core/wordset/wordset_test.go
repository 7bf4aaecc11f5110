package wordset

import "testing"

func TestJaccard(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		min  float64
		max  float64
	}{
		{"Should we use Postgres?", "Do we use postgres", 1, 1},
		{"Which limit applies to uploads?", "What limit applies to uploads", 1, 1},
		{"limit 5 uploads", "limit 6 uploads", 0.4, 0.6},
		{"", "", 0, 0},
		{"cache keys", "", 0, 0},
		{"The cache was slow", "cache slow", 1, 1},
	}
	for _, tt := range tests {
		got := Jaccard(Of(tt.a), Of(tt.b))
		if got < tt.min || got > tt.max {
			t.Errorf("Jaccard(%q, %q) = %.2f, want [%.2f, %.2f]", tt.a, tt.b, got, tt.min, tt.max)
		}
	}
}
