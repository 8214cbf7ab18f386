package social

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Chat's rate: a burst of ChatBurst messages, then one every ChatEvery
// seconds (quick-chat lines count too). Past it a message is refused with
// how long to wait.
const (
	ChatBurst = 4
	ChatEvery = 2
)

// MaxPending bounds the messages of a room waiting for their verdict: a
// slow moderation service holds them, and the room must not keep more
// than a few seconds of its chat for it.
const MaxPending = 64

// Errors of Channel.Submit.
var (
	ErrTooFast = errors.New("slow down")
	ErrBusy    = errors.New("moderation busy: try again in a moment")
)

// Message is a chat message to judge.
type Message struct {
	Room    string
	Session uint32
	Account string // "" for a player without a join token
	Name    string
	Text    string // cleaned (Clean)
}

// Verdict is a moderator's judgement of a Message.
type Verdict struct {
	OK bool
	// Text is what the room relays when OK: the message's own text, or
	// the moderator's edit of it. Empty means the message's text.
	Text string
	// Reason says why the message was refused, when not OK; its sender is
	// shown it.
	Reason string
}

// Refuse returns a refusal for reason.
func Refuse(reason string) Verdict { return Verdict{Reason: reason} }

// Moderator judges a room's chat messages before the room relays them.
//
// Moderate is called on the room goroutine, which must never wait: it
// must return at once. A moderator that decides at once (a word list) calls
// done before it returns; one that takes time (a call to a service) calls
// done later, from any goroutine. done must be called exactly once per
// call, whatever happens: a moderator that cannot decide (its service is
// down or too slow) refuses the message; it never lets it through
// unjudged. done never blocks.
type Moderator interface {
	Moderate(m Message, done func(Verdict))
}

// ModeratorFunc is a Moderator that decides at once: f's verdict.
type ModeratorFunc func(Message) Verdict

// Moderate implements Moderator.
func (f ModeratorFunc) Moderate(m Message, done func(Verdict)) { done(f(m)) }

// Chain returns a moderator that asks first, then (if first passed the
// message) then, with first's edit if it made one: a local word list
// before a service, say.
func Chain(first, then Moderator) Moderator { return chain{first, then} }

type chain struct{ first, then Moderator }

func (c chain) Moderate(m Message, done func(Verdict)) {
	c.first.Moderate(m, func(v Verdict) {
		if !v.OK {
			done(v)
			return
		}
		if v.Text != "" {
			m.Text = v.Text
		}
		c.then.Moderate(m, done)
	})
}

// WordList is the default moderator: it refuses a message that holds any
// of its words, compared as whole words and without regard to case. The
// zero WordList passes everything (the channel's own bounds still hold).
type WordList struct {
	words map[string]bool
}

// NewWordList returns a WordList of words (blank ones are dropped; a
// "word" of several words is matched as each of them alone).
func NewWordList(words []string) *WordList {
	wl := &WordList{words: map[string]bool{}}
	for _, w := range words {
		for _, f := range fields(w) {
			wl.words[f] = true
		}
	}
	return wl
}

// Len returns how many words the list holds.
func (wl *WordList) Len() int { return len(wl.words) }

// Moderate implements Moderator.
func (wl *WordList) Moderate(m Message, done func(Verdict)) {
	for _, f := range fields(m.Text) {
		if wl.words[f] {
			done(Refuse("message refused: it holds a word this room does not allow"))
			return
		}
	}
	done(Verdict{OK: true})
}

// fields splits s into lower-case words: runs of letters and digits.
func fields(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
}

// Channel is a room's chat: every message is bounded (Clean: its length),
// rate-limited per sender (ChatBurst, ChatEvery), and then judged by the
// room's moderator before it is relayed. Room goroutine only.
type Channel struct {
	mod     Moderator
	rate    Limiter
	pending int
}

// NewChannel returns a channel whose messages mod judges (nil: an empty
// WordList, the bounds alone).
func NewChannel(mod Moderator) *Channel {
	if mod == nil {
		mod = &WordList{}
	}
	return &Channel{mod: mod, rate: Limiter{Burst: ChatBurst, Every: ticks(ChatEvery)}}
}

// Take counts one message of sender at tick now against its rate. It
// fails with ErrTooFast (wrapped with how long to wait).
func (c *Channel) Take(sender uint32, now uint64) error {
	if ok, wait := c.rate.Allow(sender, now); !ok {
		return fmt.Errorf("%w: %d messages at once, then one every %d s (wait %.1f s)", ErrTooFast, ChatBurst, ChatEvery, float64(wait)/float64(ticks(1)))
	}
	return nil
}

// Submit cleans m.Text, counts it against its sender's rate at tick now
// and hands it to the moderator: done gets the verdict, at once or later
// (Moderator). A message refused by the channel's own bounds (ErrEmpty,
// ErrTooLong, ErrTooFast, ErrBusy) returns that error and done is not
// called. Call Judged once per verdict delivered.
func (c *Channel) Submit(m Message, now uint64, done func(Message, Verdict)) error {
	text, err := Clean(m.Text)
	if err != nil {
		return err
	}
	if c.pending >= MaxPending {
		return ErrBusy
	}
	if err := c.Take(m.Session, now); err != nil {
		return err
	}
	m.Text = text
	c.pending++
	c.mod.Moderate(m, func(v Verdict) {
		switch {
		case v.OK && v.Text == "":
			v.Text = m.Text
		case v.OK:
			// A moderator's edit is bounded like the message itself.
			edit, err := Clean(v.Text)
			if err != nil {
				v = Refuse("message refused: moderation returned an unusable edit (" + err.Error() + ")")
			}
			v.Text = edit
		case v.Reason == "":
			v.Reason = "message refused by moderation"
		}
		done(m, v)
	})
	return nil
}

// Judged counts one verdict delivered back to the room goroutine.
func (c *Channel) Judged() { c.pending = max(c.pending-1, 0) }

// Forget drops what the channel keeps of sender (it left the room).
func (c *Channel) Forget(sender uint32) { c.rate.Forget(sender) }
