package rooms

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fiveonit/engine/bot"
	"github.com/fiveonit/engine/jointoken"
	"github.com/fiveonit/engine/transport/websocket"
)

var secret = []byte("rooms-test-secret-0123456789")

func newHTTP(t *testing.T) (*Manager, string) {
	t.Helper()
	m, err := NewManager(Config{DefaultLevel: "test-flat", Grace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(HTTPConfig{Secret: secret}))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m.Shutdown(ctx, "test over")
		srv.Close()
	})
	return m, "ws" + strings.TrimPrefix(srv.URL, "http")
}

// TestEightClientsOverWebSocket runs the rooms' handler on loopback with 8
// bot clients for 10 s (2 s with -short), and a ninth client that never
// reads: every bot gets its snapshots at the full rate, never refuses one,
// and the room never falls behind.
func TestEightClientsOverWebSocket(t *testing.T) {
	d := 10 * time.Second
	if testing.Short() {
		d = 2 * time.Second
	}
	m, url := newHTTP(t)
	ctx := context.Background()
	stalled, err := websocket.Dial(ctx, url+"/rooms/default")
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	var wg sync.WaitGroup
	res := make([]bot.Result, 8)
	for i := range res {
		conn, err := websocket.Dial(ctx, url+"/rooms/default")
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res[i] = bot.Run(ctx, conn, uint64(i), d)
		}(i)
	}
	wg.Wait()
	want := uint64(d.Seconds()*20) * 8 / 10 // 20 snapshots a second, less joining
	for i, r := range res {
		if r.Err != nil || r.Stats.Resyncs != 0 || r.Desynced || r.Stats.Snapshots < want {
			t.Errorf("bot %d: err %v, %d snapshots (want %d), %d refused", i, r.Err, r.Stats.Snapshots, want, r.Stats.Resyncs)
		}
	}
	room := m.Rooms()[0]
	if o := room.Overruns(); o > 5 {
		t.Errorf("the room ran %d ticks late", o)
	}
}

func TestJoinTokens(t *testing.T) {
	_, url := newHTTP(t)
	ctx := context.Background()
	good, _ := jointoken.Sign(secret, jointoken.Claims{Account: "a1", Name: "Ada", Party: 3, Expires: time.Now().Add(time.Hour).Unix()})
	expired, _ := jointoken.Sign(secret, jointoken.Claims{Account: "a1", Expires: time.Now().Add(-time.Minute).Unix()})
	forged, _ := jointoken.Sign([]byte("not-the-servers-secret-at-all"), jointoken.Claims{Account: "a1", Debug: true, Expires: time.Now().Add(time.Hour).Unix()})
	cases := []struct {
		name, query, want string
	}{
		{"good", "?token=" + good, ""},
		{"expired", "?token=" + expired, "expired"},
		{"forged", "?token=" + forged, "bad signature"},
		{"garbage", "?token=xyz", "malformed"},
		{"bad level", "?level=nowhere", "unknown level"},
		{"bad traffic", "?traffic=-3", "traffic must be"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conn, err := websocket.Dial(ctx, url+"/rooms/tok"+c.query)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			defer cancel()
			frame, text, err := conn.Read(rctx)
			var ce *websocket.CloseError
			if c.want == "" {
				if err != nil || !text || !strings.Contains(string(frame), `"name":"Ada"`) || !strings.Contains(string(frame), `"party":3`) {
					t.Fatalf("welcome %q %v", frame, err)
				}
				return
			}
			if !errors.As(err, &ce) || !strings.Contains(ce.Reason, c.want) {
				t.Fatalf("err %v, want a close with %q", err, c.want)
			}
		})
	}
}

func TestEmptyRoomCloses(t *testing.T) {
	m, url := newHTTP(t)
	conn, err := websocket.Dial(context.Background(), url+"/rooms/brief?level=test-flat")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := conn.Read(context.Background()); err != nil { // the welcome: joined
		t.Fatal(err)
	}
	if n := len(m.List()); n != 2 {
		t.Fatalf("%d rooms, want 2", n)
	}
	conn.Close()
	deadline := time.Now().Add(5 * time.Second)
	for len(m.List()) != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("the empty room is still open: %+v", m.List())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if m.List()[0].Name != "default" {
		t.Fatal("the default room closed")
	}
}
