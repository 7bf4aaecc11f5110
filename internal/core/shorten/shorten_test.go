package shorten

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRunes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 0, ""},
		{"abc", -1, ""},
		{"abc", 5, "abc"},
		{"aéb", 2, "aé"},
		{"a\xffb", 2, "a\xff"}, // an invalid byte is one character, kept
	} {
		if got := Runes(c.in, c.n); got != c.want {
			t.Errorf("Runes(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in    string
		limit int
		want  string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven char", 10, "eleven ..."},
		{"ééééééé", 5, "éé..."},
		{"abcdef", 3, "abc"}, // no room for the marker
		{"abcdef", 0, ""},
	} {
		got := Text(c.in, c.limit)
		if got != c.want {
			t.Errorf("Text(%q, %d) = %q, want %q", c.in, c.limit, got, c.want)
		}
		if n := utf8.RuneCountInString(got); n > max(c.limit, 0) {
			t.Errorf("Text(%q, %d) has %d characters", c.in, c.limit, n)
		}
	}
}

func TestLine(t *testing.T) {
	t.Parallel()
	if got := Flatten("  a\n\tb   c \n"); got != "a b c" {
		t.Fatalf("Flatten = %q", got)
	}
	long := strings.Repeat("word\n", 100)
	got := Line(long, 20)
	if strings.Contains(got, "\n") || utf8.RuneCountInString(got) != 20 || !strings.HasSuffix(got, Marker) {
		t.Fatalf("Line = %q", got)
	}
}

func TestHash(t *testing.T) {
	t.Parallel()
	h := "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	if got := Hash(h); got != "sha256:0123456789ab…" {
		t.Errorf("Hash = %q", got)
	}
	if got := Hash("sha256:01"); got != "sha256:01" {
		t.Errorf("a short hash = %q", got)
	}
}

func TestEllipsis(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in    string
		limit int
		want  string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"héllo wörld", 6, "héllo…"},
		{"abc", 1, "a"},
		{"abc", 0, ""},
	} {
		if got := Ellipsis(c.in, c.limit); got != c.want {
			t.Errorf("Ellipsis(%q, %d) = %q, want %q", c.in, c.limit, got, c.want)
		}
		if n := utf8.RuneCountInString(Ellipsis(c.in, c.limit)); n > max(c.limit, 0) {
			t.Errorf("Ellipsis(%q, %d) has %d characters", c.in, c.limit, n)
		}
	}
}
