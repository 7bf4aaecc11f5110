package config

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"sort"
)

// The configuration cache's encoding: each exported field of a value in
// declaration order, strings and slices by length, integers as varints,
// pointers, slices and maps with a presence mark (so nil and empty stay
// apart), map keys sorted. It is positional, so it is only read back by
// the binary that wrote it (the cache's key names the binary). It exists
// because encoding/json's first decode of a type in a process walks the
// type's fields by reflection and builds their encoders: about 0.2 ms of
// a `monitor` process for the configuration's 20 struct types, as much
// as the cache saved; this walk costs a few microseconds.

var errCacheCodec = errors.New("configuration cache: malformed")

type cacheEncoder struct{ b []byte }

func (e *cacheEncoder) uvarint(u uint64) { e.b = binary.AppendUvarint(e.b, u) }

func (e *cacheEncoder) value(v reflect.Value) error {
	switch v.Kind() {
	case reflect.String:
		e.uvarint(uint64(v.Len()))
		e.b = append(e.b, v.String()...)
	case reflect.Bool:
		e.b = append(e.b, boolByte(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.b = binary.AppendVarint(e.b, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		e.uvarint(v.Uint())
	case reflect.Pointer:
		e.b = append(e.b, boolByte(!v.IsNil()))
		if !v.IsNil() {
			return e.value(v.Elem())
		}
	case reflect.Slice:
		return e.slice(v)
	case reflect.Map:
		return e.mapping(v)
	case reflect.Struct:
		return e.fields(v)
	default:
		return fmt.Errorf("configuration cache: cannot encode a %s", v.Type())
	}
	return nil
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// slice writes 0 for nil, else the length + 1 and the elements.
func (e *cacheEncoder) slice(v reflect.Value) error {
	if v.IsNil() {
		e.uvarint(0)
		return nil
	}
	e.uvarint(uint64(v.Len()) + 1)
	for i := range v.Len() {
		if err := e.value(v.Index(i)); err != nil {
			return err
		}
	}
	return nil
}

// mapping writes 0 for nil, else the length + 1 and the entries by key.
func (e *cacheEncoder) mapping(v reflect.Value) error {
	if v.IsNil() {
		e.uvarint(0)
		return nil
	}
	if v.Type().Key().Kind() != reflect.String {
		return fmt.Errorf("configuration cache: map key %s", v.Type().Key())
	}
	keys := v.MapKeys()
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	e.uvarint(uint64(len(keys)) + 1)
	for _, k := range keys {
		if err := e.value(k); err != nil {
			return err
		}
		if err := e.value(v.MapIndex(k)); err != nil {
			return err
		}
	}
	return nil
}

// fields writes the exported fields in declaration order.
func (e *cacheEncoder) fields(v reflect.Value) error {
	t := v.Type()
	for i := range t.NumField() {
		if t.Field(i).IsExported() {
			if err := e.value(v.Field(i)); err != nil {
				return err
			}
		}
	}
	return nil
}

type cacheDecoder struct{ b []byte }

func (d *cacheDecoder) uvarint() (uint64, error) {
	u, n := binary.Uvarint(d.b)
	if n <= 0 {
		return 0, errCacheCodec
	}
	d.b = d.b[n:]
	return u, nil
}

// count reads a length, bounded by what is left (every element takes at
// least a byte): a damaged length cannot make a huge allocation.
func (d *cacheDecoder) count() (int, error) {
	u, err := d.uvarint()
	if err != nil || u > uint64(len(d.b))+1 {
		return 0, errCacheCodec
	}
	return int(u), nil
}

// flag reads a byte that is 0 or 1.
func (d *cacheDecoder) flag() (bool, error) {
	if len(d.b) == 0 || d.b[0] > 1 {
		return false, errCacheCodec
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c == 1, nil
}

func (d *cacheDecoder) value(v reflect.Value) error {
	switch v.Kind() {
	case reflect.String:
		n, err := d.uvarint()
		if err != nil || n > uint64(len(d.b)) {
			return errCacheCodec
		}
		v.SetString(string(d.b[:n]))
		d.b = d.b[n:]
	case reflect.Bool:
		b, err := d.flag()
		if err != nil {
			return err
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, n := binary.Varint(d.b)
		if n <= 0 || v.OverflowInt(i) {
			return errCacheCodec
		}
		d.b = d.b[n:]
		v.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u, err := d.uvarint()
		if err != nil || v.OverflowUint(u) {
			return errCacheCodec
		}
		v.SetUint(u)
	case reflect.Pointer:
		return d.pointer(v)
	case reflect.Slice:
		return d.slice(v)
	case reflect.Map:
		return d.mapping(v)
	case reflect.Struct:
		return d.fields(v)
	default:
		return errCacheCodec
	}
	return nil
}

func (d *cacheDecoder) pointer(v reflect.Value) error {
	set, err := d.flag()
	if err != nil || !set {
		return err
	}
	p := reflect.New(v.Type().Elem())
	if err := d.value(p.Elem()); err != nil {
		return err
	}
	v.Set(p)
	return nil
}

func (d *cacheDecoder) slice(v reflect.Value) error {
	n, err := d.count()
	if err != nil || n == 0 {
		return err
	}
	s := reflect.MakeSlice(v.Type(), n-1, n-1)
	for i := range n - 1 {
		if err := d.value(s.Index(i)); err != nil {
			return err
		}
	}
	v.Set(s)
	return nil
}

func (d *cacheDecoder) mapping(v reflect.Value) error {
	n, err := d.count()
	if err != nil || n == 0 {
		return err
	}
	t := v.Type()
	m := reflect.MakeMapWithSize(t, n-1)
	for range n - 1 {
		k, e := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
		if err := d.value(k); err != nil {
			return err
		}
		if err := d.value(e); err != nil {
			return err
		}
		m.SetMapIndex(k, e)
	}
	v.Set(m)
	return nil
}

func (d *cacheDecoder) fields(v reflect.Value) error {
	t := v.Type()
	for i := range t.NumField() {
		if t.Field(i).IsExported() {
			if err := d.value(v.Field(i)); err != nil {
				return err
			}
		}
	}
	return nil
}
