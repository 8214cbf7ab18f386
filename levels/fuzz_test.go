package levels

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzParse: Parse never panics; a failure is always an *Error naming the
// file and matching ErrInvalid; a level it accepts writes back (Marshal) to
// a file it accepts again and writes back byte for byte the same.
func FuzzParse(f *testing.F) {
	for _, name := range Names() {
		data, err := Raw(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(smallLevel))
	f.Add([]byte(`{"name":"x","version":1,"ground":{"min":[0,0],"max":[1,1]}}`))
	f.Add([]byte(`{"name":"x","version":1,"ground":{"min":[0,0],"max":[1,1]},"buildings":[{"id":"a","footprint":[[0,0],[1,0]],"height":1,"use":"wall"}]}`))
	f.Add([]byte(`[1, {"a": [null, true]}, "s"]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Parse("fuzz.json", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrInvalid) || e.File != "fuzz.json" || e.Msg == "" {
				t.Fatalf("error %T %q is not an *Error of fuzz.json", err, err)
			}
			return
		}
		out, err := Marshal(l)
		if err != nil {
			t.Fatalf("Marshal of a valid level: %v", err)
		}
		l2, err := Parse("again.json", out)
		if err != nil {
			t.Fatalf("Parse(Marshal(l)): %v\n%s", err, out)
		}
		out2, err := Marshal(l2)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, out2) {
			t.Fatalf("Marshal(Parse(Marshal(l))) differs:\n%s\n---\n%s", out, out2)
		}
	})
}
