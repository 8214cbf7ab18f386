package levels

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// MaxFileSize caps a level file, in bytes. main-city is a few hundred KiB;
// the cap keeps a wrong file from eating the memory before it is refused.
const MaxFileSize = 16 << 20

// MaxEntries caps every list of a level file (buildings, lanes, a
// polygon's points, a container's items ...). Validate's overlap checks
// are quadratic in the number of buildings and lanes, so the cap also
// bounds the time a bad file can cost.
const MaxEntries = 1 << 16

// Parse decodes and validates a level file. file names the data in errors
// (use the file's base name, "main-city.json"). Any problem is an *Error
// that names the file, the JSON path and the problem and matches
// ErrInvalid; Parse never panics on bad data.
//
// The JSON must match the format exactly: field names are case-sensitive,
// unknown and repeated fields are errors, numbers must fit their Go types
// (float32 for coordinates), and nothing may follow the level's object.
func Parse(file string, data []byte) (*Level, error) {
	if len(data) > MaxFileSize {
		return nil, &Error{File: file, Msg: fmt.Sprintf("file is %d bytes, more than the %d allowed", len(data), MaxFileSize)}
	}
	if err := checkJSON(file, data); err != nil {
		return nil, err
	}
	// checkJSON has seen every token against the types, so this decode
	// is expected to succeed; its errors are converted all the same.
	l := new(Level)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(l); err != nil {
		return nil, convertJSONError(file, data, err)
	}
	if err := l.Validate(file); err != nil {
		return nil, err
	}
	return l, nil
}

// MarshalJSON writes v as [x, y].
func (v Vec2) MarshalJSON() ([]byte, error) {
	return json.Marshal([2]float32{v.X, v.Y})
}

// UnmarshalJSON reads v from [x, y]: exactly two numbers.
func (v *Vec2) UnmarshalJSON(b []byte) error {
	var a []float32
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	if len(a) != 2 {
		return fmt.Errorf("want [x, y], got %d numbers", len(a))
	}
	v.X, v.Y = a[0], a[1]
	return nil
}

// checkJSON walks the tokens of data against the Level type, in the file's
// order, and returns the first token that does not fit: a syntax error, a
// value of the wrong type, an unknown or repeated field, a number out of
// range. Unlike encoding/json's errors, its errors carry the full path with
// the list indices ("roads.lanes[12].width") and the line and column.
func checkJSON(file string, data []byte) error {
	c := checker{file: file, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	c.dec.UseNumber()
	if err := c.value(levelType); err != nil {
		return err
	}
	start := c.dec.InputOffset()
	tok, err := c.dec.Token()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return c.tokenError(err, start)
	}
	return c.fail(start, fmt.Sprintf("%s after the level's object: a file holds one level", describe(tok)))
}

var (
	levelType = reflect.TypeFor[Level]()
	vec2Type  = reflect.TypeFor[Vec2]()
)

// jsonField is a struct field as the JSON sees it.
type jsonField struct {
	name      string
	index     int
	typ       reflect.Type
	omitEmpty bool
}

var (
	fieldsOnce sync.Once
	fieldsOf   map[reflect.Type][]jsonField // looked up, never iterated
)

// structFieldsOf returns t's JSON fields in declaration order.
func structFieldsOf(t reflect.Type) []jsonField {
	fieldsOnce.Do(func() {
		fieldsOf = make(map[reflect.Type][]jsonField)
		collectFields(levelType)
	})
	return fieldsOf[t]
}

// collectFields fills fieldsOf for t and every struct type inside it.
func collectFields(t reflect.Type) {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice:
		collectFields(t.Elem())
		return
	case reflect.Struct:
	default:
		return
	}
	if t == vec2Type {
		return
	}
	if _, done := fieldsOf[t]; done {
		return
	}
	var fs []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		omit := slices.Contains(strings.Split(opts, ","), "omitempty")
		fs = append(fs, jsonField{name: name, index: i, typ: f.Type, omitEmpty: omit})
	}
	fieldsOf[t] = fs
	for _, f := range fs {
		collectFields(f.typ)
	}
}

// pathSeg is one step of a JSON path: a field name, or a list index when
// name is "".
type pathSeg struct {
	name  string
	index int
}

// checker is the state of one checkJSON walk.
type checker struct {
	file string
	data []byte
	dec  *json.Decoder
	path []pathSeg
}

// pathString renders the current path: roads.lanes[12].to.
func (c *checker) pathString() string {
	var b strings.Builder
	for _, s := range c.path {
		if s.name == "" {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.name)
	}
	return b.String()
}

// fail returns an *Error at the current path, positioned at the first token
// at or after offset.
func (c *checker) fail(offset int64, msg string) error {
	off := skipSpace(c.data, int(offset))
	line, col := lineCol(c.data, off)
	return &Error{File: c.file, Path: c.pathString(), Line: line, Col: col, Msg: msg}
}

// tokenError converts an error of Token into an *Error.
func (c *checker) tokenError(err error, start int64) error {
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		off := int(syn.Offset) - 1 // Offset is just past the offending byte
		if off < int(start) {
			off = int(start)
		}
		line, col := lineCol(c.data, off)
		return &Error{File: c.file, Path: c.pathString(), Line: line, Col: col, Msg: "syntax error: " + syn.Error()}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		line, col := lineCol(c.data, len(c.data))
		msg := "unexpected end of file"
		if len(bytes.TrimSpace(c.data)) == 0 {
			msg = "empty file"
		}
		return &Error{File: c.file, Path: c.pathString(), Line: line, Col: col, Msg: msg}
	}
	return c.fail(start, err.Error())
}

// value reads the next value and checks it against t.
func (c *checker) value(t reflect.Type) error {
	start := c.dec.InputOffset()
	tok, err := c.dec.Token()
	if err != nil {
		return c.tokenError(err, start)
	}
	return c.check(t, tok, start)
}

// check checks the value that starts with tok (read at start) against t,
// reading the rest of it.
func (c *checker) check(t reflect.Type, tok json.Token, start int64) error {
	if t == vec2Type {
		return c.vec2(tok, start)
	}
	switch t.Kind() {
	case reflect.Pointer:
		if tok == nil {
			return nil
		}
		return c.check(t.Elem(), tok, start)
	case reflect.Struct:
		return c.object(t, tok, start)
	case reflect.Slice:
		if tok == nil {
			return nil
		}
		return c.list(t.Elem(), tok, start)
	case reflect.String:
		if _, ok := tok.(string); !ok {
			return c.wrongType(start, "a string", tok)
		}
		return nil
	case reflect.Bool:
		if _, ok := tok.(bool); !ok {
			return c.wrongType(start, "true or false", tok)
		}
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := tok.(json.Number)
		if !ok {
			return c.wrongType(start, "an integer", tok)
		}
		bits := t.Bits()
		if _, err := strconv.ParseInt(string(n), 10, bits); err != nil {
			hi := int64(1)<<(bits-1) - 1
			return c.fail(start, fmt.Sprintf("want an integer from %d to %d, got %s", -hi-1, hi, n))
		}
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := tok.(json.Number)
		if !ok {
			return c.wrongType(start, "an integer", tok)
		}
		bits := t.Bits()
		if _, err := strconv.ParseUint(string(n), 10, bits); err != nil {
			return c.fail(start, fmt.Sprintf("want an integer from 0 to %d, got %s", uint64(1)<<bits-1, n))
		}
		return nil
	case reflect.Float32, reflect.Float64:
		return c.number(t.Bits(), tok, start)
	}
	return c.fail(start, "field of unsupported type "+t.String()) // a bug in this package
}

// number checks a number that must fit a float of bits bits.
func (c *checker) number(bits int, tok json.Token, start int64) error {
	n, ok := tok.(json.Number)
	if !ok {
		return c.wrongType(start, "a number", tok)
	}
	if _, err := strconv.ParseFloat(string(n), bits); err != nil {
		return c.fail(start, fmt.Sprintf("number %s is out of the range of a float%d", n, bits))
	}
	return nil
}

// object checks a JSON object against struct type t.
func (c *checker) object(t reflect.Type, tok json.Token, start int64) error {
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return c.wrongType(start, "an object", tok)
	}
	fields := structFieldsOf(t)
	var seen uint64 // by index into fields; a struct of the format has fewer than 64
	for c.dec.More() {
		keyStart := c.dec.InputOffset()
		kt, err := c.dec.Token()
		if err != nil {
			return c.tokenError(err, keyStart)
		}
		key, _ := kt.(string) // Token only gives a string here
		fi := -1
		for i := range fields {
			if fields[i].name == key {
				fi = i
				break
			}
		}
		c.path = append(c.path, pathSeg{name: key})
		if fi < 0 {
			return c.fail(keyStart, fmt.Sprintf("unknown field %q", key))
		}
		if seen&(1<<fi) != 0 {
			return c.fail(keyStart, fmt.Sprintf("field %q given twice", key))
		}
		seen |= 1 << fi
		if err := c.value(fields[fi].typ); err != nil {
			return err
		}
		c.path = c.path[:len(c.path)-1]
	}
	return c.closing()
}

// list checks a JSON array whose elements must fit elem.
func (c *checker) list(elem reflect.Type, tok json.Token, start int64) error {
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return c.wrongType(start, "an array", tok)
	}
	for i := 0; c.dec.More(); i++ {
		c.path = append(c.path, pathSeg{index: i})
		if i >= MaxEntries {
			return c.fail(c.dec.InputOffset(), fmt.Sprintf("more than %d entries", MaxEntries))
		}
		if err := c.value(elem); err != nil {
			return err
		}
		c.path = c.path[:len(c.path)-1]
	}
	return c.closing()
}

// vec2 checks an [x, y] pair of float32 numbers.
func (c *checker) vec2(tok json.Token, start int64) error {
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return c.wrongType(start, "[x, y]", tok)
	}
	n := 0
	for c.dec.More() {
		at := c.dec.InputOffset()
		c.path = append(c.path, pathSeg{index: n})
		if n == 2 {
			return c.fail(at, "want [x, y], got more than 2 numbers")
		}
		t, err := c.dec.Token()
		if err != nil {
			return c.tokenError(err, at)
		}
		if err := c.number(32, t, at); err != nil {
			return err
		}
		c.path = c.path[:len(c.path)-1]
		n++
	}
	if n != 2 {
		return c.fail(start, fmt.Sprintf("want [x, y], got %d numbers", n))
	}
	return c.closing()
}

// closing reads the '}' or ']' that ends an object or array.
func (c *checker) closing() error {
	at := c.dec.InputOffset()
	if _, err := c.dec.Token(); err != nil {
		return c.tokenError(err, at)
	}
	return nil
}

// wrongType is the error of a value of the wrong JSON type.
func (c *checker) wrongType(start int64, want string, got json.Token) error {
	return c.fail(start, "want "+want+", got "+describe(got))
}

// describe names the JSON type of a token for an error message.
func describe(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			return "an object"
		case '[':
			return "an array"
		}
		return "'" + v.String() + "'"
	case string:
		if len(v) > 40 {
			v = v[:40] + "..."
		}
		return "string " + strconv.Quote(v)
	case json.Number:
		return "number " + string(v)
	case bool:
		return "boolean " + strconv.FormatBool(v)
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", tok)
}

// skipSpace returns the offset of the first byte at or after off that is
// neither JSON white space nor a separator (',' or ':', which Token reads
// along with the token after them).
func skipSpace(data []byte, off int) int {
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

// lineCol returns the 1-based line and column (in bytes) of offset off.
func lineCol(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	col = off - bytes.LastIndexByte(before, '\n')
	return line, col
}

// convertJSONError turns an error of encoding/json into an *Error.
func convertJSONError(file string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	e := &Error{File: file, Msg: strings.TrimPrefix(err.Error(), "json: ")}
	switch {
	case errors.As(err, &syn):
		e.Line, e.Col = lineCol(data, int(syn.Offset)-1)
		e.Msg = "syntax error: " + syn.Error()
	case errors.As(err, &typ):
		e.Line, e.Col = lineCol(data, int(typ.Offset))
		e.Path = typ.Field
		e.Msg = "want " + typ.Type.String() + ", got " + typ.Value
	}
	return e
}
