package iostreams

import (
	"bytes"
	"io"
	"testing"
)

// A sequence split between writes is removed whole, a character split
// between writes arrives whole, and with colour on our own styling passes
// while a foreign sequence does not.
func TestTermWriter(t *testing.T) {
	t.Parallel()
	in := "a \x1b]0;pwned\x07 b \x1b[2J c é \x1b[31mred\x1b[0m \x1b[8mhidden"
	tests := []struct {
		color bool
		want  string
	}{
		{false, "a  b  c é red hidden"},
		{true, "a  b  c é \x1b[31mred\x1b[0m hidden"},
	}
	for _, tt := range tests {
		for cut := 0; cut <= len(in); cut++ {
			var out bytes.Buffer
			w := NewTermWriter(&out, tt.color)
			_, _ = w.Write([]byte(in[:cut]))
			_, _ = w.Write([]byte(in[cut:]))
			_ = w.Flush()
			if out.String() != tt.want {
				t.Fatalf("color %v, cut at %d: %q, want %q", tt.color, cut, out.String(), tt.want)
			}
		}
	}
}

// BenchmarkTermWriter: what the filter costs a large text output (10,000
// lines of plain text, as `memory search` or `clarify` print them).
func BenchmarkTermWriter(b *testing.B) {
	line := []byte("- CLR-42-001 from engineer (round 1/5, pending): authentication flow, middleware or controller?\n")
	b.SetBytes(int64(len(line)) * 10000)
	for i := 0; i < b.N; i++ {
		w := NewTermWriter(io.Discard, false)
		for j := 0; j < 10000; j++ {
			_, _ = w.Write(line)
		}
		_ = w.Flush()
	}
}
