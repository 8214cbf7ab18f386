package jointoken

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// Bounds of a key set.
const (
	// MaxJWKS bounds a JWKS document: a platform's handful of keys is a
	// few KB.
	MaxJWKS = 1 << 20
	// MinRSABits is the smallest RSA modulus a key set takes.
	MinRSABits = 2048
	// DefaultRefresh is how often a key set reads its source again.
	DefaultRefresh = 5 * time.Minute
	// MinRefresh is the least time between two reads a token with an
	// unknown key id asks for: a new key is picked up at once, and
	// tokens with made-up key ids cost the source one read per MinRefresh.
	MinRefresh = 10 * time.Second
	// fetchTimeout bounds one read of a URL.
	fetchTimeout = 10 * time.Second
)

// ErrJWKS is a key set that cannot be read or is not one this package
// takes. It is wrapped with the reason.
var ErrJWKS = errors.New("jointoken: key set")

// jwk is one key of a JWKS: the fields of RFC 7517, 7518 (RSA) and 8037
// (OKP) this package reads.
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	Crv string `json:"crv"`
	X   string `json:"x"` // OKP: the public key
	N   string `json:"n"` // RSA: the modulus
	E   string `json:"e"` // RSA: the public exponent
	D   string `json:"d"` // a private key's: refused
}

// ParseJWKS reads a JWKS document ({"keys": [...]}): its Ed25519 keys (kty
// OKP, crv Ed25519) and RSA keys of at least MinRSABits, by key id. It
// skips keys for another use than sig, of another algorithm than EdDSA or
// RS256, or of another type (EC, oct). It refuses a document with a
// private key (a server that holds one could make tokens), two keys of
// one id, a key it cannot read, or no key it takes.
func ParseJWKS(b []byte) (map[string]crypto.PublicKey, error) {
	if len(b) > MaxJWKS {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrJWKS, len(b), MaxJWKS)
	}
	var doc struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%w: not a JWKS: %w", ErrJWKS, err)
	}
	keys := map[string]crypto.PublicKey{}
	for i, k := range doc.Keys {
		if k.D != "" {
			return nil, fmt.Errorf("%w: key %d (kid %q) holds a private key (d): give the servers the public keys alone", ErrJWKS, i, k.Kid)
		}
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		var pub crypto.PublicKey
		var err error
		switch {
		case k.Kty == "OKP" && k.Crv == "Ed25519" && (k.Alg == "" || k.Alg == EdDSA):
			pub, err = okpKey(k)
		case k.Kty == "RSA" && (k.Alg == "" || k.Alg == RS256):
			pub, err = rsaKey(k)
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%w: key %d (kid %q): %w", ErrJWKS, i, k.Kid, err)
		}
		if _, dup := keys[k.Kid]; dup {
			return nil, fmt.Errorf("%w: two keys of kid %q", ErrJWKS, k.Kid)
		}
		keys[k.Kid] = pub
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: no Ed25519 or RSA signing key in %d keys", ErrJWKS, len(doc.Keys))
	}
	return keys, nil
}

var b64 = base64.RawURLEncoding

func okpKey(k jwk) (crypto.PublicKey, error) {
	// A reason ends with the decoder's error in parentheses, "<nil>" when
	// the decoding worked and the length is wrong.
	x, err := b64.DecodeString(k.X)
	if err != nil {
		return nil, fmt.Errorf("x: %d bytes of base64url, want %d (%w)", len(x), ed25519.PublicKeySize, err)
	}
	if len(x) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("x: %d bytes of base64url, want %d (<nil>)", len(x), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(x), nil
}

func rsaKey(k jwk) (crypto.PublicKey, error) {
	// A reason ends with the decoder's error in parentheses, "<nil>" when
	// the decoding worked and the length is wrong.
	n, err := b64.DecodeString(k.N)
	if err != nil {
		return nil, fmt.Errorf("n: not base64url (%w)", err)
	}
	if len(n) == 0 {
		return nil, errors.New("n: not base64url (<nil>)")
	}
	e, err := b64.DecodeString(k.E)
	if err != nil {
		return nil, fmt.Errorf("e: not 1 to 4 bytes of base64url (%w)", err)
	}
	if len(e) == 0 || len(e) > 4 {
		return nil, errors.New("e: not 1 to 4 bytes of base64url (<nil>)")
	}
	pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
	switch {
	case pub.N.BitLen() < MinRSABits:
		return nil, fmt.Errorf("a %d-bit modulus, at least %d", pub.N.BitLen(), MinRSABits)
	case pub.E < 3 || pub.E%2 == 0:
		return nil, fmt.Errorf("exponent %d: odd, 3 or more", pub.E)
	}
	return pub, nil
}

// KeySetConfig says where a KeySet reads its keys.
type KeySetConfig struct {
	// Source is the JWKS: an http:// or https:// URL, else a file.
	Source string
	// Refresh is how often the source is read again (0:
	// DefaultRefresh).
	Refresh time.Duration
	// Log gets a warning for each read that fails (nil:
	// slog.Default()).
	Log *slog.Logger
	// Client fetches a URL (nil: one with a 10 s timeout).
	Client *http.Client
}

// KeySet is a platform's public keys by key id, read from a JWKS file or
// URL at the start and again every Refresh, and at once (at most every
// MinRefresh) for a token whose key id it lacks. A read that fails keeps
// the last keys, and is logged. It is safe for concurrent use.
type KeySet struct {
	c KeySetConfig

	mu   sync.RWMutex
	keys map[string]crypto.PublicKey

	readMu   sync.Mutex // one read at a time
	lastRead time.Time  // readMu

	stop chan struct{}
	done chan struct{}
}

// NewKeySet returns a key set of keys that never changes: a program's or
// a test's.
func NewKeySet(keys map[string]crypto.PublicKey) *KeySet {
	return &KeySet{keys: keys}
}

// OpenKeySet reads c.Source, which must give keys, and refreshes them in
// the background until Close.
func OpenKeySet(ctx context.Context, c KeySetConfig) (*KeySet, error) {
	if c.Source == "" {
		return nil, fmt.Errorf("%w: no source", ErrJWKS)
	}
	if c.Refresh <= 0 {
		c.Refresh = DefaultRefresh
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	if c.Client == nil {
		c.Client = &http.Client{Timeout: fetchTimeout}
	}
	k := &KeySet{c: c, stop: make(chan struct{}), done: make(chan struct{})}
	if err := k.Refresh(ctx); err != nil {
		return nil, err
	}
	go k.loop()
	return k, nil
}

// Len returns how many keys the set holds.
func (k *KeySet) Len() int {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return len(k.keys)
}

// Close stops the refreshing.
func (k *KeySet) Close() {
	if k.stop == nil {
		return
	}
	select {
	case <-k.stop:
	default:
		close(k.stop)
	}
	<-k.done
}

func (k *KeySet) loop() {
	defer close(k.done)
	t := time.NewTicker(k.c.Refresh)
	defer t.Stop()
	for {
		select {
		case <-k.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
			k.Refresh(ctx)
			cancel()
		}
	}
}

// Refresh reads the source now. A read that fails keeps the keys held,
// logs a warning and returns the error.
func (k *KeySet) Refresh(ctx context.Context) error {
	k.readMu.Lock()
	defer k.readMu.Unlock()
	return k.read(ctx)
}

// read is Refresh with readMu held.
func (k *KeySet) read(ctx context.Context) error {
	k.lastRead = time.Now()
	keys, err := k.fetch(ctx)
	if err != nil {
		err = fmt.Errorf("%s: %w", k.c.Source, err)
		if n := k.Len(); n > 0 {
			k.c.Log.Warn("join token keys: read failed; keeping the last keys", "source", k.c.Source, "keys", n, "err", err)
		}
		return err
	}
	k.mu.Lock()
	k.keys = keys
	k.mu.Unlock()
	return nil
}

func (k *KeySet) fetch(ctx context.Context) (map[string]crypto.PublicKey, error) {
	var b []byte
	if strings.HasPrefix(k.c.Source, "http://") || strings.HasPrefix(k.c.Source, "https://") {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.c.Source, nil)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrJWKS, err)
		}
		res, err := k.c.Client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrJWKS, err)
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%w: %s", ErrJWKS, res.Status)
		}
		if b, err = io.ReadAll(io.LimitReader(res.Body, MaxJWKS+1)); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrJWKS, err)
		}
	} else {
		f, err := os.Open(k.c.Source)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrJWKS, err)
		}
		defer f.Close()
		if b, err = io.ReadAll(io.LimitReader(f, MaxJWKS+1)); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrJWKS, err)
		}
	}
	return ParseJWKS(b)
}

// lookup returns the key of kid for algorithm alg. A key id the set lacks
// reads the source again first, at most every MinRefresh. A token without
// a kid takes the set's one key for alg, if it has exactly one.
func (k *KeySet) lookup(kid, alg string) (crypto.PublicKey, error) {
	key, err := k.find(kid, alg)
	if err == nil || k.stop == nil || kid == "" {
		return key, err
	}
	k.readMu.Lock()
	if time.Since(k.lastRead) >= MinRefresh {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		k.read(ctx)
		cancel()
	}
	k.readMu.Unlock()
	return k.find(kid, alg)
}

func (k *KeySet) find(kid, alg string) (crypto.PublicKey, error) {
	k.mu.RLock()
	defer k.mu.RUnlock()
	if kid == "" {
		var one crypto.PublicKey
		n := 0
		for _, key := range k.keys {
			if keyFits(key, alg) {
				one, n = key, n+1
			}
		}
		if n != 1 {
			return nil, &keyError{fmt.Sprintf("no kid, and %d %s keys in the set", n, alg)}
		}
		return one, nil
	}
	key, ok := k.keys[kid]
	if !ok {
		return nil, &keyError{fmt.Sprintf("kid %.40q not in the key set", kid)}
	}
	if !keyFits(key, alg) {
		return nil, &keyError{fmt.Sprintf("kid %.40q is not a key for %s", kid, alg)}
	}
	return key, nil
}
