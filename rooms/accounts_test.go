package rooms

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fiveonit/engine/jointoken"
	"github.com/fiveonit/engine/store"
	"github.com/fiveonit/engine/store/storetest"
	"github.com/fiveonit/engine/textframe"
	"github.com/fiveonit/engine/transport/websocket"
)

// newAccountsHTTP is newHTTP with an account store: st played by an
// Accounts whose claims wait at most claimTimeout. It returns the refusals
// told, as "transport reason", and a watch on every room.
func newAccountsHTTP(t *testing.T, st store.Store, claimTimeout time.Duration) (*Manager, string, func() []string, *roomWatch) {
	t.Helper()
	acc := store.NewAccounts(st, store.AccountsConfig{Holder: "rooms-test", ClaimTimeout: claimTimeout, WriteEvery: 10 * time.Millisecond})
	watch := &roomWatch{}
	m, err := NewManager(Config{DefaultLevel: "test-flat", Grace: 200 * time.Millisecond, Accounts: acc,
		Observe: func(*Room) RoomObserver { return watch }})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var refused []string
	srv := httptest.NewServer(m.Handler(HTTPConfig{Secret: secret, Refused: func(tr, reason string) {
		mu.Lock()
		refused = append(refused, tr+" "+reason)
		mu.Unlock()
	}}))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m.Shutdown(ctx, "test over")
		srv.Close()
		acc.Close(ctx)
	})
	return m, "ws" + strings.TrimPrefix(srv.URL, "http"), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), refused...)
	}, watch
}

func token(t *testing.T, account string) string {
	t.Helper()
	tok, err := jointoken.Sign(secret, jointoken.Claims{Account: account, Name: account, Debug: true, Expires: time.Now().Add(time.Hour).Unix()})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// firstText reads conn up to its first text frame, or returns the close
// reason ("" and the frame when it joined).
func firstText(t *testing.T, conn *websocket.ClientConn) (frame []byte, reason string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		f, text, err := conn.Read(ctx)
		var ce *websocket.CloseError
		switch {
		case errors.As(err, &ce):
			return nil, ce.Reason
		case err != nil:
			t.Fatalf("read: %v", err)
		case text:
			return f, ""
		}
	}
}

func dialRoom(t *testing.T, url string) *websocket.ClientConn {
	t.Helper()
	conn, err := websocket.Dial(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestAccountOneRoom: an account plays in one room at a time. A second
// join of it, to another room, is refused with the room it plays in; a
// spectator's join with its token is not; once it left, it joins the other
// room with the Cash it had.
func TestAccountOneRoom(t *testing.T) {
	mem := storetest.NewMemory()
	_, url, refused, rooms := newAccountsHTTP(t, mem, time.Second)
	tok := token(t, "alice")
	first := dialRoom(t, url+"/rooms/default?token="+tok)
	if _, reason := firstText(t, first); reason != "" {
		t.Fatalf("the first join: closed with %q", reason)
	}
	if err := first.Send(context.Background(), []byte(`{"type":"debug","cmd":"cash","value":"4242","id":1}`), true); err != nil {
		t.Fatal(err)
	}
	for { // the reply: the room has applied it
		f, reason := firstText(t, first)
		if reason != "" {
			t.Fatalf("closed: %q", reason)
		}
		if textframe.Type(f) == "reply" {
			break
		}
	}
	second := dialRoom(t, url+"/rooms/other?level=test-flat&token="+tok)
	if _, reason := firstText(t, second); !strings.Contains(reason, "already playing in room default") {
		t.Errorf("a second join of the account: closed with %q, want it refused naming room default", reason)
	}
	watch := dialRoom(t, url+"/rooms/other?level=test-flat&spectate=1&token="+tok)
	if _, reason := firstText(t, watch); reason != "" {
		t.Errorf("a spectator with the account's token: closed with %q, want it in", reason)
	}
	first.Close()
	// The room lets the account go (Held.Leave) as it takes the player
	// out, at the tick after the server saw the connection close.
	if !rooms.until("default", 5*time.Second, func(r *Room) bool { return r.Server().Players() == 0 }) {
		t.Fatal("the first room did not let the player go")
	}
	c := dialRoom(t, url+"/rooms/other?level=test-flat&token="+tok)
	var status textframe.StatusFrame
	for status.Type == "" {
		f, reason := firstText(t, c)
		if reason != "" {
			t.Fatalf("the account did not join the other room once it left the first: closed with %q", reason)
		}
		if textframe.Type(f) == "status" {
			json.Unmarshal(f, &status)
		}
	}
	if status.Cash != 4242 {
		got, _ := mem.Peek("alice")
		t.Errorf("cash %d in the other room, want the 4242 it left with (store: %+v)", status.Cash, got)
	}
	if got := refused(); len(got) < 1 || got[0] != "websocket account" {
		t.Errorf("refusals %q, want websocket account first", got)
	}
}

// TestAccountStoreSlow: with the store hung, a join with an account is
// refused with the reason after the claim timeout, while the room ticks
// on and takes players without one; a store down refuses at once.
func TestAccountStoreSlow(t *testing.T) {
	f := storetest.NewFaulty(storetest.NewMemory())
	m, url, refused, _ := newAccountsHTTP(t, f, 300*time.Millisecond)
	f.SetHung(true)
	defer f.SetHung(false)
	room := m.Rooms()[0]
	before := room.Info().Ticks
	start := time.Now()
	done := make(chan string, 1)
	go func() {
		conn, err := websocket.Dial(context.Background(), url+"/rooms/default?token="+token(t, "bob"))
		if err != nil {
			done <- err.Error()
			return
		}
		defer conn.Close()
		_, reason := firstText(t, conn)
		done <- reason
	}()
	anon := dialRoom(t, url+"/rooms/default")
	if _, reason := firstText(t, anon); reason != "" {
		t.Fatalf("an anonymous join while the store hangs: closed with %q", reason)
	}
	reason := <-done
	if !strings.Contains(reason, "did not answer in time") {
		t.Errorf("a join while the store hangs: %q, want refused with the reason", reason)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("refused after %s, want about the 300 ms claim timeout", d)
	}
	if ticks := room.Info().Ticks - before; ticks < 10 {
		t.Errorf("the room ticked %d times meanwhile", ticks)
	}
	f.SetHung(false)
	f.SetDown(true)
	c := dialRoom(t, url+"/rooms/default?token="+token(t, "carol"))
	if _, reason := firstText(t, c); !strings.Contains(reason, "unavailable") {
		t.Errorf("a join with the store down: %q, want refused with the reason", reason)
	}
	if got := refused(); len(got) != 2 || got[0] != "websocket store" || got[1] != "websocket store" {
		t.Errorf("refusals %q, want two for the store", got)
	}
}
