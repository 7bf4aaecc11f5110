package jsonfile

import (
	"encoding/json"
	"testing"
)

func TestExplain(t *testing.T) {
	t.Parallel()
	var v struct {
		Session string `json:"session_id"`
		N       int    `json:"n"`
		Inner   struct {
			Ok bool `json:"ok"`
		} `json:"inner"`
	}
	tests := []struct{ in, want string }{
		{`{"session_id": 5}`, `field "session_id": want a string, got a number (at byte 16)`},
		{`{"n": "x"}`, `field "n": want an integer, got a string (at byte 9)`},
		{`{"inner": {"ok": []}}`, `field "inner.ok": want true or false, got an array (at byte 18)`},
		{`{"n": 1,}`, `not valid JSON at byte 9: invalid character '}' looking for beginning of object key string`},
	}
	for _, tt := range tests {
		err := json.Unmarshal([]byte(tt.in), &v)
		if got := Explain(err); got != tt.want {
			t.Errorf("Explain(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
