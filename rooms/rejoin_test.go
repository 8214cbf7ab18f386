package rooms

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/store"
	"github.com/fiveonit/engine/store/storetest"
	"github.com/fiveonit/engine/textframe"
)

// TestRejoinOverWebSocket: a player whose socket drops comes back with the
// welcome's reconnect token to the same character, and with no token
// through their account; the account is not claimed again meanwhile. A
// wrong token is refused with the reason and counted.
func TestRejoinOverWebSocket(t *testing.T) {
	mem := storetest.NewMemory()
	acc := store.NewAccounts(mem, store.AccountsConfig{Holder: "rooms-test", ClaimTimeout: time.Second, WriteEvery: 10 * time.Millisecond})
	watch := &roomWatch{}
	_, base, refused := newHTTPWith(t, Config{DefaultLevel: "test-flat", Grace: 200 * time.Millisecond, Accounts: acc, RejoinWindow: 30 * time.Second,
		Observe: func(*Room) RoomObserver { return watch }})
	tok := token(t, "alice")
	welcome := func(frame []byte) textframe.Welcome {
		t.Helper()
		var w textframe.Welcome
		if err := json.Unmarshal(frame, &w); err != nil || w.Type != "welcome" {
			t.Fatalf("first frame %s: %v", frame, err)
		}
		return w
	}

	first := dialRoom(t, base+"/rooms/default?token="+tok)
	f, reason := firstText(t, first)
	if reason != "" {
		t.Fatalf("the first join: closed with %q", reason)
	}
	w1 := welcome(f)
	if w1.Rejoin == "" {
		t.Fatal("no reconnect token in the welcome")
	}
	first.Drop() // the socket drops: no close frame, no leave command

	// With the token: the place is taken back, or taken over from the
	// connection if the room has not seen it drop yet.
	c2 := dialRoom(t, base+"/rooms/default?token="+tok+"&rejoin="+url.QueryEscape(w1.Rejoin))
	f, reason = firstText(t, c2)
	if reason != "" {
		t.Fatalf("the rejoin with the token: closed with %q", reason)
	}
	w2 := welcome(f)
	if w2.Character != w1.Character || w2.Session != w1.Session {
		t.Fatalf("back as session %d character %d, want %d and %d", w2.Session, w2.Character, w1.Session, w1.Character)
	}
	// Through the account alone, once the room holds the place again.
	c2.Drop()
	alice := server.Who{Account: "alice"}
	if !watch.until("default", 5*time.Second, func(r *Room) bool { return r.gs.Resumable(alice) }) {
		t.Fatal("the room does not hold alice's place after her socket dropped")
	}
	c3 := dialRoom(t, base+"/rooms/default?token="+tok)
	f, reason = firstText(t, c3)
	if reason != "" {
		t.Fatalf("the rejoin through the account: closed with %q", reason)
	}
	if w3 := welcome(f); w3.Character != w1.Character || w3.Session != w1.Session {
		t.Fatalf("back through the account as session %d character %d, want %d and %d", w3.Session, w3.Character, w1.Session, w1.Character)
	}

	bad := dialRoom(t, base+"/rooms/default?rejoin=nope")
	if _, reason := firstText(t, bad); reason != server.ErrRejoinUnknown.Error() {
		t.Fatalf("a wrong token: closed with %q", reason)
	}
	if !slices.Contains(refused(), "websocket rejoin") {
		t.Fatalf("refusals %v lack the wrong token", refused())
	}
}

// TestRejoinRoomGone: a reconnect token for a room that is not open makes
// no room.
func TestRejoinRoomGone(t *testing.T) {
	m, base, _ := newHTTPWith(t, Config{DefaultLevel: "test-flat", Grace: 200 * time.Millisecond, RejoinWindow: time.Second})
	c := dialRoom(t, base+"/rooms/nowhere?rejoin=abc")
	if _, reason := firstText(t, c); reason != server.ErrRejoinUnknown.Error() {
		t.Fatalf("closed with %q", reason)
	}
	for _, r := range m.List() {
		if r.Name == "nowhere" {
			t.Fatal("a rejoin made a room")
		}
	}
}

// newHTTPWith serves a manager of cfg over HTTP; it returns the manager,
// the ws:// base URL and the refusals told, as "transport reason".
func newHTTPWith(t *testing.T, cfg Config) (*Manager, string, func() []string) {
	t.Helper()
	m, err := NewManager(cfg)
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
		if cfg.Accounts != nil {
			cfg.Accounts.Close(ctx)
		}
	})
	return m, "ws" + strings.TrimPrefix(srv.URL, "http"), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), refused...)
	}
}
