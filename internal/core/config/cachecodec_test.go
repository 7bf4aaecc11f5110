package config

import (
	"reflect"
	"testing"
)

// fill sets every exported field reachable from v to a value that is not
// its zero (pointers, slices and maps non-nil, one element each), varying
// with seed, so a round trip that drops or mixes up a field shows.
func fill(t *testing.T, v reflect.Value, seed *int) {
	t.Helper()
	*seed++
	switch v.Kind() {
	case reflect.String:
		v.SetString("s" + string(rune('a'+*seed%26)))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(-*seed * 7))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*seed * 7))
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(t, p.Elem(), seed)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		fill(t, s.Index(0), seed)
		fill(t, s.Index(1), seed)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(t, k, seed)
		fill(t, e, seed)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(t, v.Field(i), seed)
			}
		}
	default:
		t.Fatalf("the cache cannot keep a %s (%s): teach cachecodec.go", v.Kind(), v.Type())
	}
}

// Every exported field of a Set survives the cache's encoding, nil and
// empty apart; a field of a kind it cannot keep fails here first.
func TestCacheCodecRoundTrip(t *testing.T) {
	t.Parallel()
	var in cacheBody
	seed := 0
	fill(t, reflect.ValueOf(&in).Elem(), &seed)
	in.Set.Config.Agents = []string{} // empty, not nil
	in.Set.Config.Priority = nil
	var e cacheEncoder
	if err := e.value(reflect.ValueOf(in)); err != nil {
		t.Fatal(err)
	}
	var out cacheBody
	d := cacheDecoder(e)
	if err := d.value(reflect.ValueOf(&out).Elem()); err != nil || len(d.b) != 0 {
		t.Fatalf("decode: %v (%d bytes left)", err, len(d.b))
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip:\n%+v\n%+v", in, out)
	}
	// Every cut of it is refused, never a panic or a half Set taken whole.
	for n := range len(e.b) {
		var cut cacheBody
		d := cacheDecoder{b: e.b[:n]}
		if err := d.value(reflect.ValueOf(&cut).Elem()); err == nil && len(d.b) == 0 {
			t.Fatalf("a cut at %d of %d bytes decoded", n, len(e.b))
		}
	}
}
