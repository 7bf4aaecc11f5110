package jsonfile

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// rawMarshaler writes whatever bytes it holds, as a hand-written codec does.
type rawMarshaler []byte

func (r rawMarshaler) MarshalJSON() ([]byte, error) { return r, nil }

// encodingJSON is what Marshal gave through encoding/json before it laid
// out Marshalers' bytes itself.
func encodingJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

var indentCases = []string{
	`{}`, `[]`, `null`, `true`, `-1.5e3`, `"s"`, `{"a":[]}`, `{"a":{}}`,
	`{"issueNumber":42,"clarifications":[{"id":"CLR-42-001","thread":[{"body":"a \"quoted\" <b>&</b>\\n"}],"resolvedAt":null}]}`,
	"{ \"extra\" : [1, 2,\n\t{\"x\": \"y z\"} ] ,\"u\":\"\\u2028 é \u2028\"}",
	`[[[]],[{}],[1,[2,[3]]]]`,
}

func TestMarshalLaysOutAMarshalerAsEncodingJSONDoes(t *testing.T) {
	t.Parallel()
	for _, c := range indentCases {
		want, err := encodingJSON(rawMarshaler(c))
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		got, err := Marshal(rawMarshaler(c))
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", c, got, want)
		}
	}
	for _, bad := range []string{``, `{`, `{"a"}`, `[1,]`, `{"a":1}x`, `"\x01"`, `tru`, `{"a":01}`} {
		if _, err := Marshal(rawMarshaler(bad)); err == nil {
			t.Errorf("%q: invalid JSON from a Marshaler was written", bad)
		}
	}
	var nilPtr *rawPtr
	if got, _ := Marshal(nilPtr); string(got) != "null\n" {
		t.Errorf("a nil pointer Marshaler gave %q, want null", got)
	}
}

type rawPtr struct{}

func (*rawPtr) MarshalJSON() ([]byte, error) { return []byte(`{}`), nil }

// FuzzIndentMatchesEncodingJSON: on any input, the layout is encoding/json's
// whenever it accepts the value, and an error whenever it does not.
func FuzzIndentMatchesEncodingJSON(f *testing.F) {
	for _, c := range indentCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := indent(nil, []byte(in))
		if !json.Valid([]byte(in)) {
			if err == nil {
				t.Fatalf("%q is not JSON, yet indent gave %q", in, got)
			}
			return
		}
		if err != nil {
			if strings.Contains(err.Error(), "nesting too deep") {
				return // our bound, below encoding/json's
			}
			t.Fatalf("%q is JSON, yet indent failed: %v", in, err)
		}
		var compact, want bytes.Buffer
		if err := json.Compact(&compact, []byte(in)); err != nil {
			t.Fatal(err)
		}
		if err := json.Indent(&want, compact.Bytes(), "", "  "); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("on %q\n got %q\nwant %q", in, got, want.Bytes())
		}
	})
}
