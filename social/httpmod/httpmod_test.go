package httpmod

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fiveonit/engine/social"
)

// verdictOf runs m on msg and waits for its verdict (at most 5 s).
func verdictOf(t *testing.T, m *Moderator, msg social.Message) social.Verdict {
	t.Helper()
	got := make(chan social.Verdict, 2)
	m.Moderate(msg, func(v social.Verdict) { got <- v })
	select {
	case v := <-got:
		select {
		case <-got:
			t.Fatal("done called twice")
		case <-time.After(20 * time.Millisecond):
		}
		return v
	case <-time.After(5 * time.Second):
		t.Fatal("no verdict within 5 s")
	}
	return social.Verdict{}
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestModerator(t *testing.T) {
	var mu sync.Mutex
	var seen []request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req request
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		seen = append(seen, req)
		mu.Unlock()
		switch req.Text {
		case "hello":
			io.WriteString(w, `{"ok":true}`)
		case "edit me":
			io.WriteString(w, `{"ok":true,"text":"edited"}`)
		case "rude":
			io.WriteString(w, `{"ok":false,"reason":"be nice"}`)
		case "slow":
			time.Sleep(300 * time.Millisecond)
			io.WriteString(w, `{"ok":true}`)
		case "500":
			http.Error(w, "down", http.StatusInternalServerError)
		case "garbage":
			io.WriteString(w, `<html>`)
		case "no ok":
			io.WriteString(w, `{"text":"hi"}`)
		case "huge":
			io.WriteString(w, `{"ok":true,"text":"`+strings.Repeat("x", MaxResponse)+`"}`)
		}
	}))
	defer srv.Close()
	m := New(srv.URL, Options{Timeout: 100 * time.Millisecond, Log: quiet()})
	cases := []struct {
		text   string
		ok     bool
		edit   string
		reason string // a part of it
	}{
		{"hello", true, "", ""},
		{"edit me", true, "edited", ""},
		{"rude", false, "", "be nice"},
		{"slow", false, "", "moderation unavailable"}, // fails closed on the timeout
		{"500", false, "", "moderation unavailable"},
		{"garbage", false, "", "moderation unavailable"},
		{"no ok", false, "", "moderation unavailable"},
		{"huge", false, "", "moderation unavailable"},
	}
	for _, c := range cases {
		v := verdictOf(t, m, social.Message{Room: "r", Session: 3, Account: "acc", Name: "Ada", Text: c.text})
		if v.OK != c.ok || v.Text != c.edit || !strings.Contains(v.Reason, c.reason) {
			t.Errorf("%q: %+v, want ok %v text %q reason with %q", c.text, v, c.ok, c.edit, c.reason)
		}
	}
	mu.Lock()
	first := seen[0]
	mu.Unlock()
	if first != (request{Room: "r", Session: 3, Account: "acc", Name: "Ada", Text: "hello"}) {
		t.Fatalf("the service was sent %+v", first)
	}
}

// TestModeratorDown: a service that does not answer at all refuses too.
func TestModeratorDown(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	v := verdictOf(t, New(url, Options{Timeout: 200 * time.Millisecond, Log: quiet()}), social.Message{Text: "hello"})
	if v.OK || !strings.Contains(v.Reason, "unavailable") {
		t.Fatalf("%+v, want a refusal", v)
	}
}

// TestModeratorReturnsAtOnce: Moderate never waits for the service, and
// past MaxInFlight calls it refuses at once.
func TestModeratorReturnsAtOnce(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		io.WriteString(w, `{"ok":true}`)
	}))
	defer srv.Close()
	defer close(release)
	m := New(srv.URL, Options{Timeout: 5 * time.Second, Log: quiet()})
	m.slots = make(chan struct{}, 2) // a small bound for the test
	var mu sync.Mutex
	var verdicts []social.Verdict
	done := func(v social.Verdict) { mu.Lock(); verdicts = append(verdicts, v); mu.Unlock() }
	start := time.Now()
	for i := 0; i < 3; i++ {
		m.Moderate(social.Message{Text: "hello"}, done)
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Fatalf("Moderate took %s: it must not wait for the service", d)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(verdicts) != 1 || verdicts[0].OK || !strings.Contains(verdicts[0].Reason, "too many") {
		t.Fatalf("verdicts at once %+v, want the third refused: too many waiting", verdicts)
	}
}
