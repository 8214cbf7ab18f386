package rooms

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/fiveonit/engine/fleet/directory"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/transport/websocket"
)

// Directory is the fleet's room directory (fleet/directory.Directory): the
// rooms of every server process, so that a room name is the fleet's. A
// Manager with one claims a name there before it makes a room of it,
// releases it when the room closes, sends a join for another process's
// room where it lives, and lists the fleet's rooms. Its default room is
// its own: every process has one, and the directory leaves it out.
type Directory interface {
	// Claim claims r's name for this process, or fails with a
	// *directory.HeldError that says where the room lives.
	Claim(ctx context.Context, r directory.Room) error
	// Release takes room name, closed, out of the directory.
	Release(name string)
	// Where returns the address of the other process that holds room
	// name, or "" for none.
	Where(ctx context.Context, name string) (string, error)
	// List returns the other processes' rooms.
	List(ctx context.Context) ([]directory.Room, error)
}

// ErrDirectory is a room that could not be made because the fleet's room
// directory did not answer: the name cannot be known to be free. It is
// wrapped with the reason; the join may be tried again.
var ErrDirectory = errors.New("rooms: the room directory is unavailable; join again later")

// directoryTimeout bounds a join's look-up or claim in the directory.
const directoryTimeout = 5 * time.Second

// MovedCode is the WebSocket close code of a join sent to another
// process: its reason is the room's join URL there (ws:// or wss://, the
// path, no query), where the client joins again with the same query. A
// browser's WebSocket follows no HTTP redirect, so a join with an Origin
// gets this; any other gets an HTTP 307 before the upgrade.
const MovedCode = 4307

// capacity is the most players of each of the manager's rooms.
func (m *Manager) capacity() int {
	if m.cfg.MaxPlayers > 0 {
		return m.cfg.MaxPlayers
	}
	return server.DefaultMaxPlayers
}

// claimName claims room name for a room made with o, unless the manager
// has no directory or name is its default room. A name another process
// holds fails with its *directory.HeldError; a directory that does not
// answer with ErrDirectory.
func (m *Manager) claimName(name string, o Options) error {
	if m.cfg.Directory == nil || name == m.cfg.DefaultRoom {
		return nil
	}
	game := o.Game
	if game == "" {
		game = m.cfg.DefaultGame
	}
	ctx, cancel := context.WithTimeout(context.Background(), directoryTimeout)
	defer cancel()
	err := m.cfg.Directory.Claim(ctx, directory.Room{Name: name, Level: o.Level, Game: game, Capacity: m.capacity()})
	if err == nil || errors.Is(err, directory.ErrHeld) {
		return err
	}
	m.log.Warn("directory: claim failed", "room", name, "err", err)
	// The reason names the context's cause, "<nil>" when the directory
	// failed before the timeout.
	if cause := context.Cause(ctx); cause != nil {
		return fmt.Errorf("%w (%w)", ErrDirectory, cause)
	}
	return fmt.Errorf("%w (<nil>)", ErrDirectory)
}

// releaseName takes room name out of the directory. m.mu is held: the
// name's claim is read before another make of it can begin.
func (m *Manager) releaseName(name string) {
	if m.cfg.Directory != nil && name != m.cfg.DefaultRoom {
		m.cfg.Directory.Release(name)
	}
}

// Elsewhere returns the address of the other process that holds room
// name, making the room here first if no process does and a join with o
// and who could make it. "" is a room that lives here (or will: the join
// that makes it follows), or no directory. A join's redirect is decided
// this way before the upgrade, so that a client that follows HTTP
// redirects gets one.
func (m *Manager) Elsewhere(name string, o Options, who server.Who) (string, error) {
	if m.cfg.Directory == nil || name == m.cfg.DefaultRoom {
		return "", nil
	}
	m.mu.Lock()
	_, making := m.making[name]
	local := m.rooms[name] != nil || making
	m.mu.Unlock()
	if local {
		return "", nil
	}
	if who.Rejoin != "" {
		// A place is taken back where it is held: never made here.
		ctx, cancel := context.WithTimeout(context.Background(), directoryTimeout)
		defer cancel()
		addr, err := m.cfg.Directory.Where(ctx, name)
		if err != nil {
			m.log.Warn("directory: look-up failed", "room", name, "err", err)
			return "", fmt.Errorf("%w (%w)", ErrDirectory, err)
		}
		return addr, nil
	}
	if m.CanJoin(name, o, who) != nil {
		return "", nil // the join is refused here, with its reason
	}
	err := m.make(name, o)
	var held *directory.HeldError
	switch {
	case errors.As(err, &held):
		return held.Addr, nil
	case errors.Is(err, ErrDirectory):
		return "", err
	}
	return "", nil // made here, or a refusal the join gives again
}

// List returns the rooms, by name: this process's, and with a directory
// the fleet's other processes' too, each with its Addr. When the
// directory fails, this process's alone (logged).
func (m *Manager) List() []RoomInfo {
	out := m.local()
	if m.cfg.Directory == nil {
		return out
	}
	ctx, cancel := context.WithTimeout(context.Background(), directoryTimeout)
	defer cancel()
	others, err := m.cfg.Directory.List(ctx)
	if err != nil {
		m.log.Warn("directory: list failed; listing this process's rooms", "err", err)
	}
	for _, r := range others {
		if slices.ContainsFunc(out, func(l RoomInfo) bool { return l.Name == r.Name }) {
			continue // this process's own (its default room; a name lost)
		}
		out = append(out, RoomInfo{Name: r.Name, Level: r.Level, Game: r.Game, Players: r.Players, Capacity: r.Capacity,
			Addr: r.Addr})
	}
	slices.SortFunc(out, func(a, b RoomInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// DirectoryRooms returns this process's rooms as the directory keeps
// them (their players), for its heartbeat: the default room left out.
func (m *Manager) DirectoryRooms() []directory.Room {
	var out []directory.Room
	for _, r := range m.local() {
		if r.Name != m.cfg.DefaultRoom {
			out = append(out, directory.Room{Name: r.Name, Level: r.Level, Game: r.Game, Players: r.Players, Capacity: r.Capacity})
		}
	}
	return out
}

// movedURL is the URL of path (a room's join route) at the process of
// address addr (an http or https URL), with query: ws or wss for a
// WebSocket join.
func movedURL(addr, path, query string, ws bool) string {
	u := strings.TrimSuffix(addr, "/") + path
	if ws {
		if rest, ok := strings.CutPrefix(u, "https://"); ok {
			u = "wss://" + rest
		} else if rest, ok := strings.CutPrefix(u, "http://"); ok {
			u = "ws://" + rest
		}
	}
	if query != "" {
		u += "?" + query
	}
	return u
}

// redirectJoin answers a WebSocket join for a room that lives at addr: a
// browser's (it sends an Origin) is upgraded and closed with MovedCode and
// the room's URL there; any other gets a 307 to it.
func redirectJoin(w http.ResponseWriter, r *http.Request, hc HTTPConfig, name, addr string) {
	if r.Header.Get("Origin") == "" {
		w.Header().Set("Location", movedURL(addr, "/rooms/"+url.PathEscape(name), r.URL.RawQuery, false))
		http.Error(w, fmt.Sprintf("room %s is on another server: %s", name, addr), http.StatusTemporaryRedirect)
		return
	}
	websocket.RefuseCode(w, r, hc.WebSocket, MovedCode, movedURL(addr, "/rooms/"+url.PathEscape(name), "", true))
}
