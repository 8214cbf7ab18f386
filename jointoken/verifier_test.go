package jointoken

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// platform is a platform's signing keys: an Ed25519 and an RSA key, each
// with its key id, and their JWKS.
type platform struct {
	ed     ed25519.PrivateKey
	rsa    *rsa.PrivateKey
	edKid  string
	rsaKid string
}

func newPlatform(t *testing.T, edKid, rsaKid string) *platform {
	t.Helper()
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return &platform{ed: ed, rsa: rk, edKid: edKid, rsaKid: rsaKid}
}

// jwks is the platform's public keys as a JWKS document.
func (p *platform) jwks() []byte {
	b64 := base64.RawURLEncoding
	doc := map[string]any{"keys": []map[string]string{
		{"kty": "OKP", "crv": "Ed25519", "kid": p.edKid, "use": "sig", "alg": "EdDSA", "x": b64.EncodeToString(p.ed.Public().(ed25519.PublicKey))},
		{"kty": "RSA", "kid": p.rsaKid, "alg": "RS256", "n": b64.EncodeToString(p.rsa.N.Bytes()), "e": b64.EncodeToString(big.NewInt(int64(p.rsa.E)).Bytes())},
	}}
	b, _ := json.Marshal(doc)
	return b
}

// sign makes the platform's token of c with alg, its header's kid kid.
func (p *platform) sign(t *testing.T, alg, kid string, c Claims) string {
	t.Helper()
	var m jwt.SigningMethod
	var key any
	switch alg {
	case EdDSA:
		m, key = jwt.SigningMethodEdDSA, p.ed
	case RS256:
		m, key = jwt.SigningMethodRS256, p.rsa
	}
	tok := jwt.NewWithClaims(m, c.token())
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestVerifierPublicKeys(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	c := Claims{Account: "acc-9", Name: "Bo", Party: "p-1", Debug: true, Expires: now.Add(time.Hour).Unix()}
	plat := newPlatform(t, "ed-1", "rsa-1")
	other := newPlatform(t, "ed-1", "rsa-1") // the same key ids, other keys
	keys, err := ParseJWKS(plat.jwks())
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewVerifier(VerifierConfig{Algorithms: []string{EdDSA, RS256}, Keys: NewKeySet(keys)})
	if err != nil {
		t.Fatal(err)
	}
	if v.CanSign() {
		t.Fatal("a verifier of public keys alone can sign")
	}
	for _, alg := range []string{EdDSA, RS256} {
		kid := plat.edKid
		if alg == RS256 {
			kid = plat.rsaKid
		}
		if got, err := v.Verify(plat.sign(t, alg, kid, c), now); err != nil || got != c {
			t.Fatalf("%s: got %+v %v, want %+v", alg, got, err, c)
		}
	}
	hs, _ := Sign(secret, c)
	none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." +
		base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf(`{"sub":"acc-9","debug":true,"exp":%d}`, c.Expires))) + "."
	// An HS256 token signed with the RSA key's public key as its secret:
	// the algorithm confusion a verifier that took alg from the token
	// would fall for.
	pubBytes := plat.rsa.N.Bytes()
	confused := hs256(t, `{"alg":"HS256","typ":"JWT","kid":"rsa-1"}`, fmt.Sprintf(`{"sub":"acc-9","exp":%d}`, c.Expires), pubBytes)
	cases := []struct {
		name   string
		tok    string
		want   error
		reason string
	}{
		{"other platform's Ed25519 key", other.sign(t, EdDSA, "ed-1", c), ErrSignature, "EdDSA"},
		{"other platform's RSA key", other.sign(t, RS256, "rsa-1", c), ErrSignature, "RS256"},
		{"alg none", none, ErrAlgorithm, `alg "none"`},
		{"HS256 not configured", hs, ErrAlgorithm, "takes EdDSA, RS256"},
		{"HS256 with the public key as secret", confused, ErrAlgorithm, "HS256"},
		{"kid not in the set", plat.sign(t, EdDSA, "ed-2", c), ErrKeyID, `kid "ed-2" not in the key set`},
		{"kid of the other algorithm's key", plat.sign(t, EdDSA, "rsa-1", c), ErrKeyID, "not a key for EdDSA"},
		{"expired", plat.sign(t, EdDSA, "ed-1", Claims{Account: "a", Expires: now.Add(-time.Hour).Unix()}), ErrExpired, "expired"},
	}
	for _, k := range cases {
		t.Run(k.name, func(t *testing.T) {
			_, err := v.Verify(k.tok, now)
			if !errors.Is(err, k.want) || !strings.Contains(err.Error(), k.reason) {
				t.Fatalf("err %v, want %v saying %q", err, k.want, k.reason)
			}
		})
	}
	// A token without a kid takes the set's one key of its algorithm.
	if _, err := v.Verify(plat.sign(t, EdDSA, "", c), now); err != nil {
		t.Fatalf("no kid, one Ed25519 key: %v", err)
	}
	// Configured for EdDSA alone, the RS256 token is refused, whatever
	// the keys hold.
	ed, _ := NewVerifier(VerifierConfig{Algorithms: []string{EdDSA}, Keys: NewKeySet(keys)})
	if _, err := ed.Verify(plat.sign(t, RS256, "rsa-1", c), now); !errors.Is(err, ErrAlgorithm) {
		t.Fatalf("RS256 to an EdDSA verifier: %v, want ErrAlgorithm", err)
	}
}

func TestNewVerifierRefuses(t *testing.T) {
	keys := NewKeySet(map[string]crypto.PublicKey{"k": ed25519.PublicKey(make([]byte, 32))})
	for _, c := range []struct {
		name string
		c    VerifierConfig
		want string
	}{
		{"none", VerifierConfig{}, "no algorithm"},
		{"unknown", VerifierConfig{Algorithms: []string{"HS512"}, Secret: secret}, `"HS512"`},
		{"alg none", VerifierConfig{Algorithms: []string{"none"}, Secret: secret}, `"none"`},
		{"HS256 without a secret", VerifierConfig{Algorithms: []string{HS256}}, "secret"},
		{"EdDSA without keys", VerifierConfig{Algorithms: []string{EdDSA}}, "public keys"},
		{"keys unused", VerifierConfig{Algorithms: []string{HS256}, Secret: secret, Keys: keys}, "neither"},
		{"secret unused", VerifierConfig{Algorithms: []string{EdDSA}, Secret: secret, Keys: keys}, "HS256 is not accepted"},
	} {
		if _, err := NewVerifier(c.c); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

func TestParseJWKS(t *testing.T) {
	plat := newPlatform(t, "ed", "rsa")
	b64 := base64.RawURLEncoding
	x := b64.EncodeToString(plat.ed.Public().(ed25519.PublicKey))
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	for _, c := range []struct {
		name, doc string
		keys      int
		err       string
	}{
		{"both", string(plat.jwks()), 2, ""},
		{"EC skipped", `{"keys":[{"kty":"EC","crv":"P-256","kid":"e","x":"AA","y":"AA"},{"kty":"OKP","crv":"Ed25519","kid":"a","x":"` + x + `"}]}`, 1, ""},
		{"encryption key skipped", `{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"enc","use":"enc","x":"` + x + `"},{"kty":"OKP","crv":"Ed25519","kid":"a","x":"` + x + `"}]}`, 1, ""},
		{"RS512 skipped", `{"keys":[{"kty":"RSA","alg":"RS512","kid":"r","n":"AA","e":"AQAB"},{"kty":"OKP","crv":"Ed25519","kid":"a","x":"` + x + `"}]}`, 1, ""},
		{"private key", `{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"a","x":"` + x + `","d":"` + x + `"}]}`, 0, "private key"},
		{"two of one kid", `{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"a","x":"` + x + `"},{"kty":"OKP","crv":"Ed25519","kid":"a","x":"` + x + `"}]}`, 0, `two keys of kid "a"`},
		{"short x", `{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"a","x":"AAAA"}]}`, 0, "x:"},
		{"small RSA", `{"keys":[{"kty":"RSA","kid":"r","n":"` + b64.EncodeToString(small.N.Bytes()) + `","e":"AQAB"}]}`, 0, "1024-bit"},
		{"even exponent", `{"keys":[{"kty":"RSA","kid":"r","n":"` + b64.EncodeToString(plat.rsa.N.Bytes()) + `","e":"Ag"}]}`, 0, "exponent"},
		{"nothing usable", `{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}`, 0, "no Ed25519 or RSA"},
		{"not JSON", `keys`, 0, "not a JWKS"},
	} {
		keys, err := ParseJWKS([]byte(c.doc))
		switch {
		case c.err == "" && (err != nil || len(keys) != c.keys):
			t.Errorf("%s: %d keys, %v; want %d", c.name, len(keys), err, c.keys)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, ErrJWKS)):
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.err)
		}
	}
}

// TestKeySetURL: a key set read from a URL picks up a new key id at once
// (a platform's key rotation); when the URL is down it keeps the last keys
// and logs a warning, and the tokens of those keys keep joining.
func TestKeySetURL(t *testing.T) {
	now := time.Now()
	c := Claims{Account: "acc-1", Expires: now.Add(time.Hour).Unix()}
	first, rotated := newPlatform(t, "ed-1", "rsa-1"), newPlatform(t, "ed-2", "rsa-2")
	var doc atomic.Value
	doc.Store(first.jwks())
	var down atomic.Bool
	var reads atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reads.Add(1)
		if down.Load() {
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
			return
		}
		w.Write(doc.Load().([]byte))
	}))
	defer srv.Close()
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	ks, err := OpenKeySet(context.Background(), KeySetConfig{Source: srv.URL, Log: log, Refresh: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer ks.Close()
	v, err := NewVerifier(VerifierConfig{Algorithms: []string{EdDSA}, Keys: ks})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(first.sign(t, EdDSA, "ed-1", c), now); err != nil {
		t.Fatal(err)
	}
	// The platform rotates: the new key id is read at once (the first
	// read was just now, so the lookup waits out MinRefresh: the test
	// moves the last read back instead).
	doc.Store(append(rotated.jwks()[:0:0], rotated.jwks()...))
	ks.readMu.Lock()
	ks.lastRead = time.Now().Add(-MinRefresh)
	ks.readMu.Unlock()
	if _, err := v.Verify(rotated.sign(t, EdDSA, "ed-2", c), now); err != nil {
		t.Fatalf("the rotated key: %v", err)
	}
	// A made-up key id within MinRefresh reads nothing.
	n := reads.Load()
	if _, err := v.Verify(rotated.sign(t, EdDSA, "ed-9", c), now); !errors.Is(err, ErrKeyID) || reads.Load() != n {
		t.Fatalf("unknown kid: %v, %d reads (want ErrKeyID and none)", err, reads.Load()-n)
	}
	// Down: the last keys stay, a warning is logged.
	down.Store(true)
	if err := ks.Refresh(context.Background()); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("refresh while down: %v", err)
	}
	if !strings.Contains(logs.String(), "keeping the last keys") || !strings.Contains(logs.String(), "503") {
		t.Fatalf("log %q, want the warning", logs.String())
	}
	if _, err := v.Verify(rotated.sign(t, EdDSA, "ed-2", c), now); err != nil {
		t.Fatalf("while the URL is down: %v", err)
	}
	// A first read that fails is the open's error.
	if _, err := OpenKeySet(context.Background(), KeySetConfig{Source: srv.URL}); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("open while down: %v", err)
	}
}

// TestKeySetRefreshes: the background refresh reads a file again.
func TestKeySetRefreshes(t *testing.T) {
	a, b := newPlatform(t, "a", "ra"), newPlatform(t, "b", "rb")
	path := filepath.Join(t.TempDir(), "jwks.json")
	os.WriteFile(path, a.jwks(), 0o600)
	ks, err := OpenKeySet(context.Background(), KeySetConfig{Source: path, Refresh: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer ks.Close()
	os.WriteFile(path, b.jwks(), 0o600)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := ks.find("b", EdDSA); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the new file's keys never came")
		}
	}
	if _, err := ks.find("a", EdDSA); !errors.Is(err, ErrKeyID) {
		t.Fatalf("the old key: %v, want gone", err)
	}
	if _, err := OpenKeySet(context.Background(), KeySetConfig{Source: filepath.Join(t.TempDir(), "missing.json")}); err == nil {
		t.Fatal("a missing file opened")
	}
}

// nodeSigner is a Node program that makes a platform's keys with Node's
// crypto, signs a JWT with each (EdDSA and RS256) and prints the JWKS and
// the tokens: tokens made outside Go.
const nodeSigner = `
const crypto = require("crypto");
const b64 = (b) => Buffer.from(b).toString("base64url");
const claims = JSON.parse(process.argv[1]);
const out = { keys: [], tokens: {} };
for (const [alg, type, opts, hash] of [["EdDSA", "ed25519", {}, null], ["RS256", "rsa", { modulusLength: 2048 }, "sha256"]]) {
  const { publicKey, privateKey } = crypto.generateKeyPairSync(type, opts);
  const kid = "node-" + alg;
  out.keys.push({ ...publicKey.export({ format: "jwk" }), kid, alg, use: "sig" });
  const input = b64(JSON.stringify({ alg, typ: "JWT", kid })) + "." + b64(JSON.stringify(claims));
  out.tokens[alg] = input + "." + b64(crypto.sign(hash, Buffer.from(input), privateKey));
}
console.log(JSON.stringify(out));
`

// TestNodeSignedToken: tokens a platform made with Node's crypto, not Go,
// verify with the platform's public keys (its JWKS, as Node exports
// them); another platform's do not.
func TestNodeSignedToken(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the test has Node's crypto sign a token made outside Go")
	}
	now := time.Now()
	claims := fmt.Sprintf(`{"sub":"plat-42","name":"Zoë","party":"crew-1","debug":false,"run":"heist-1","exp":%d}`, now.Add(time.Hour).Unix())
	run := func() (jwks []byte, tokens map[string]string) {
		t.Helper()
		out, err := exec.Command(node, "-e", nodeSigner, claims).Output()
		if err != nil {
			t.Fatalf("node: %v", err)
		}
		var res struct {
			Keys   json.RawMessage   `json:"keys"`
			Tokens map[string]string `json:"tokens"`
		}
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("node's output %q: %v", out, err)
		}
		return []byte(`{"keys":` + string(res.Keys) + `}`), res.Tokens
	}
	jwks, tokens := run()
	_, others := run()
	path := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(path, jwks, 0o600); err != nil {
		t.Fatal(err)
	}
	ks, err := OpenKeySet(context.Background(), KeySetConfig{Source: path})
	if err != nil {
		t.Fatalf("Node's JWKS: %v", err)
	}
	defer ks.Close()
	v, err := NewVerifier(VerifierConfig{Algorithms: []string{EdDSA, RS256}, Keys: ks})
	if err != nil {
		t.Fatal(err)
	}
	want := Claims{Account: "plat-42", Name: "Zoë", Party: "crew-1", Run: "heist-1", Expires: now.Add(time.Hour).Unix()}
	for _, alg := range []string{EdDSA, RS256} {
		if got, err := v.Verify(tokens[alg], now); err != nil || got != want {
			t.Errorf("Node's %s token: %+v %v, want %+v", alg, got, err, want)
		}
		if _, err := v.Verify(others[alg], now); !errors.Is(err, ErrSignature) {
			t.Errorf("another platform's %s token: %v, want ErrSignature", alg, err)
		}
	}
}

// FuzzParseJWKS: whatever a JWKS source serves, ParseJWKS returns an error
// or public keys this package verifies with: Ed25519 keys of 32 bytes, RSA
// keys of MinRSABits or more with an odd exponent.
func FuzzParseJWKS(f *testing.F) {
	f.Add([]byte(`{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"a","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}`))
	f.Add([]byte(`{"keys":[{"kty":"RSA","kid":"r","n":"AQAB","e":"AQAB"}]}`))
	f.Add([]byte(`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"AA","d":"AA"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		keys, err := ParseJWKS(b)
		if err != nil {
			return
		}
		if len(keys) == 0 {
			t.Fatal("no error and no keys")
		}
		for kid, k := range keys {
			switch k := k.(type) {
			case ed25519.PublicKey:
				if len(k) != ed25519.PublicKeySize {
					t.Fatalf("kid %q: %d-byte Ed25519 key", kid, len(k))
				}
			case *rsa.PublicKey:
				if k.N.BitLen() < MinRSABits || k.E < 3 || k.E%2 == 0 {
					t.Fatalf("kid %q: RSA key of %d bits, exponent %d", kid, k.N.BitLen(), k.E)
				}
			default:
				t.Fatalf("kid %q: a %T", kid, k)
			}
		}
	})
}
