package jsonfile

import (
	"errors"
	"testing"
)

type sample struct {
	Name  string
	Kind  kind
	N     int
	On    bool
	Extra []Field
}

type kind string

var sampleFields = &Object[sample]{
	Fields: []FieldDecoder[sample]{
		String("name", func(s *sample) *string { return &s.Name }),
		String("kind", func(s *sample) *kind { return &s.Kind }),
		Int("n", func(s *sample) *int { return &s.N }),
		Bool("on", func(s *sample) *bool { return &s.On }),
	},
	Extra: CopyExtra(func(s *sample) *[]Field { return &s.Extra }),
}

func TestObjectDecode(t *testing.T) {
	t.Parallel()
	var s sample
	if err := sampleFields.Decode([]byte(`{"x":[1],"name":"a\u00e9","kind":"k","n":2,"on":true,"y":null}`), &s); err != nil {
		t.Fatal(err)
	}
	if s.Name != "aé" || s.Kind != "k" || s.N != 2 || !s.On {
		t.Errorf("decoded %+v", s)
	}
	if len(s.Extra) != 2 || s.Extra[0].Key != "x" || string(s.Extra[0].Value) != "[1]" || s.Extra[1].Key != "y" {
		t.Errorf("extra %+v, want x and y in file order", s.Extra)
	}
	s = sample{}
	err := sampleFields.Decode([]byte(`{"name":"a","n":"two"}`), &s)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Key != "n" || string(fe.Value) != `"two"` || s.Name != "a" {
		t.Errorf("err %v (%#v), want a FieldError for n after name", err, fe)
	}
	if got := err.Error(); got != `field "n": not an integer: "two"` {
		t.Errorf("message %q", got)
	}
	var oe *ObjectError
	if err := sampleFields.Decode([]byte(`{"name":`), &s); !errors.As(err, &oe) {
		t.Errorf("malformed object: %v, want an ObjectError", err)
	}
}
