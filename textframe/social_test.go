package textframe

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// rosterOf is a roster of n lines named from names, for the tests.
func rosterOf(rng *rand.Rand, names []string, full bool) RosterFrame {
	f := RosterFrame{Type: "roster", Full: full}
	for i := 0; i < rng.IntN(6); i++ {
		p := RosterPlayer{Session: rng.Uint32(), Player: uint16(rng.Uint32()), Name: names[rng.IntN(len(names))],
			Ping: uint16(rng.Uint32()), State: []string{"foot", "car", "dead", "spectator"}[rng.IntN(4)]}
		if rng.IntN(2) == 0 {
			p.Account = names[rng.IntN(len(names))]
		}
		if rng.IntN(2) == 0 {
			p.Party = uint16(rng.Uint32())
		}
		f.Players = append(f.Players, p)
	}
	for i := 0; i < rng.IntN(3); i++ {
		f.Gone = append(f.Gone, rng.Uint32())
	}
	return f
}

// TestRosterAppendJSONIsMarshal: RosterFrame.AppendJSON writes what
// json.Marshal writes, byte for byte, whatever the names hold.
func TestRosterAppendJSONIsMarshal(t *testing.T) {
	names := []string{"", "Ada", "player 12", `quo"te\back`, "<b>&amp;</b>", "tab\tnew\nline\r\b\f\x00\x1f\x7f",
		"é ü 中文 🚗", "\u2028\u2029", "bad \xff\xfe utf8 \xc3", "\u202eevil", strings.Repeat("x", 64)}
	rng := rand.New(rand.NewPCG(3, 4))
	var b []byte
	for i := 0; i < 2000; i++ {
		f := rosterOf(rng, names, i%2 == 0)
		b = f.AppendJSON(b[:0])
		want, _ := json.Marshal(f)
		if string(b) != string(want) {
			t.Fatalf("AppendJSON %s\njson.Marshal %s", b, want)
		}
	}
}

// FuzzAppendString: appendString writes what json.Marshal writes for any
// string, valid UTF-8 or not.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a", "\"\\<>&", "\x00\x7f", "\u2028", "\xff", "é🚗"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := appendString(nil, s)
		want, _ := json.Marshal(s)
		if string(got) != string(want) {
			t.Fatalf("%q: appendString %s, json.Marshal %s", s, got, want)
		}
		if !utf8.Valid(got) {
			t.Fatalf("%q: invalid UTF-8 out", s)
		}
	})
}

// TestRosterAppendJSONAllocatesNothing: a roster appended into a buffer
// with room allocates nothing.
func TestRosterAppendJSONAllocatesNothing(t *testing.T) {
	f := RosterFrame{Type: "roster", Full: true, Gone: []uint32{4}}
	for i := 0; i < 64; i++ {
		f.Players = append(f.Players, RosterPlayer{Session: uint32(i), Player: uint16(i), Name: "player <é>", Account: "acc", Party: 2, Ping: 40, State: "car"})
	}
	b := make([]byte, 0, 16<<10)
	if n := testing.AllocsPerRun(100, func() { b = f.AppendJSON(b[:0]) }); n != 0 {
		t.Fatalf("%v allocations a run, want 0", n)
	}
}

// TestCommandSocialArgs: the social commands' arguments decode into
// Command, and an argument of the wrong type is refused.
func TestCommandSocialArgs(t *testing.T) {
	var c Command
	if err := json.Unmarshal([]byte(`{"type":"party","cmd":"invite","session":4,"text":"hi","line":2,"emote":1}`), &c); err != nil {
		t.Fatal(err)
	}
	if c.Session != 4 || c.Text != "hi" || c.Line == nil || *c.Line != 2 || c.Emote == nil || *c.Emote != 1 {
		t.Fatalf("%+v", c)
	}
	for _, bad := range []string{`{"type":"vote","session":-1}`, `{"type":"chat","text":5}`, `{"type":"emote","emote":"wave"}`} {
		if err := json.Unmarshal([]byte(bad), &c); err == nil {
			t.Errorf("%s: decoded", bad)
		}
	}
}
