package rooms

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fiveonit/engine/clock/clocktest"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/jointoken"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/server/servertest"
	"github.com/fiveonit/engine/textframe"
	"github.com/fiveonit/engine/transport/websocket"
)

// wsPlayer is a player over a WebSocket: it reads every frame (the
// snapshots too, so its queue never fills), and hands on the text frames.
type wsPlayer struct {
	t       *testing.T
	conn    *websocket.ClientConn
	texts   chan map[string]any
	closed  chan error // the read's error once the connection is closed
	welcome textframe.Welcome
}

func dialPlayer(t *testing.T, url string, claims jointoken.Claims) (*wsPlayer, error) {
	t.Helper()
	claims.Expires = time.Now().Add(time.Hour).Unix()
	tok, err := jointoken.Sign(secret, claims)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := websocket.Dial(context.Background(), url+"/rooms/social?level=test-flat&token="+tok)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	p := &wsPlayer{t: t, conn: conn, texts: make(chan map[string]any, 256), closed: make(chan error, 1)}
	go func() {
		for {
			data, text, err := conn.Read(context.Background())
			if err != nil {
				p.closed <- err
				close(p.texts)
				return
			}
			var m map[string]any
			if text && json.Unmarshal(data, &m) == nil {
				if m["type"] == "welcome" {
					json.Unmarshal(data, &p.welcome)
				}
				p.texts <- m
			}
		}
	}()
	if _, err := p.await("welcome", nil); err != nil {
		return p, err
	}
	return p, nil
}

// await returns the next text frame of type typ for which ok (nil: any)
// holds, within 5 s; an error once the connection is closed.
func (p *wsPlayer) await(typ string, ok func(map[string]any) bool) (map[string]any, error) {
	deadline := time.After(5 * time.Second)
	for {
		select {
		case m, open := <-p.texts:
			if !open {
				return nil, <-p.closed
			}
			if m["type"] == typ && (ok == nil || ok(m)) {
				return m, nil
			}
		case <-deadline:
			p.t.Fatalf("no %s frame within 5 s", typ)
		}
	}
}

func (p *wsPlayer) send(format string, args ...any) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := p.conn.Send(ctx, []byte(fmt.Sprintf(format, args...)), true); err != nil {
		p.t.Fatal(err)
	}
}

// mustReply waits for the reply to a command of p and fails unless it is OK.
func (p *wsPlayer) mustReply() {
	p.t.Helper()
	m, err := p.await("reply", nil)
	if err != nil || m["ok"] != true {
		p.t.Fatalf("reply %v %v", m, err)
	}
}

// TestVoteKickOverWebSocket: three players of four vote the fourth out
// (one starts the vote, a second makes it a majority of the three others);
// the fourth is disconnected with the reason, and its account cannot come
// back, under any name; its name under another account can.
func TestVoteKickOverWebSocket(t *testing.T) {
	_, url, _ := newHTTP(t)
	var ps []*wsPlayer
	for i := 1; i <= 4; i++ {
		p, err := dialPlayer(t, url, jointoken.Claims{Account: fmt.Sprintf("acc-%d", i), Name: fmt.Sprintf("P%d", i)})
		if err != nil {
			t.Fatalf("player %d: %v", i, err)
		}
		ps = append(ps, p)
	}
	target := ps[3].welcome.Session
	ps[0].send(`{"type":"vote","cmd":"kick","session":%d}`, target)
	ps[0].mustReply()
	for _, p := range ps[1:3] {
		if _, err := p.await("vote", func(m map[string]any) bool { return m["state"] == "open" }); err != nil {
			t.Fatal(err)
		}
	}
	ps[1].send(`{"type":"vote","cmd":"yes"}`)
	ps[1].mustReply()
	for _, p := range ps[:3] {
		m, err := p.await("vote", func(m map[string]any) bool { return m["state"] != "open" })
		if err != nil || m["state"] != "passed" || m["targetName"] != "P4" {
			t.Fatalf("vote %v %v, want passed against P4", m, err)
		}
	}
	// The fourth is disconnected with the reason.
	select {
	case err := <-ps[3].closed:
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Reason != server.ErrVotedOut.Error() {
			t.Fatalf("the fourth's connection ended with %v, want %q", err, server.ErrVotedOut)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the fourth is still connected")
	}
	// Its account is refused with the reason, under another name too.
	_, err := dialPlayer(t, url, jointoken.Claims{Account: "acc-4", Name: "Someone Else"})
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Reason != server.ErrBanned.Error() {
		t.Fatalf("the fourth's account again: %v, want refused with %q", err, server.ErrBanned)
	}
	// Another account under the fourth's name is not.
	if _, err := dialPlayer(t, url, jointoken.Claims{Account: "acc-5", Name: "P4"}); err != nil {
		t.Fatalf("another account named P4: %v", err)
	}
}

// TestBannedOverWebRTC: a WebRTC offer from an account the room voted out
// is refused before any connection is set up: 403 with the reason.
func TestBannedOverWebRTC(t *testing.T) {
	clk := clocktest.New()
	m, err := NewManager(Config{DefaultLevel: "test-flat", Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Shutdown(context.Background(), "test over")
	var sessions []*server.Session
	var conns []*servertest.MemConn
	for i := 1; i <= 3; i++ {
		conn := servertest.NewMemConn(false, 0)
		_, s, err := m.Join("default", Options{}, conn, server.Who{Account: fmt.Sprintf("acc-%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		sessions, conns = append(sessions, s), append(conns, conn)
	}
	target := server.Who{Account: "acc-3"}
	if err := m.CanJoin("default", Options{}, target); err != nil {
		t.Fatalf("before any vote: %v", err)
	}
	// Once the room has them all, two vote the third out.
	clk.Step(t, TickPeriod)
	sessions[0].Receive([]byte(fmt.Sprintf(`{"type":"vote","cmd":"kick","session":%d}`, sessions[2].ID())), true)
	sessions[1].Receive([]byte(`{"type":"vote","cmd":"yes"}`), true)
	for tick := 0; ; tick++ {
		if closed, _ := conns[2].Closed(); closed {
			break
		}
		if tick == 5*ecs.TickRate {
			t.Fatal("the third is not voted out within 5 s of the room's ticks")
		}
		clk.Step(t, TickPeriod)
	}
	err = m.CanJoin("default", Options{}, target)
	if !errors.Is(err, server.ErrBanned) || joinRefusal(err) != "banned" || rtcStatus(err) != http.StatusForbidden {
		t.Fatalf("CanJoin: %v (%s, %d), want ErrBanned: banned, 403", err, joinRefusal(err), rtcStatus(err))
	}
	if !strings.Contains(err.Error(), "voted out") {
		t.Fatalf("reason %q", err)
	}
	if _, _, err := m.Join("default", Options{}, servertest.NewMemConn(false, 0), target); !errors.Is(err, server.ErrBanned) {
		t.Fatalf("Join: %v, want ErrBanned", err)
	}
}
