package social

import (
	"errors"
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	cases := []struct {
		in, want string
		err      error
	}{
		{"hello", "hello", nil},
		{"  two\n\tlines  ", "two lines", nil},
		{"a\u202eevil\u200b", "aevil", nil},                 // a direction override and a zero-width space go
		{"<b>bold</b> & \"q\"", "<b>bold</b> & \"q\"", nil}, // text, not markup: kept as written
		{"bad \xff byte", "bad \ufffd byte", nil},
		{"", "", ErrEmpty},
		{" \n\t\u200b ", "", ErrEmpty},
		{strings.Repeat("é", MaxChatRunes), strings.Repeat("é", MaxChatRunes), nil},
		{strings.Repeat("é", MaxChatRunes+1), "", ErrTooLong},
		{strings.Repeat(" ", MaxChatBytes+1) + "x", "", ErrTooLong},
	}
	for _, c := range cases {
		got, err := Clean(c.in)
		if !errors.Is(err, c.err) || got != c.want {
			t.Errorf("Clean(%q) = %q, %v; want %q, %v", c.in, got, err, c.want, c.err)
		}
	}
}

func TestCleanName(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Ada", "Ada"},
		{"\u202eAda\n", "Ada"},
		{"", "player 3"},
		{"\u200b", "player 3"},
		{strings.Repeat("x", 40), strings.Repeat("x", MaxNameRunes)},
	}
	for _, c := range cases {
		if got := CleanName(c.in, "player 3"); got != c.want {
			t.Errorf("CleanName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLimiter(t *testing.T) {
	l := Limiter{Burst: 3, Every: 10}
	steps := []struct {
		at   uint64
		ok   bool
		wait uint64
	}{
		{0, true, 0}, {0, true, 0}, {0, true, 0}, // the burst
		{0, false, 10}, {5, false, 5}, // then one every 10 ticks
		{10, true, 0}, {10, false, 10},
		{100, true, 0}, {100, true, 0}, {100, true, 0}, {100, false, 10}, // full again after a rest
	}
	for i, s := range steps {
		ok, wait := l.Allow(7, s.at)
		if ok != s.ok || wait != s.wait {
			t.Fatalf("step %d at %d: %v wait %d, want %v wait %d", i, s.at, ok, wait, s.ok, s.wait)
		}
	}
	if ok, _ := l.Allow(8, 100); !ok {
		t.Fatal("another sender has its own bucket")
	}
	l.Forget(7)
	if ok, _ := l.Allow(7, 100); !ok {
		t.Fatal("a sender forgotten starts afresh")
	}
}

func TestWordList(t *testing.T) {
	wl := NewWordList([]string{"Darn", " heck ", "", "two words"})
	if wl.Len() != 4 {
		t.Fatalf("%d words, want darn, heck, two, words", wl.Len())
	}
	cases := []struct {
		text string
		ok   bool
	}{
		{"hello there", true},
		{"oh DARN it", false},
		{"heck!", false},
		{"darnation is a word of its own", true}, // whole words only
		{"check this", true},
		{"two", false},
	}
	for _, c := range cases {
		var got Verdict
		calls := 0
		wl.Moderate(Message{Text: c.text}, func(v Verdict) { got = v; calls++ })
		if calls != 1 || got.OK != c.ok || (!got.OK && got.Reason == "") {
			t.Errorf("%q: %d calls, %+v; want ok %v with a reason when refused", c.text, calls, got, c.ok)
		}
	}
	var zero WordList
	zero.Moderate(Message{Text: "darn"}, func(v Verdict) {
		if !v.OK {
			t.Error("the zero WordList refuses")
		}
	})
}

// lateModerator holds its verdicts until the test releases them, as a
// service does.
type lateModerator struct {
	held []func(Verdict)
}

func (m *lateModerator) Moderate(_ Message, done func(Verdict)) { m.held = append(m.held, done) }

func TestChannel(t *testing.T) {
	type got struct {
		m Message
		v Verdict
	}
	var out []got
	done := func(m Message, v Verdict) { out = append(out, got{m, v}) }

	c := NewChannel(NewWordList([]string{"darn"}))
	cases := []struct {
		text string
		at   uint64
		err  error
		ok   bool
	}{
		{"  hi\nthere ", 0, nil, true},
		{"", 0, ErrEmpty, false},
		{strings.Repeat("x", MaxChatRunes+1), 0, ErrTooLong, false},
		{"darn", 0, nil, false}, // refused by the moderator, counted by the rate
		{"three", 0, nil, true},
		{"four", 0, nil, true},
		{"five", 0, ErrTooFast, false}, // past the burst
		{"six", ticks(ChatEvery), nil, true},
	}
	for i, tc := range cases {
		n := len(out)
		err := c.Submit(Message{Session: 1, Text: tc.text}, tc.at, done)
		if !errors.Is(err, tc.err) {
			t.Fatalf("case %d %q: %v, want %v", i, tc.text, err, tc.err)
		}
		if err != nil {
			if len(out) != n {
				t.Fatalf("case %d: a message refused by the bounds reached the moderator", i)
			}
			continue
		}
		c.Judged()
		if len(out) != n+1 || out[n].v.OK != tc.ok {
			t.Fatalf("case %d %q: verdicts %+v, want one, ok %v", i, tc.text, out[n:], tc.ok)
		}
	}
	if out[0].v.Text != "hi there" || out[0].m.Text != "hi there" {
		t.Fatalf("relayed %q, want the cleaned text", out[0].v.Text)
	}

	// A moderator that takes its time: the channel holds at most
	// MaxPending messages for it, and its edits are bounded.
	lm := &lateModerator{}
	c = NewChannel(lm)
	for i := 0; i < MaxPending; i++ {
		if err := c.Submit(Message{Session: uint32(i), Text: "hi"}, 0, done); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Submit(Message{Session: 999, Text: "hi"}, 0, done); !errors.Is(err, ErrBusy) {
		t.Fatalf("message %d waiting: %v, want ErrBusy", MaxPending+1, err)
	}
	out = out[:0]
	lm.held[0](Verdict{OK: true, Text: "edited\n"})
	lm.held[1](Verdict{OK: true, Text: strings.Repeat("x", MaxChatRunes+1)})
	lm.held[2](Verdict{})
	if out[0].v.Text != "edited" || out[1].v.OK || out[2].v.OK || out[2].v.Reason == "" {
		t.Fatalf("verdicts %+v: want the edit cleaned, an edit too long refused, a bare refusal given a reason", out)
	}
	c.Judged()
	if err := c.Submit(Message{Session: 999, Text: "hi"}, 0, done); err != nil {
		t.Fatalf("a verdict delivered frees a place: %v", err)
	}
}

func TestQuickLine(t *testing.T) {
	if l, err := QuickLine(DefaultQuickChat, 1); err != nil || l != "Thanks!" {
		t.Fatalf("line 1: %q %v", l, err)
	}
	for _, id := range []int{-1, len(DefaultQuickChat)} {
		if _, err := QuickLine(DefaultQuickChat, id); err == nil {
			t.Errorf("line %d: no error", id)
		}
	}
	if len(DefaultQuickChat) > MaxQuickChat {
		t.Fatalf("%d default lines, at most %d", len(DefaultQuickChat), MaxQuickChat)
	}
}

func TestChain(t *testing.T) {
	upper := ModeratorFunc(func(m Message) Verdict { return Verdict{OK: true, Text: strings.ToUpper(m.Text)} })
	var seen []string
	spy := ModeratorFunc(func(m Message) Verdict { seen = append(seen, m.Text); return Verdict{OK: true} })
	c := Chain(NewWordList([]string{"darn"}), Chain(upper, spy))
	var got []Verdict
	for _, text := range []string{"hello", "oh darn"} {
		c.Moderate(Message{Text: text}, func(v Verdict) { got = append(got, v) })
	}
	if len(got) != 2 || !got[0].OK || got[1].OK || len(seen) != 1 || seen[0] != "HELLO" {
		t.Fatalf("verdicts %+v, the last saw %v: want the word list to stop the second, the edit passed on", got, seen)
	}
}
