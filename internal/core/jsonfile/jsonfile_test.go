package jsonfile

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

func TestMarshalLayout(t *testing.T) {
	t.Parallel()
	out, err := Marshal(map[string]any{"a": "<b> & c", "n": 1})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": \"<b> & c\",\n  \"n\": 1\n}\n"
	if string(out) != want {
		t.Fatalf("got %q want %q", out, want)
	}
}

func TestUnmarshalCorrupt(t *testing.T) {
	t.Parallel()
	var v map[string]any
	err := Unmarshal("/x/manifest.json", []byte(`{"a": 1,`), &v)
	if !errcode.Is(err, errcode.CorruptState) || !strings.Contains(err.Error(), "/x/manifest.json") {
		t.Fatalf("got %v", err)
	}
	if err := Unmarshal("/x", []byte("  "), &v); !errcode.Is(err, errcode.CorruptState) {
		t.Fatalf("empty file: %v", err)
	}
}

func TestSplitJoinKeepsOrder(t *testing.T) {
	t.Parallel()
	in := `{"z": 1, "a": {"x": [1, 2, {"y": "}"}]}, "m": "quote \" and \\", "u": "\u00e9", "n": null}`
	fields, err := SplitObject([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{}
	for _, f := range fields {
		keys = append(keys, f.Key)
	}
	if strings.Join(keys, ",") != "z,a,m,u,n" {
		t.Fatalf("keys = %v", keys)
	}
	var a, b any
	_ = json.Unmarshal([]byte(in), &a)
	if err := json.Unmarshal(JoinObject(fields), &b); err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Fatalf("join changed the object: %s vs %s", ja, jb)
	}
}

func TestSplitRejects(t *testing.T) {
	t.Parallel()
	for _, in := range []string{``, `[]`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":tru}`, `{"a":1} x`, `{"a":"\q"}`, "{\"a\":\"\x01\"}"} {
		if _, err := SplitObject([]byte(in)); err == nil {
			t.Errorf("SplitObject(%q) succeeded", in)
		}
	}
}

func FuzzSplitObject(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":[true,null,{"c":"d"}],"e":"\u1234"}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"a":-1.5e3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fields, err := SplitObject(data)
		valid := json.Valid(data)
		if err == nil && !valid {
			t.Fatalf("SplitObject accepted invalid JSON %q", data)
		}
		if err != nil {
			var m map[string]json.RawMessage
			if valid && json.Unmarshal(data, &m) == nil && m != nil {
				t.Fatalf("SplitObject rejected a valid object %q: %v", data, err)
			}
			return
		}
		if !json.Valid(JoinObject(fields)) {
			t.Fatalf("JoinObject produced invalid JSON from %q", data)
		}
	})
}
