package jsonfile

import (
	"fmt"
	"sync"
)

// Object is how a JSON object decodes into a T while other tools' keys
// survive a rewrite: the known keys, each with the decoder of its value,
// and Extra for every other key, in the order the file has them. It is the
// one field decoder behind the ledger's records and thread entries and the
// memory store's observations and manifest rows; each type declares its
// keys once, and the writing side stays the type's own (key order and
// layout are part of each file format).
type Object[T any] struct {
	Fields []FieldDecoder[T]
	// Extra receives a key no decoder knows; its raw value aliases the
	// input. Nil drops such keys.
	Extra func(dst *T, f Field)
}

// Lazy is an Object built on first use. A package-level Lazy with a
// top-level Build function is laid out by the linker: the table costs a
// process that never decodes a T nothing at start (sync.OnceValue would
// allocate in every process's initialisers).
type Lazy[T any] struct {
	Build func() *Object[T]
	once  sync.Once
	obj   *Object[T]
}

// Decode is Build's Object's Decode.
func (l *Lazy[T]) Decode(data []byte, dst *T) error {
	l.once.Do(l.build)
	return l.obj.Decode(data, dst)
}

// DecodeValid is Build's Object's DecodeValid.
func (l *Lazy[T]) DecodeValid(data []byte, dst *T) error {
	l.once.Do(l.build)
	return l.obj.DecodeValid(data, dst)
}

func (l *Lazy[T]) build() { l.obj = l.Build() }

// FieldDecoder decodes the value of one known key into *T.
type FieldDecoder[T any] struct {
	Key    string
	Decode func(dst *T, v []byte) error
}

// FieldError is a known key whose value did not decode.
type FieldError struct {
	Key   string
	Value []byte // the raw value (aliases the input: its offset is findable)
	Err   error
}

func (e *FieldError) Error() string { return fmt.Sprintf("field %q: %v", e.Key, e.Err) }

// Unwrap returns the value's error.
func (e *FieldError) Unwrap() error { return e.Err }

// Decode splits the object in data and decodes its fields into dst. A
// malformed object gives SplitObject's *ObjectError; a value that does not
// decode gives a *FieldError, with dst filled up to that field.
func (o *Object[T]) Decode(data []byte, dst *T) error {
	return o.decode(scanner{data: data}, dst)
}

// DecodeValid is Decode for data already checked: an element or a value
// inside what SplitObject or EachElement accepted (see SplitValidObject).
func (o *Object[T]) DecodeValid(data []byte, dst *T) error {
	return o.decode(scanner{data: data, valid: true}, dst)
}

// decode matches keys in place: only a key no decoder knows becomes a
// string (for Extra), so a record costs no allocation per key.
func (o *Object[T]) decode(s scanner, dst *T) error {
	return s.object(func(k rawKey, v []byte) error {
		dec := o.decoder(k)
		if dec == nil {
			if o.Extra != nil {
				o.Extra(dst, Field{Key: k.String(), Value: v})
			}
			return nil
		}
		if err := dec(dst, v); err != nil {
			return &FieldError{Key: k.String(), Value: v, Err: err}
		}
		return nil
	})
}

// decoder is key's decoder, or nil. A scan, not a map: objects have a
// dozen keys, and a table costs nothing to build.
func (o *Object[T]) decoder(k rawKey) func(*T, []byte) error {
	for i := range o.Fields {
		if k.is(o.Fields[i].Key) {
			return o.Fields[i].Decode
		}
	}
	return nil
}

// String is the decoder of a string field (null gives "").
func String[T any, S ~string](key string, field func(*T) *S) FieldDecoder[T] {
	return FieldDecoder[T]{Key: key, Decode: func(dst *T, v []byte) error {
		s, err := DecodeString(v)
		*field(dst) = S(s)
		return err
	}}
}

// Int is the decoder of an integer field (null gives 0).
func Int[T any](key string, field func(*T) *int) FieldDecoder[T] {
	return FieldDecoder[T]{Key: key, Decode: func(dst *T, v []byte) error {
		n, err := DecodeInt(v)
		*field(dst) = n
		return err
	}}
}

// Bool is the decoder of a boolean field (null gives false).
func Bool[T any](key string, field func(*T) *bool) FieldDecoder[T] {
	return FieldDecoder[T]{Key: key, Decode: func(dst *T, v []byte) error {
		b, err := DecodeBool(v)
		*field(dst) = b
		return err
	}}
}

// KeepExtra is the Extra of a type whose Extra field may alias the input.
func KeepExtra[T any](extra func(*T) *[]Field) func(*T, Field) {
	return func(dst *T, f Field) { p := extra(dst); *p = append(*p, f) }
}

// CopyExtra is the Extra of a type that outlives its input buffer: the
// raw value is copied.
func CopyExtra[T any](extra func(*T) *[]Field) func(*T, Field) {
	return func(dst *T, f Field) {
		p := extra(dst)
		*p = append(*p, Field{Key: f.Key, Value: append([]byte(nil), f.Value...)})
	}
}
