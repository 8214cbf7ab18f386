package textframe

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// TestCarCallFramesGolden: the callcar command as a client sends it, and
// what the server answers (the reply, ok or refused, the carcall frame
// coming, arrived and called off, the notice beside each), one per line,
// against testdata/carcall.golden. A field renamed or dropped changes what
// the page and the bots read: the golden file changes with the frames'
// documentation in carcall.go (go test -run TestCarCallFramesGolden -update).
func TestCarCallFramesGolden(t *testing.T) {
	var got bytes.Buffer
	// The command: decoded as the server decodes it, strictly.
	const call = `{"type":"callcar","id":7}`
	dec := json.NewDecoder(bytes.NewReader([]byte(call)))
	dec.DisallowUnknownFields()
	var c Command
	if err := dec.Decode(&c); err != nil || c.Type != "callcar" || c.ID != 7 {
		t.Fatalf("decode %s: %+v, %v", call, c, err)
	}
	got.WriteString(call + "\n")
	frames := []any{
		&ReplyFrame{Type: "reply", ID: 7, Cmd: "callcar", OK: true},
		&CarCallFrame{Type: "carcall", State: "coming", Car: 12, At: &[2]float32{-28.5, 105}, Tick: 3600, Ends: 3840, Fee: 50},
		&NoticeFrame{Type: "notice", Text: "Your sedan is on its way: here in 4 s, $50 on arrival.", Kind: "info"},
		&CarCallFrame{Type: "carcall", State: "arrived", Car: 12, At: &[2]float32{-325, -196.75}, Tick: 3840, Fee: 50},
		&NoticeFrame{Type: "notice", Text: "Your sedan is here, 3 m away: $50 paid.", Kind: "success"},
		&CarCallFrame{Type: "carcall", State: "off", Car: 12, Tick: 3840, Why: "your car is taken: someone else is driving it"},
		&NoticeFrame{Type: "notice", Text: "Your car's delivery is called off, nothing paid: your car is taken: someone else is driving it.", Kind: "failure"},
		&ReplyFrame{Type: "reply", ID: 8, Cmd: "callcar", Error: "your car is already near: it stands 12 m away"},
		&ReplyFrame{Type: "reply", ID: 9, Cmd: "callcar", Error: "your car is wrecked: no delivery brings it back; take a car you keep out of its garage"},
	}
	for _, f := range frames {
		got.Write(Marshal(f))
		got.WriteByte('\n')
	}
	const path = "testdata/carcall.golden"
	if *update {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run TestCarCallFramesGolden -update writes it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("the car call's frames changed:\n%s\nwant (%s):\n%s", got.Bytes(), path, want)
	}
}
