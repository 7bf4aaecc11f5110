package jsonfile

import "testing"

// TestStringStop holds the literal table to its rule: a string's plain
// bytes are all but the quote, the backslash and control characters.
func TestStringStop(t *testing.T) {
	for c := 0; c < 256; c++ {
		if want := c < 0x20 || c == '"' || c == '\\'; stringStop[c] != want {
			t.Errorf("stringStop[%#x] = %v, want %v", c, stringStop[c], want)
		}
	}
}
