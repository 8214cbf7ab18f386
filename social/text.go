package social

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds on what a player writes.
const (
	// MaxChatRunes is the longest chat message, in characters (runes):
	// two lines of a chat box.
	MaxChatRunes = 160
	// MaxChatBytes bounds a message's bytes before it is cleaned: the
	// longest message of MaxChatRunes characters of 4 bytes each.
	MaxChatBytes = 4 * MaxChatRunes
	// MaxNameRunes is the longest name the roster shows; a longer one
	// (from a join token) is cut.
	MaxNameRunes = 32
)

// Errors of Clean.
var (
	ErrEmpty   = errors.New("empty message")
	ErrTooLong = errors.New("message too long")
)

// Clean returns a chat message as the room relays it: control characters
// (newlines, tabs) become spaces, format characters (zero-width and
// direction overrides, which can disguise a message) go, runs of spaces
// become one, and the ends are trimmed. It fails with ErrEmpty for nothing
// left and ErrTooLong past MaxChatRunes (counted after cleaning). Invalid
// UTF-8 becomes U+FFFD. A text over MaxChatBytes is refused before it is
// walked.
func Clean(text string) (string, error) {
	if len(text) > MaxChatBytes {
		return "", fmt.Errorf("%w: %d bytes, at most %d", ErrTooLong, len(text), MaxChatBytes)
	}
	out := clean(text)
	switch n := utf8.RuneCountInString(out); {
	case n == 0:
		return "", ErrEmpty
	case n > MaxChatRunes:
		return "", fmt.Errorf("%w: %d characters, at most %d", ErrTooLong, n, MaxChatRunes)
	}
	return out, nil
}

// CleanName returns a player's name as the roster shows it: cleaned as a
// chat message, cut to MaxNameRunes; def when nothing is left.
func CleanName(name, def string) string {
	out := clean(name)
	if utf8.RuneCountInString(out) > MaxNameRunes {
		out = strings.TrimSpace(string([]rune(out)[:MaxNameRunes]))
	}
	if out == "" {
		return def
	}
	return out
}

func clean(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	space := true // at the start: leading spaces go
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Cf, r):
			continue
		case unicode.IsControl(r) || unicode.IsSpace(r):
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		b.WriteRune(r) // invalid UTF-8 arrives here as U+FFFD
		space = false
	}
	return strings.TrimRight(b.String(), " ")
}
