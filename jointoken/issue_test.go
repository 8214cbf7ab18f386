package jointoken

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestHandler(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	srv := httptest.NewServer(Handler(secret, func() time.Time { return now }))
	defer srv.Close()
	cases := []struct {
		name   string
		body   string
		status int
		want   Claims // when 200
		reason string // a part of the reason, when 400
	}{
		{"whole", `{"account":"acc-1","name":"Ada","party":"crew-7","debug":true,"ttl":60}`, 200,
			Claims{Account: "acc-1", Name: "Ada", Party: "crew-7", Debug: true, Expires: now.Unix() + 60}, ""},
		{"account alone", `{"account":"acc-2"}`, 200, Claims{Account: "acc-2", Expires: now.Add(DefaultTTL).Unix()}, ""},
		{"no account", `{"name":"Ada"}`, 400, Claims{}, "account is required"},
		{"account too long", `{"account":"` + strings.Repeat("a", MaxAccountLen+1) + `"}`, 400, Claims{}, "account"},
		{"party too long", `{"account":"a","party":"` + strings.Repeat("p", MaxPartyLen+1) + `"}`, 400, Claims{}, "party"},
		{"name too long", `{"account":"a","name":"` + strings.Repeat("n", MaxNameLen+1) + `"}`, 400, Claims{}, "name"},
		{"ttl too long", `{"account":"a","ttl":90000}`, 400, Claims{}, "ttl"},
		{"ttl negative", `{"account":"a","ttl":-1}`, 400, Claims{}, "ttl"},
		{"unknown field", `{"account":"a","admin":true}`, 400, Claims{}, "unknown field"},
		{"two values", `{"account":"a"}{"account":"b"}`, 400, Claims{}, "more than one"},
		{"not JSON", `account=a`, 400, Claims{}, "body"},
		{"too big", `{"account":"a","name":"` + strings.Repeat(" ", MaxIssueBody) + `"}`, 400, Claims{}, "over"},
		{"token too long", `{"account":"` + strings.Repeat(`\u0001`, MaxAccountLen) + `","name":"` + strings.Repeat(`\u0001`, MaxNameLen) +
			`","party":"` + strings.Repeat(`\u0001`, MaxPartyLen) + `"}`, 400, Claims{}, "shorten"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := http.Post(srv.URL, "application/json", strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if res.StatusCode != c.status {
				t.Fatalf("status %d, want %d", res.StatusCode, c.status)
			}
			if c.status != 200 {
				var b strings.Builder
				buf := make([]byte, 512)
				n, _ := res.Body.Read(buf)
				b.Write(buf[:n])
				if !strings.Contains(b.String(), c.reason) {
					t.Fatalf("reason %q, want it to say %q", b.String(), c.reason)
				}
				return
			}
			var ir IssueResponse
			if err := json.NewDecoder(res.Body).Decode(&ir); err != nil {
				t.Fatal(err)
			}
			got, err := Verify(secret, ir.Token, now)
			if err != nil || got != c.want || ir.Expires != c.want.Expires {
				t.Fatalf("token %+v (%v), expires %d; want %+v", got, err, ir.Expires, c.want)
			}
		})
	}
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET: %d, want 405", res.StatusCode)
	}
}

// TestNumericParty: a token that carries its party as a number (as some
// platforms send it) reads as the number's digits; 0 is no party.
func TestNumericParty(t *testing.T) {
	for _, c := range []struct{ json, want string }{
		{`{"sub":"a","party":3,"exp":9}`, "3"},
		{`{"sub":"a","party":0,"exp":9}`, ""},
		{`{"sub":"a","party":"k","exp":9}`, "k"},
		{`{"sub":"a","party":null,"exp":9}`, ""},
		{`{"sub":"a","exp":9}`, ""},
	} {
		var tc tokenClaims
		err := json.Unmarshal([]byte(c.json), &tc)
		cl, cerr := tc.claims()
		if err != nil || cerr != nil || cl.Party != c.want || cl.Account != "a" || cl.Expires != 9 {
			t.Errorf("%s: %+v %v %v, want party %q", c.json, cl, err, cerr, c.want)
		}
	}
	for _, bad := range []string{`{"sub":"a","party":-1}`, `{"sub":"a","party":1.5}`, `{"sub":"a","party":{}}`} {
		var tc tokenClaims
		if err := json.Unmarshal([]byte(bad), &tc); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// FuzzReadIssue: whatever a request's body holds, readIssue returns an
// error or a request within every bound.
func FuzzReadIssue(f *testing.F) {
	f.Add([]byte(`{"account":"acc-1","name":"Ada","party":"crew-7","debug":true,"ttl":60}`))
	f.Add([]byte(`{"account":"a","ttl":-5}`))
	f.Add([]byte(`{"account":"\u00e9","name":"\xff"}`))
	f.Add([]byte(`{"account":"<<<<","name":"\u0001\u0001\u0001","party":"&&&&"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := readIssue(strings.NewReader(string(body)))
		if err != nil {
			return
		}
		if req.Account == "" || len(req.Account) > MaxAccountLen || len(req.Name) > MaxNameLen || len(req.Party) > MaxPartyLen ||
			req.TTL < 0 || time.Duration(req.TTL)*time.Second > MaxTTL {
			t.Fatalf("out of bounds: %+v", req)
		}
		now := time.Unix(1_800_000_000, 0)
		ir, err := issue(secret, req, now)
		if err != nil {
			if !strings.Contains(err.Error(), "over") {
				t.Fatalf("issue %+v: %v", req, err)
			}
			return
		}
		if c, err := Verify(secret, ir.Token, now); err != nil || c.Account != req.Account || c.Name != req.Name || c.Party != req.Party {
			t.Fatalf("the token issued for %+v verifies as %+v, %v", req, c, err)
		}
	})
}
