package suggest

import "testing"

func TestDidYouMean(t *testing.T) {
	t.Parallel()
	names := []string{"state", "setup", "memory", "monitor", "version"}
	for got, want := range map[string]string{
		"statte": ` (did you mean "state"?)`, "memroy": ` (did you mean "memory"?)`,
		"versoin": ` (did you mean "version"?)`, "zzz": "", "--agnet": "",
	} {
		if s := DidYouMean(got, names); s != want {
			t.Errorf("DidYouMean(%q) = %q, want %q", got, s, want)
		}
	}
	if s := DidYouMean("--agnet", []string{"--agent", "--issue"}); s != ` (did you mean "--agent"?)` {
		t.Errorf("flag: %q", s)
	}
}

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"same", "same", 0}} {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
