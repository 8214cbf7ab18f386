package levels

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// Marshal writes l in the format's canonical layout: the objects that hold
// lists one field a line, and every entry of those lists (a building, a
// lane, a spawn ...) compact on a line of its own, so a level diffs line by
// line. Parse reads it back to an equal Level. Marshal does not validate;
// it fails only on a number JSON cannot hold (NaN, infinity).
func Marshal(l *Level) ([]byte, error) {
	var b bytes.Buffer
	if err := layout(&b, reflect.ValueOf(l).Elem(), ""); err != nil {
		return nil, fmt.Errorf("levels: marshal level%w", err)
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// layout writes v at the given indent: expanded when it is an object that
// holds lists of objects, or such a list; compact otherwise.
func layout(b *bytes.Buffer, v reflect.Value, indent string) error {
	t := v.Type()
	switch {
	case t.Kind() == reflect.Slice && isObject(t.Elem()):
		b.WriteString("[\n")
		for i := range v.Len() {
			b.WriteString(indent + "  ")
			if err := compact(b, v.Index(i)); err != nil {
				return fmt.Errorf("[%d]%w", i, err)
			}
			if i < v.Len()-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
		return nil
	case isObject(t) && holdsLists(t):
		fields := structFieldsOf(t)
		b.WriteByte('{')
		n := 0
		for _, f := range fields {
			fv := v.Field(f.index)
			if f.omitEmpty && isEmpty(fv) {
				continue
			}
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			b.WriteString("\n" + indent + "  ")
			key, _ := json.Marshal(f.name)
			b.Write(key)
			b.WriteString(": ")
			if err := layout(b, fv, indent+"  "); err != nil {
				return fmt.Errorf(".%s%w", f.name, err)
			}
		}
		if n > 0 {
			b.WriteString("\n" + indent)
		}
		b.WriteByte('}')
		return nil
	}
	return compact(b, v)
}

// compact writes v as encoding/json does.
func compact(b *bytes.Buffer, v reflect.Value) error {
	out, err := json.Marshal(v.Interface())
	if err != nil {
		return fmt.Errorf(": %w", err)
	}
	b.Write(out)
	return nil
}

// isObject reports whether t is written as a JSON object (a struct other
// than Vec2).
func isObject(t reflect.Type) bool { return t.Kind() == reflect.Struct && t != vec2Type }

// holdsLists reports whether struct t has a field that is a list of
// objects, or an object that does.
func holdsLists(t reflect.Type) bool {
	for _, f := range structFieldsOf(t) {
		ft := f.typ
		if ft.Kind() == reflect.Slice && isObject(ft.Elem()) || isObject(ft) && holdsLists(ft) {
			return true
		}
	}
	return false
}

// isEmpty reports whether v is empty as encoding/json's omitempty means it.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map, reflect.String, reflect.Array:
		return v.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	case reflect.Struct:
		return false
	}
	return v.IsZero()
}
