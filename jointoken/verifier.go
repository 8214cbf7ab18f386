package jointoken

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rsa"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// The algorithms a Verifier may accept (a JWT header's alg).
const (
	HS256 = "HS256" // HMAC-SHA256 with the server's secret
	EdDSA = "EdDSA" // Ed25519 with a platform's public key (RFC 8037)
	RS256 = "RS256" // RSA PKCS#1 v1.5 SHA-256 with a platform's public key
)

// Algorithms are the algorithms a Verifier may be configured to accept.
var Algorithms = []string{HS256, EdDSA, RS256}

// VerifierConfig says which tokens a Verifier trusts.
type VerifierConfig struct {
	// Algorithms are the algorithms accepted (of Algorithms): a token
	// signed with any other is refused, whatever its header says.
	Algorithms []string
	// Secret is HS256's key, at least MinSecretLen bytes: required with
	// HS256, refused without it.
	Secret []byte
	// Keys are the public keys of EdDSA and RS256, by key id: required
	// with either.
	Keys *KeySet
}

// Verifier checks join tokens against the algorithms and keys it was
// configured with. It is safe for concurrent use.
type Verifier struct {
	algs   []string
	secret []byte
	keys   *KeySet
	desc   string // the algorithms, for the reasons
}

// NewVerifier checks c and returns its Verifier.
func NewVerifier(c VerifierConfig) (*Verifier, error) {
	if len(c.Algorithms) == 0 {
		return nil, fmt.Errorf("jointoken: no algorithm accepted (%s)", strings.Join(Algorithms, ", "))
	}
	var public bool
	for _, a := range c.Algorithms {
		switch a {
		case HS256:
			if len(c.Secret) < MinSecretLen {
				return nil, fmt.Errorf("%w: HS256 needs a secret of at least %d bytes", ErrSecret, MinSecretLen)
			}
		case EdDSA, RS256:
			public = true
		default:
			return nil, fmt.Errorf("jointoken: algorithm %q: one of %s", a, strings.Join(Algorithms, ", "))
		}
	}
	if public && c.Keys == nil {
		return nil, errors.New("jointoken: EdDSA and RS256 need the platform's public keys (a JWKS)")
	}
	if !public && c.Keys != nil {
		return nil, fmt.Errorf("jointoken: public keys given, but neither %s nor %s is accepted", EdDSA, RS256)
	}
	if !slices.Contains(c.Algorithms, HS256) && len(c.Secret) > 0 {
		return nil, errors.New("jointoken: a secret given, but HS256 is not accepted")
	}
	return &Verifier{algs: slices.Clone(c.Algorithms), secret: c.Secret, keys: c.Keys, desc: strings.Join(c.Algorithms, ", ")}, nil
}

// Accepts reports whether v accepts algorithm alg.
func (v *Verifier) Accepts(alg string) bool { return slices.Contains(v.algs, alg) }

// CanSign reports whether v holds the secret that signs tokens (HS256).
func (v *Verifier) CanSign() bool { return v.Accepts(HS256) }

// Verify checks token's signature and its expiry against now, and returns
// its claims. The error wraps one of the package's Err values and says
// why, for the player's close reason and the log.
func (v *Verifier) Verify(token string, now time.Time) (Claims, error) {
	if len(token) > MaxLen {
		return Claims{}, fmt.Errorf("%w: %d bytes, at most %d", ErrMalformed, len(token), MaxLen)
	}
	switch strings.Count(token, ".") {
	case 2:
	case 1:
		return Claims{}, fmt.Errorf("%w: send a JWT (%s) from POST /tokens or the platform", ErrOldFormat, v.desc)
	default:
		return Claims{}, fmt.Errorf("%w: a JWT has three parts, header.claims.signature", ErrMalformed)
	}
	var tc tokenClaims
	p := jwt.NewParser(jwt.WithValidMethods(v.algs), jwt.WithExpirationRequired(), jwt.WithLeeway(Leeway),
		jwt.WithTimeFunc(func() time.Time { return now }))
	// The algorithm first, from the header alone: the reason names it.
	head, _, err := p.ParseUnverified(token, &tokenClaims{})
	if err != nil && !errors.Is(err, jwt.ErrTokenUnverifiable) {
		return Claims{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if head == nil {
		return Claims{}, ErrMalformed
	}
	alg, _ := head.Header["alg"].(string)
	if !v.Accepts(alg) {
		return Claims{}, fmt.Errorf("%w: alg %.16q; this server takes %s", ErrAlgorithm, alg, v.desc)
	}
	if err != nil {
		return Claims{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	_, err = p.ParseWithClaims(token, &tc, v.key)
	switch {
	case err == nil:
	case errors.As(err, new(*keyError)):
		var ke *keyError
		errors.As(err, &ke)
		return Claims{}, ke
	case errors.Is(err, jwt.ErrTokenExpired):
		return Claims{}, fmt.Errorf("%w at %s", ErrExpired, tc.ExpiresAt.UTC().Format(time.RFC3339))
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return Claims{}, fmt.Errorf("%w: no expiry (exp)", ErrMalformed)
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		return Claims{}, fmt.Errorf("%w: not valid yet (nbf)", ErrMalformed)
	case errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, jwt.ErrTokenUnverifiable):
		return Claims{}, fmt.Errorf("%w (%s)", ErrSignature, alg)
	default:
		return Claims{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return tc.claims()
}

// keyError is the key lookup's refusal: it is ErrKeyID, with the reason.
type keyError struct{ reason string }

func (e *keyError) Error() string        { return ErrKeyID.Error() + ": " + e.reason }
func (e *keyError) Is(target error) bool { return target == ErrKeyID }

// key is the parser's key function: the secret for HS256, the key set's
// key of the header's kid for the others.
func (v *Verifier) key(t *jwt.Token) (any, error) {
	alg := t.Method.Alg()
	if alg == HS256 {
		return v.secret, nil
	}
	kid, _ := t.Header["kid"].(string)
	k, err := v.keys.lookup(kid, alg)
	if err != nil {
		return nil, err
	}
	return k, nil
}

// keyFits reports whether public key k verifies algorithm alg.
func keyFits(k crypto.PublicKey, alg string) bool {
	switch k.(type) {
	case ed25519.PublicKey:
		return alg == EdDSA
	case *rsa.PublicKey:
		return alg == RS256
	}
	return false
}
