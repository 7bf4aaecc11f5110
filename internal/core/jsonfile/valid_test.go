package jsonfile

import (
	"reflect"
	"testing"
)

// splitBoth checks, on every value nested in v (which the checking scan
// accepted), that the skipping scan splits it as the checking one does.
func splitBoth(t *testing.T, v []byte, depth int) {
	t.Helper()
	if depth > 20 || len(v) == 0 {
		return
	}
	switch v[0] {
	case '{':
		want, werr := SplitObject(v)
		got, gerr := SplitValidObject(v)
		if werr != nil {
			t.Fatalf("a value the checking scan accepted does not split: %v\n%q", werr, v)
		}
		if gerr != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("object split differs on %q:\n got %q %v\nwant %q", v, got, gerr, want)
		}
		for _, f := range want {
			splitBoth(t, f.Value, depth+1)
		}
	case '[':
		var want, got [][]byte
		werr := EachElement(v, func(e []byte) error { want = append(want, e); return nil })
		gerr := EachValidElement(v, func(e []byte) error { got = append(got, e); return nil })
		if werr != nil || gerr != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("array split differs on %q:\n got %q %v\nwant %q %v", v, got, gerr, want, werr)
		}
		for _, e := range want {
			splitBoth(t, e, depth+1)
		}
	}
}

var validCases = []string{
	`{"a":"x\\\"y","b":["\\\\","\\\\\"",{"c":"\"}"}],"d":-1.5e3,"e":null,"f":true}`,
	`{"body":"ends in backslash \\\\","next":"q\"uote","u":"\u00e9\\u0041","t":[[],[{}],""]}`,
	`{ "spaced" : [ 1 , "two" , { "three" : 3 } ] , "x" : "" }`,
}

func TestValidSplitsMatchCheckingSplits(t *testing.T) {
	t.Parallel()
	for _, c := range validCases {
		splitBoth(t, []byte(c), 0)
	}
}

// FuzzValidSplitsMatchCheckingSplits: inside any object the checking scan
// accepts, skipping strings by their closing quote finds the same values.
func FuzzValidSplitsMatchCheckingSplits(f *testing.F) {
	for _, c := range append(validCases, indentCases...) {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if _, err := SplitObject([]byte(in)); err != nil {
			return
		}
		splitBoth(t, []byte(in), 0)
	})
}
