package jsonfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Explain words a decoding error for the person who wrote the input: the
// JSON field and what it should hold for a wrong type, the byte offset for
// broken syntax (encoding/json names Go types instead).
func Explain(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "(top level)"
		}
		return fmt.Sprintf("field %q: want %s, got %s (at byte %d)", field, jsonKind(te.Type), article(te.Value), te.Offset)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("not valid JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	}
	return err.Error()
}

// jsonKind names what JSON value a Go type takes.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "another value"
}

func article(v string) string {
	switch {
	case v == "":
		return "another value"
	case strings.HasPrefix(v, "number"):
		return "a " + v
	case strings.IndexAny(v[:1], "aeiou") == 0:
		return "an " + v
	}
	return "a " + v
}
