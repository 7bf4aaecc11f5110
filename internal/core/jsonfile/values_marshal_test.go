package jsonfile

import (
	"encoding/json"
	"testing"
)

func FuzzAppendMarshalString(f *testing.F) {
	for _, s := range []string{"", "plain text", `a "q" \ b`, "<a>&</a>", "tab\tnl\n\x01\x7f", "é 日本 \u2028\u2029", "\xff\xfe", "sha256:0123"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendMarshalString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("%q: got %s, want %s", s, got[1:], want)
		}
	})
}
