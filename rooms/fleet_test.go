package rooms

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	cws "github.com/coder/websocket"

	"github.com/fiveonit/engine/fleet/directory"
	"github.com/fiveonit/engine/textframe"
	"github.com/fiveonit/engine/transport/webrtc"
	"github.com/fiveonit/engine/transport/websocket"
)

// fleet is an in-memory room directory shared by the managers of a test,
// each through its own view: a fleet of processes in one.
type fleet struct {
	mu    sync.Mutex
	rooms map[string]string // name: the holder's address
	down  bool              // every call fails
	// released gets each name taken out, if made: a test waits on it.
	released chan string
}

type fleetView struct {
	f    *fleet
	addr string
}

var errDown = errors.New("fleet: down")

func (v *fleetView) Claim(ctx context.Context, r directory.Room) error {
	v.f.mu.Lock()
	defer v.f.mu.Unlock()
	if v.f.down {
		return errDown
	}
	if h, ok := v.f.rooms[r.Name]; ok && h != v.addr {
		return &directory.HeldError{Room: r.Name, Addr: h}
	}
	v.f.rooms[r.Name] = v.addr
	return nil
}

func (v *fleetView) Release(name string) {
	v.f.mu.Lock()
	defer v.f.mu.Unlock()
	if v.f.rooms[name] == v.addr {
		delete(v.f.rooms, name)
		if v.f.released != nil {
			v.f.released <- name
		}
	}
}

func (v *fleetView) Where(ctx context.Context, name string) (string, error) {
	v.f.mu.Lock()
	defer v.f.mu.Unlock()
	if v.f.down {
		return "", errDown
	}
	if h := v.f.rooms[name]; h != v.addr {
		return h, nil
	}
	return "", nil
}

func (v *fleetView) List(ctx context.Context) ([]directory.Room, error) {
	v.f.mu.Lock()
	defer v.f.mu.Unlock()
	if v.f.down {
		return nil, errDown
	}
	var out []directory.Room
	for name, h := range v.f.rooms {
		if h != v.addr {
			out = append(out, directory.Room{Name: name, Level: "test-flat", Game: "free-roam", Capacity: 64, Addr: h})
		}
	}
	return out, nil
}

// fleetServer is a manager of the fleet behind its HTTP server.
type fleetServer struct {
	m    *Manager
	addr string // http://host:port
	ws   string // ws://host:port
}

func newFleetServer(t *testing.T, f *fleet, rtc *webrtc.Transport) *fleetServer {
	t.Helper()
	v := &fleetView{f: f}
	m := newManager(t, Config{DefaultLevel: "test-flat", Grace: 200 * time.Millisecond, Directory: v})
	srv := httptest.NewServer(m.Handler(HTTPConfig{Secret: secret, WebRTC: rtc}))
	t.Cleanup(srv.Close)
	v.addr = srv.URL
	return &fleetServer{m: m, addr: srv.URL, ws: "ws" + strings.TrimPrefix(srv.URL, "http")}
}

// welcomeOf reads conn's first text frame, which must be the welcome.
func welcomeOf(t *testing.T, conn interface {
	Read(context.Context) ([]byte, bool, error)
}) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		f, text, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("no welcome: %v", err)
		}
		if text {
			var w textframe.Welcome
			if textframe.Type(f) != "welcome" || json.Unmarshal(f, &w) != nil {
				t.Fatalf("first text frame %.80q, want the welcome", f)
			}
			return
		}
	}
}

// TestFleetJoins: with a directory, a room name is the fleet's: a join
// through another manager for a room is sent to the one that holds it (a
// 307 the Go dial and the WebRTC dial follow; a close with MovedCode for a
// browser), the lobbies list the fleet's rooms, a room's close releases
// its name, and a run room cannot take a name held elsewhere.
func TestFleetJoins(t *testing.T) {
	f := &fleet{rooms: map[string]string{}, released: make(chan string, 16)}
	rtc := loopbackRTC(t)
	a, b := newFleetServer(t, f, rtc), newFleetServer(t, f, rtc)
	ctx := context.Background()

	ca, err := websocket.Dial(ctx, a.ws+"/rooms/here?level=test-flat")
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close()
	welcomeOf(t, ca)
	if f.rooms["here"] != a.addr {
		t.Fatalf("the directory holds %q for here, want a", f.rooms["here"])
	}
	// Through b: the Go dial follows the 307 to a.
	cb, err := websocket.Dial(ctx, b.ws+"/rooms/here")
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close()
	welcomeOf(t, cb)
	if rs := a.m.Rooms(); len(rs) != 2 || rs[1].Name != "here" || rs[1].Info().Players != 2 {
		t.Fatalf("a's rooms %+v, want here with both players", a.m.List())
	}
	if rs := b.m.Rooms(); len(rs) != 1 {
		t.Fatalf("b made a room: %+v", b.m.List())
	}
	// The lobbies: each its own rooms, and the other's with its address.
	lb := b.m.List()
	if len(lb) != 2 || lb[0].Name != "default" || lb[0].Addr != "" || lb[1] != (RoomInfo{Name: "here", Level: "test-flat", Game: "free-roam", Capacity: 64, Addr: a.addr}) {
		t.Fatalf("b's lobby %+v", lb)
	}
	// A browser (an Origin) through b: closed with the room's URL on a.
	bctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	host := strings.TrimPrefix(b.addr, "http://")
	bws, _, err := cws.Dial(bctx, b.ws+"/rooms/here?level=test-flat", &cws.DialOptions{HTTPHeader: http.Header{"Origin": {"http://" + host}}})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = bws.Read(bctx)
	if ce := (cws.CloseError{}); !errors.As(err, &ce) || int(ce.Code) != MovedCode || ce.Reason != a.ws+"/rooms/here" {
		t.Fatalf("a browser's join through b: %v, want close %d with %s/rooms/here", err, MovedCode, a.ws)
	}
	// WebRTC through b: the offer goes to a.
	rc, err := webrtc.Dial(ctx, b.addr+"/rooms/here", webrtc.DialOptions{})
	if err != nil {
		t.Fatalf("webrtc through b: %v", err)
	}
	welcomeOf(t, rc)
	rc.Close()
	// A run room of a name held elsewhere is refused as taken.
	if _, err := b.m.MakeRun(RunSpec{Room: "here", Roster: duel(), Def: testRun}); !errors.Is(err, ErrRoomTaken) || !strings.Contains(err.Error(), a.addr) {
		t.Fatalf("b's run room of a's name: %v, want taken, on a", err)
	}
	// The room empties and closes: its name is released, and a join
	// through b makes it there.
	ca.Close()
	cb.Close()
	for released := false; !released; {
		select {
		case name := <-f.released:
			released = name == "here"
		case <-time.After(5 * time.Second):
			t.Fatal("the closed room's name is still held")
		}
	}
	cb, err = websocket.Dial(ctx, b.ws+"/rooms/here?level=test-flat")
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close()
	welcomeOf(t, cb)
	if f.rooms["here"] != b.addr {
		t.Fatalf("here is held by %q, want b", f.rooms["here"])
	}
}

// TestFleetDirectoryDown: a directory that does not answer refuses a join
// that would make a room, with the reason, and lists this manager's rooms
// alone; the joins of rooms open here go on.
func TestFleetDirectoryDown(t *testing.T) {
	f := &fleet{rooms: map[string]string{}}
	a := newFleetServer(t, f, nil)
	ctx := context.Background()
	ca, err := websocket.Dial(ctx, a.ws+"/rooms/open?level=test-flat")
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close()
	welcomeOf(t, ca)
	f.mu.Lock()
	f.down = true
	f.mu.Unlock()
	c, err := websocket.Dial(ctx, a.ws+"/rooms/new-one")
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, _, err = c.Read(rctx)
	if ce := (*websocket.CloseError)(nil); !errors.As(err, &ce) || !strings.Contains(ce.Reason, "room directory is unavailable") {
		t.Fatalf("a new room with the directory down: %v, want refused with the reason", err)
	}
	c2, err := websocket.Dial(ctx, a.ws+"/rooms/open")
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	welcomeOf(t, c2)
	if l := a.m.List(); len(l) != 2 {
		t.Fatalf("the lobby with the directory down: %+v, want this manager's two rooms", l)
	}
}
