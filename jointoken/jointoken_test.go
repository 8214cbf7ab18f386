package jointoken

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

var secret = []byte("0123456789abcdef-test-secret")

func TestSignVerify(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	c := Claims{Account: "acc-1", Name: "Ada", Party: "crew-2", Debug: true, Run: "heist-7", Expires: now.Add(time.Hour).Unix()}
	tok, err := Sign(secret, c)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Verify(secret, tok, now)
	if err != nil || got != c {
		t.Fatalf("got %+v %v", got, err)
	}
	// The token is a JWT: its header says HS256, its claims are the
	// registered and the package's names.
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("%d parts, want 3", len(parts))
	}
	var head map[string]any
	var body map[string]any
	hb, _ := base64.RawURLEncoding.DecodeString(parts[0])
	bb, _ := base64.RawURLEncoding.DecodeString(parts[1])
	if json.Unmarshal(hb, &head) != nil || json.Unmarshal(bb, &body) != nil || head["alg"] != "HS256" || head["typ"] != "JWT" {
		t.Fatalf("header %s, claims %s", hb, bb)
	}
	want := map[string]any{"sub": "acc-1", "name": "Ada", "party": "crew-2", "debug": true, "run": "heist-7", "exp": float64(c.Expires)}
	for k, v := range want {
		if body[k] != v {
			t.Errorf("claim %s = %v, want %v (claims %s)", k, body[k], v, bb)
		}
	}
	forged, _ := Sign([]byte("another-secret-of-16+"), Claims{Account: "acc-1", Debug: true, Expires: c.Expires})
	fparts := strings.Split(forged, ".")
	cases := []struct {
		name string
		tok  string
		now  time.Time
		want error
		sec  []byte
	}{
		{"expired", tok, now.Add(2 * time.Hour), ErrExpired, secret},
		{"expired past the leeway", tok, now.Add(time.Hour + Leeway), ErrExpired, secret},
		{"other secret", tok, now, ErrSignature, []byte("xxxxxxxxxxxxxxxxxxxxxxxx")},
		{"claims swapped", parts[0] + "." + fparts[1] + "." + parts[2], now, ErrSignature, secret},
		{"no dots", parts[0], now, ErrMalformed, secret},
		{"four parts", tok + ".x", now, ErrMalformed, secret},
		{"bad base64 sig", parts[0] + "." + parts[1] + ".***", now, ErrMalformed, secret},
		{"too long", strings.Repeat("a", MaxLen+1), now, ErrMalformed, secret},
		{"empty", "", now, ErrMalformed, secret},
		{"short secret", tok, now, ErrSecret, []byte("short")},
	}
	for _, k := range cases {
		t.Run(k.name, func(t *testing.T) {
			if _, err := Verify(k.sec, k.tok, k.now); !errors.Is(err, k.want) {
				t.Fatalf("err %v, want %v", err, k.want)
			}
		})
	}
	// Within the leeway the token still holds: the platform's clock and
	// the server's may differ.
	if _, err := Verify(secret, tok, now.Add(time.Hour+Leeway/2)); err != nil {
		t.Fatalf("within the leeway: %v", err)
	}
}

// TestOldFormatRefused: a token of the format before the JWTs, signed with
// the right secret, is refused with a reason that says what to send.
func TestOldFormatRefused(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	body, _ := json.Marshal(map[string]any{"acc": "acc-1", "name": "Ada", "exp": now.Unix() + 60})
	head := base64.RawURLEncoding.EncodeToString(body)
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(head))
	old := head + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
	_, err := Verify(secret, old, now)
	if !errors.Is(err, ErrOldFormat) || !strings.Contains(err.Error(), "send a JWT") || !strings.Contains(err.Error(), "POST /tokens") {
		t.Fatalf("err %v, want ErrOldFormat saying what to send", err)
	}
}

func TestVerifyNeedsAccount(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	tok, _ := Sign(secret, Claims{Name: "x", Expires: now.Unix() + 10})
	if _, err := Verify(secret, tok, now); !errors.Is(err, ErrMalformed) {
		t.Fatalf("err %v", err)
	}
}

// TestVerifyNeedsExpiry: a token without exp never expires, so it is
// refused.
func TestVerifyNeedsExpiry(t *testing.T) {
	tok := hs256(t, `{"alg":"HS256","typ":"JWT"}`, `{"sub":"a"}`, secret)
	if _, err := Verify(secret, tok, time.Unix(1_800_000_000, 0)); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "exp") {
		t.Fatalf("err %v, want malformed: no exp", err)
	}
}

// hs256 signs header and claims (JSON) with key, as any JWT library
// would: for tokens the package would not make.
func hs256(t *testing.T, header, claims string, key []byte) string {
	t.Helper()
	s := base64.RawURLEncoding.EncodeToString([]byte(header)) + "." + base64.RawURLEncoding.EncodeToString([]byte(claims))
	m := hmac.New(sha256.New, key)
	m.Write([]byte(s))
	return s + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func FuzzVerify(f *testing.F) {
	tok, _ := Sign(secret, Claims{Account: "a", Expires: 1 << 40})
	f.Add(tok)
	f.Add("a.b")
	f.Add("a.b.c")
	f.Add("eyJhbGciOiJub25lIn0.eyJzdWIiOiJhIiwiZXhwIjo5OTk5OTk5OTk5fQ.")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Verify(secret, s, time.Unix(0, 0))
		if err == nil && c.Account == "" {
			t.Fatal("verified a token without an account")
		}
		if err == nil && s != tok {
			// Only the token signed with the secret holds (HMAC:
			// nothing else of its claims can).
			if _, err2 := Verify([]byte("another-secret-of-16+"), s, time.Unix(0, 0)); err2 == nil {
				t.Fatal("a token held under two secrets")
			}
		}
	})
}
