package sanitize

import "testing"

func TestTerminal(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"plain", "plain text\n\twith tab", "plain text\n\twith tab"},
		{"colour", "\x1b[31mred\x1b[0m text", "red text"},
		{"osc title bel", "a\x1b]0;pwned\x07b", "ab"},
		{"osc 52 clipboard st", "a\x1b]52;c;ZWNobyBoaQ==\x1b\\b", "ab"},
		{"osc hyperlink", "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", "click"},
		{"unterminated osc stops at line end", "a\x1b]0;title\nnext", "a\nnext"},
		{"c1 csi", "a\u009b2Jb", "ab"},
		{"cursor up and clear", "ok\x1b[1A\x1b[2Kfake", "okfake"},
		{"carriage return", "safe\rEVIL", "safeEVIL"},
		{"backspace and nul", "a\bb\x00c", "abc"},
		{"bidi override", "access\u202e gnirts", "access gnirts"},
		{"bidi isolate", "a\u2066b\u2069c", "abc"},
		{"line separator", "a\u2028b", "ab"},
		{"lone esc at end", "a\x1b", "a"},
		{"invalid utf8", "a\xffb", "a\uFFFDb"},
		{"unicode kept", "café ✓ \u200d", "café ✓ \u200d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Terminal(tt.in)
			if got != tt.want {
				t.Errorf("Terminal(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := Terminal(got); again != got {
				t.Errorf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func TestClean(t *testing.T) {
	t.Parallel()
	in := "a <private>hidden</private> " + ghp + "\n" + string(make([]byte, 0))
	if got := Clean(in); got != "a  [REDACTED:github-pat]\n" {
		t.Fatalf("Clean = %q", got)
	}
	long := make([]byte, 3*MaxChars)
	for i := range long {
		long[i] = 'x'
	}
	if got := Clean(string(long)); got != string(long) {
		t.Fatal("Clean cut a long text")
	}
}

func FuzzTerminal(f *testing.F) {
	for _, s := range []string{"\x1b[31mred", "\x1b]0;t\x07", "a\u009b2Jb", "\x1b]52;c;x\x1b\\", "\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Terminal(in)
		if Terminal(out) != out {
			t.Fatalf("not idempotent on %q", in)
		}
		for _, r := range out {
			if r != '\n' && r != '\t' && Invisible(r) {
				t.Fatalf("%q survives in %q", r, out)
			}
		}
	})
}

func TestIncompleteTail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int
	}{
		{"plain", 0},
		{"a\x1b", 1},
		{"a\x1b[3", 3},
		{"a\x1b[31m", 0},
		{"a\x1b]0;ti", 6},
		{"a\x1b]0;title\x07", 0},
		{"a\x1b]0;t\nmore", 0},
		{"é"[:1], 1},
		{"ab" + "€"[:2], 2},
		{"a\x1b" + "é"[:1], 2},
	}
	for _, tt := range tests {
		if got := IncompleteTail(tt.in); got != tt.want {
			t.Errorf("IncompleteTail(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
