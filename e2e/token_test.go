//go:build unix

package e2e

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/fiveonit/engine/jointoken"
	"github.com/fiveonit/engine/transport/websocket"
)

// TestTokenPublicKeys runs the server as a process given the platform's
// public keys alone (-jwt-algs EdDSA,RS256, -jwt-keys a JWKS URL, no
// -secret): it admits the platform's Ed25519 and RSA tokens, and refuses a
// token signed with another key, an HS256 token, alg none and a key id
// not in the set, each with its reason; POST /tokens mints nothing. (A
// JWKS URL that is down is jointoken's TestKeySetURL: the last keys are
// kept, and logged; here a read waits jointoken.MinRefresh.)
func TestTokenPublicKeys(t *testing.T) {
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	_, otherKey, _ := ed25519.GenerateKey(rand.Reader)
	b64 := base64.RawURLEncoding
	jwks := fmt.Sprintf(`{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"ed-1","x":%q},{"kty":"RSA","kid":"rsa-1","n":%q,"e":%q}]}`,
		b64.EncodeToString(edKey.Public().(ed25519.PublicKey)), b64.EncodeToString(rsaKey.N.Bytes()), b64.EncodeToString(big.NewInt(int64(rsaKey.E)).Bytes()))
	platform := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(jwks))
	}))
	defer platform.Close()

	p := startBinary(t, "-level", "test-flat", "-store", "none", "-jwt-algs", "EdDSA,RS256", "-jwt-keys", platform.URL)
	sign := func(m jwt.SigningMethod, key any, kid, account string) string {
		tok := jwt.NewWithClaims(m, jwt.MapClaims{"sub": account, "name": account, "exp": time.Now().Add(time.Hour).Unix()})
		tok.Header["kid"] = kid
		s, err := tok.SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	join := func(tok string) string { // "" for joined, else the close reason
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ws, err := websocket.Dial(ctx, "ws://"+p.addr+"/rooms/default?token="+tok)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		_, _, err = ws.Read(ctx)
		if ce := (*websocket.CloseError)(nil); errors.As(err, &ce) {
			return ce.Reason
		}
		if err != nil {
			t.Fatal(err)
		}
		return ""
	}
	hs, _ := jointoken.Sign([]byte("a-secret-the-server-does-not-hold"), jointoken.Claims{Account: "x", Expires: time.Now().Add(time.Hour).Unix()})
	none := b64.EncodeToString([]byte(`{"alg":"none"}`)) + "." + b64.EncodeToString([]byte(fmt.Sprintf(`{"sub":"x","exp":%d}`, time.Now().Add(time.Hour).Unix()))) + "."
	for _, c := range []struct {
		name, tok, want string
	}{
		{"the platform's Ed25519", sign(jwt.SigningMethodEdDSA, edKey, "ed-1", "plat-1"), ""},
		{"the platform's RSA", sign(jwt.SigningMethodRS256, rsaKey, "rsa-1", "plat-2"), ""},
		{"another Ed25519 key", sign(jwt.SigningMethodEdDSA, otherKey, "ed-1", "plat-3"), "bad signature"},
		{"HS256", hs, `alg "HS256"; this server takes EdDSA, RS256`},
		{"alg none", none, `alg "none"`},
		{"a kid not in the set", sign(jwt.SigningMethodEdDSA, edKey, "ed-9", "plat-4"), `kid "ed-9" not in the key set`},
	} {
		if got := join(c.tok); (c.want == "" && got != "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	res, err := http.Post("http://"+p.admin(t)+"/tokens", "application/json", strings.NewReader(`{"account":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("POST /tokens on a server of public keys: %s, want 404", res.Status)
	}
	p.stop(syscall.SIGTERM)
}

// admin is the process's admin listener's address, from its serving
// record.
func (p *proc) admin(t *testing.T) string {
	t.Helper()
	recs := p.logs.records(t, "serving")
	if len(recs) == 0 {
		t.Fatal("no serving record")
	}
	a, _ := recs[0]["admin"].(string)
	return a
}
