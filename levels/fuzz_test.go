package levels

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzParse: Parse never panics; a failure is always an *Error naming the
// file and matching ErrInvalid; a level it accepts writes back (Marshal) to
// a file it accepts again and writes back byte for byte the same.
//
// The seeds are small levels: smallLevel has every section of the format
// but the signals and races, which signalLevel has, and the cameras,
// which cameraLevel has.
// The embedded main-city (94 KB) is left out: the fuzzer minimizes each new
// input it finds, and for one of that size, at ~15 ms a parse, that took
// the whole of a run (23 executions in 40 s, then stuck minimizing).
func FuzzParse(f *testing.F) {
	flat, err := Raw("test-flat")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(flat)
	f.Add([]byte(smallLevel))
	f.Add([]byte(signalLevel))
	f.Add([]byte(cameraLevel))
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
