// Package jointoken signs and verifies join tokens: who a player is (an
// account, a name, a party key), whether their debug commands are
// honoured, and the run room whose seat they hold, if any. A token is a
// standard JWT (RFC 7519, github.com/golang-jwt/jwt/v5), so a platform can
// mint one with its own tools.
//
// Two ways to trust a token, each an algorithm the server is configured to
// accept, never one the token names for itself (Verifier):
//   - HS256 with the server's secret: the server can mint tokens too
//     (Sign, and Handler over HTTP for a platform that does not link this
//     package);
//   - EdDSA (Ed25519) or RS256 with a platform's public keys, from a JWKS
//     (KeySet): the fleet's servers check tokens and cannot make them.
//
// The claims: sub (the account), name, party, debug, run (the run room the
// account has a seat in) and exp (Unix seconds; a token past it is
// refused). Tokens of the format before the JWTs (base64url JSON, a dot, an
// HMAC) are refused with a reason that says what to send instead.
package jointoken

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// MaxLen bounds a token's length: a longer string is refused before any
// decoding. An RS256 token of a 4096-bit key carries 683 characters of
// signature; the claims fit in the rest.
const MaxLen = 2048

// MinSecretLen is the shortest secret Sign and Verify accept: 16 bytes.
const MinSecretLen = 16

// MaxAccountLen and MaxPartyLen bound a token's account and party key, in
// bytes: a platform's ids, not prose. MaxRunLen bounds its run room's
// name (a room name is at most 32 bytes).
const (
	MaxAccountLen = 64
	MaxPartyLen   = 64
	MaxRunLen     = 32
)

// Leeway is the clock skew allowed between the platform that minted a
// token and the server: a token is good until Leeway past its exp, and
// from Leeway before its nbf.
const Leeway = 30 * time.Second

// Errors of Verify. Each is wrapped with detail; test with errors.Is.
var (
	ErrMalformed = errors.New("jointoken: malformed token")
	ErrSignature = errors.New("jointoken: bad signature")
	ErrExpired   = errors.New("jointoken: expired")
	ErrSecret    = errors.New("jointoken: secret too short")
	// ErrOldFormat is a token of the format before the JWTs.
	ErrOldFormat = errors.New("jointoken: old token format")
	// ErrAlgorithm is a token signed with an algorithm the server does
	// not accept (none among them).
	ErrAlgorithm = errors.New("jointoken: algorithm not accepted")
	// ErrKeyID is a token whose key id (kid) is not in the key set.
	ErrKeyID = errors.New("jointoken: unknown key id")
)

// Claims are what a token says of its holder.
type Claims struct {
	// Account is the token's subject (sub): the player's account.
	Account string
	Name    string
	// Party is the player's party key: the players whose tokens carry
	// the same key play in one party, which each room numbers (1..N) as
	// they come in. "" is no party. A token that carries a number reads
	// as that number's decimal digits.
	Party string
	Debug bool
	// Run, if set, is the run room whose seat the account holds (a run
	// room seats accounts: POST /runs): the token joins that room alone.
	Run     string
	Expires int64 // Unix seconds (exp)
}

// tokenClaims are Claims as a JWT carries them.
type tokenClaims struct {
	jwt.RegisteredClaims
	Name  string   `json:"name,omitempty"`
	Party partyKey `json:"party,omitempty"`
	Debug bool     `json:"debug,omitempty"`
	Run   string   `json:"run,omitempty"`
}

func (c Claims) token() tokenClaims {
	return tokenClaims{
		RegisteredClaims: jwt.RegisteredClaims{Subject: c.Account, ExpiresAt: jwt.NewNumericDate(time.Unix(c.Expires, 0))},
		Name:             c.Name, Party: partyKey(c.Party), Debug: c.Debug, Run: c.Run,
	}
}

func (t *tokenClaims) claims() (Claims, error) {
	c := Claims{Account: t.Subject, Name: t.Name, Party: string(t.Party), Debug: t.Debug, Run: t.Run}
	if t.ExpiresAt != nil {
		c.Expires = t.ExpiresAt.Unix()
	}
	switch {
	case c.Account == "":
		return Claims{}, fmt.Errorf("%w: no account (sub)", ErrMalformed)
	case len(c.Account) > MaxAccountLen:
		return Claims{}, fmt.Errorf("%w: account (sub) over %d bytes", ErrMalformed, MaxAccountLen)
	case len(c.Party) > MaxPartyLen:
		return Claims{}, fmt.Errorf("%w: party key over %d bytes", ErrMalformed, MaxPartyLen)
	case len(c.Run) > MaxRunLen:
		return Claims{}, fmt.Errorf("%w: run room over %d bytes", ErrMalformed, MaxRunLen)
	}
	return c, nil
}

// partyKey is the party claim: a string or, as some platforms send it, a
// whole number, read as its decimal digits (0 is no party).
type partyKey string

func (p *partyKey) UnmarshalJSON(b []byte) error {
	*p = ""
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	if b[0] == '"' {
		var s string
		err := json.Unmarshal(b, &s)
		*p = partyKey(s)
		return err
	}
	var n uint64
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("party: a string or a whole number: %w", err)
	}
	if n != 0 {
		*p = partyKey(strconv.FormatUint(n, 10))
	}
	return nil
}

// Sign returns the HS256 JWT of c signed with secret.
func Sign(secret []byte, c Claims) (string, error) {
	if len(secret) < MinSecretLen {
		return "", ErrSecret
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c.token()).SignedString(secret)
	if err != nil {
		return "", fmt.Errorf("jointoken: %w", err)
	}
	return tok, nil
}

// Verify checks an HS256 token's signature with secret and its expiry
// against now, and returns its claims: a Verifier that accepts HS256
// alone.
func Verify(secret []byte, token string, now time.Time) (Claims, error) {
	v, err := NewVerifier(VerifierConfig{Secret: secret, Algorithms: []string{HS256}})
	if err != nil {
		return Claims{}, err
	}
	return v.Verify(token, now)
}
