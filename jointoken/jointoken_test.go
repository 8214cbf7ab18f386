package jointoken

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var secret = []byte("0123456789abcdef-test-secret")

func TestSignVerify(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	c := Claims{Account: "acc-1", Name: "Ada", Party: "crew-2", Debug: true, Expires: now.Add(time.Hour).Unix()}
	tok, err := Sign(secret, c)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Verify(secret, tok, now)
	if err != nil || got != c {
		t.Fatalf("got %+v %v", got, err)
	}
	head, sig, _ := strings.Cut(tok, ".")
	forgedHead, _ := Sign([]byte("another-secret-of-16+"), Claims{Account: "acc-1", Debug: true, Expires: c.Expires})
	fh, _, _ := strings.Cut(forgedHead, ".")
	cases := []struct {
		name string
		tok  string
		now  time.Time
		want error
		sec  []byte
	}{
		{"expired", tok, now.Add(2 * time.Hour), ErrExpired, secret},
		{"other secret", tok, now, ErrSignature, []byte("xxxxxxxxxxxxxxxxxxxxxxxx")},
		{"claims swapped", fh + "." + sig, now, ErrSignature, secret},
		{"no dot", head, now, ErrMalformed, secret},
		{"bad base64 sig", head + ".***", now, ErrMalformed, secret},
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
}

func TestVerifyNeedsAccount(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	tok, _ := Sign(secret, Claims{Name: "x", Expires: now.Unix() + 10})
	if _, err := Verify(secret, tok, now); !errors.Is(err, ErrMalformed) {
		t.Fatalf("err %v", err)
	}
}

func FuzzVerify(f *testing.F) {
	tok, _ := Sign(secret, Claims{Account: "a", Expires: 1 << 40})
	f.Add(tok)
	f.Add("a.b")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Verify(secret, s, time.Unix(0, 0))
		if err == nil && c.Account == "" {
			t.Fatal("verified a token without an account")
		}
	})
}
