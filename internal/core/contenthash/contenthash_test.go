package contenthash

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

func TestCanonicalForm(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"sorted keys, no space", `{ "b": 1, "a": "x" }`, `{"a":"x","b":1}`},
		{"nested", `{"z":[1,{"y":null,"x":true}],"a":false}`, `{"a":false,"z":[1,{"x":true,"y":null}]}`},
		{"escapes", `{"s":"q\"b\\c\n\t\u0001<>&\u2028é"}`, "{\"s\":\"q\\\"b\\\\c\\n\\t\\u0001<>&\u2028é\"}"},
		{"utf16 key order", `{"\ud83d\ude00":1,"\uffff":2}`, "{\"\U0001F600\":1,\"\uffff\":2}"},
		{"integers", `{"n":-0012}`, ``},
		{"shortest int", `{"n":120}`, `{"n":120}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CanonicalJSON([]byte(tt.in))
			if tt.want == "" {
				if err == nil {
					t.Fatalf("CanonicalJSON(%s) = %s, want an error", tt.in, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("CanonicalJSON(%s) =\n %s\nwant\n %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestObjectMatchesCanonicalJSON(t *testing.T) {
	t.Parallel()
	var o Object
	o.String("from", "engineer").Int("round", 2).String("body", "Line\nwith \"quotes\" & <tags>").String("type", "answer")
	want, err := CanonicalJSON([]byte(`{"type":"answer","round":2,"from":"engineer","body":"Line\nwith \"quotes\" & <tags>"}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(o.Canonical()) != string(want) {
		t.Fatalf("Object = %s, CanonicalJSON = %s", o.Canonical(), want)
	}
	sum := sha256.Sum256(want)
	if got := o.Sum(); got != "sha256:"+hex.EncodeToString(sum[:]) || !Valid(got) {
		t.Fatalf("Sum = %s", got)
	}
}

func TestValid(t *testing.T) {
	t.Parallel()
	good := Of([]byte("x"))
	for s, want := range map[string]bool{
		good: true, "": false, "sha256:": false, good[:len(good)-1]: false,
		"sha1:" + good[7:]: false, "sha256:" + string(make([]byte, 64)): false,
	} {
		if Valid(s) != want {
			t.Errorf("Valid(%q) = %v", s, !want)
		}
	}
}

// FuzzCanonicalJSON: the canonical form of any JSON the hash reader
// accepts is a fixed point, and never panics on junk.
func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,2,{"b":"\u00e9"}]}`, `"x"`, `nul`, `{"a":1.5}`, "{\"\xff\":1}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := CanonicalJSON(data)
		if err != nil {
			return
		}
		c2, err := CanonicalJSON(c)
		if err != nil || string(c2) != string(c) {
			t.Fatalf("not a fixed point: %s -> %s (%v)", c, c2, err)
		}
	})
}

// Raw keeps an integer as written and canonicalises anything else.
func TestRawMember(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ raw, want string }{
		{"30", `{"k":30}`},
		{"0", `{"k":0}`},
		{" 30 ", `{"k":30}`},
		{`{"b":1, "a":2}`, `{"k":{"a":2,"b":1}}`},
		{`"x"`, `{"k":"x"}`},
	} {
		var o Object
		if got := string(o.Raw("k", []byte(tc.raw)).Canonical()); got != tc.want {
			t.Errorf("Raw(%q) = %s, want %s", tc.raw, got, tc.want)
		}
	}
}
