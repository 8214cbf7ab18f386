package serve

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/fiveonit/engine/transport/websocket"
)

// writeJWKS writes pub's JWKS (kid k1) to a file and returns its path.
func writeJWKS(t *testing.T, pub ed25519.PublicKey) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "jwks.json")
	doc := fmt.Sprintf(`{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"k1","x":%q}]}`, base64.RawURLEncoding.EncodeToString(pub))
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// edToken is a platform's EdDSA token for account, signed with key.
func edToken(t *testing.T, key ed25519.PrivateKey, account string) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.MapClaims{"sub": account, "name": account, "exp": time.Now().Add(time.Hour).Unix()})
	tok.Header["kid"] = "k1"
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPublicKeysOnly: a server given the platform's public keys alone
// (-jwt-algs EdDSA, -jwt-keys) admits the platform's token, refuses one
// signed with another key, mints none (POST /tokens: 404), and refuses to
// start with a secret it would not use.
func TestPublicKeysOnly(t *testing.T) {
	pub, key, _ := ed25519.GenerateKey(rand.Reader)
	_, otherKey, _ := ed25519.GenerateKey(rand.Reader)
	cfg := testConfig()
	cfg.Secret, cfg.JWTAlgs, cfg.JWTKeys = "", "EdDSA", writeJWKS(t, pub)
	ctx, cancel := context.WithCancel(context.Background())
	addr, admin, errc := startRun(t, ctx, cfg)
	defer stopRun(t, cancel, errc, cfg.Drain)

	join := func(tok string) (string, error) {
		conn, err := websocket.Dial(ctx, "ws://"+addr+"/rooms/default?token="+tok)
		if err != nil {
			return "", err
		}
		defer conn.Close()
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		frame, _, err := conn.Read(rctx)
		return string(frame), err
	}
	if frame, err := join(edToken(t, key, "plat-1")); err != nil || !strings.Contains(frame, `"welcome"`) {
		t.Fatalf("the platform's token: %.80q %v, want the welcome", frame, err)
	}
	_, err := join(edToken(t, otherKey, "plat-1"))
	if ce := (*websocket.CloseError)(nil); !errors.As(err, &ce) || !strings.Contains(ce.Reason, "bad signature") {
		t.Fatalf("a token of another key: %v, want refused: bad signature", err)
	}
	res, err := http.Post("http://"+admin+"/tokens", "application/json", strings.NewReader(`{"account":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "mints no join tokens") {
		t.Fatalf("POST /tokens: %s %q, want 404 with the reason", res.Status, body)
	}

	for _, c := range []struct {
		name string
		set  func(*Config)
		want string
	}{
		{"a secret unused", func(c *Config) { c.Secret = "a-secret-of-16-bytes-or-more" }, "does not take HS256"},
		{"no keys", func(c *Config) { c.JWTKeys = "" }, "public keys"},
		{"keys unread", func(c *Config) { c.JWTKeys = filepath.Join(t.TempDir(), "none.json") }, "-jwt-keys"},
		{"an unknown algorithm", func(c *Config) { c.JWTAlgs = "EdDSA,HS512" }, `"HS512"`},
	} {
		bad := cfg
		bad.Addr, bad.AdminAddr = "127.0.0.1:0", "127.0.0.1:0"
		c.set(&bad)
		s, err := Start(context.Background(), bad)
		if err == nil {
			s.Shutdown()
			t.Errorf("%s: started", c.name)
		} else if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}
