// Package jointoken signs and verifies join tokens: who a player is (an
// account, a name, a party key) and whether their debug commands are
// honoured, signed by the server's secret with HMAC-SHA256. Handler issues
// them over HTTP, for a platform that does not link this package.
//
// A token is base64url(JSON claims) "." base64url(HMAC-SHA256(secret,
// first part)), both without padding. The claims carry an expiry (Unix
// seconds); a token past it is refused.
package jointoken

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MaxLen bounds a token's length: a longer string is refused before any
// decoding.
const MaxLen = 1024

// MinSecretLen is the shortest secret Sign and Verify accept: 16 bytes.
const MinSecretLen = 16

// MaxAccountLen and MaxPartyLen bound a token's account and party key, in
// bytes: a platform's ids, not prose.
const (
	MaxAccountLen = 64
	MaxPartyLen   = 64
)

// Errors of Verify. Each is wrapped with detail; test with errors.Is.
var (
	ErrMalformed = errors.New("jointoken: malformed token")
	ErrSignature = errors.New("jointoken: bad signature")
	ErrExpired   = errors.New("jointoken: expired")
	ErrSecret    = errors.New("jointoken: secret too short")
)

// Claims are what a token says of its holder.
type Claims struct {
	Account string `json:"acc"`
	Name    string `json:"name"`
	// Party is the player's party key: the players whose tokens carry
	// the same key play in one party, which each room numbers (1..N) as
	// they come in. "" is no party. A token that carries a number (as
	// tokens once did) reads as that number's decimal digits.
	Party   string `json:"party,omitempty"`
	Debug   bool   `json:"debug,omitempty"`
	Expires int64  `json:"exp"` // Unix seconds
}

// UnmarshalJSON reads claims, the party key given as a string or, as
// tokens once carried it, a number.
func (c *Claims) UnmarshalJSON(b []byte) error {
	type plain Claims
	var v struct {
		plain
		Party json.RawMessage `json:"party"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*c = Claims(v.plain)
	c.Party = ""
	if len(v.Party) == 0 || string(v.Party) == "null" {
		return nil
	}
	if v.Party[0] == '"' {
		return json.Unmarshal(v.Party, &c.Party)
	}
	var n uint64
	if err := json.Unmarshal(v.Party, &n); err != nil {
		return fmt.Errorf("party: a string or a whole number: %w", err)
	}
	if n != 0 {
		c.Party = strconv.FormatUint(n, 10)
	}
	return nil
}

var b64 = base64.RawURLEncoding

// Sign returns the token for c signed with secret.
func Sign(secret []byte, c Claims) (string, error) {
	if len(secret) < MinSecretLen {
		return "", ErrSecret
	}
	body, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("jointoken: %w", err)
	}
	head := b64.EncodeToString(body)
	return head + "." + b64.EncodeToString(mac(secret, head)), nil
}

// Verify checks token's signature with secret and its expiry against now,
// and returns its claims.
func Verify(secret []byte, token string, now time.Time) (Claims, error) {
	var c Claims
	if len(secret) < MinSecretLen {
		return c, ErrSecret
	}
	if len(token) > MaxLen {
		return c, fmt.Errorf("%w: %d bytes, at most %d", ErrMalformed, len(token), MaxLen)
	}
	head, sig, ok := strings.Cut(token, ".")
	if !ok {
		return c, fmt.Errorf("%w: no signature", ErrMalformed)
	}
	got, err := b64.DecodeString(sig)
	if err != nil {
		return c, fmt.Errorf("%w: signature: %w", ErrMalformed, err)
	}
	if !hmac.Equal(got, mac(secret, head)) {
		return c, ErrSignature
	}
	body, err := b64.DecodeString(head)
	if err != nil {
		return c, fmt.Errorf("%w: claims: %w", ErrMalformed, err)
	}
	if err := json.Unmarshal(body, &c); err != nil {
		return Claims{}, fmt.Errorf("%w: claims: %w", ErrMalformed, err)
	}
	switch {
	case c.Account == "":
		return Claims{}, fmt.Errorf("%w: no account", ErrMalformed)
	case len(c.Account) > MaxAccountLen:
		return Claims{}, fmt.Errorf("%w: account over %d bytes", ErrMalformed, MaxAccountLen)
	case len(c.Party) > MaxPartyLen:
		return Claims{}, fmt.Errorf("%w: party key over %d bytes", ErrMalformed, MaxPartyLen)
	}
	if now.Unix() >= c.Expires {
		return Claims{}, fmt.Errorf("%w at %s", ErrExpired, time.Unix(c.Expires, 0).UTC().Format(time.RFC3339))
	}
	return c, nil
}

func mac(secret []byte, head string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(head))
	return m.Sum(nil)
}
