package rooms

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/fiveonit/engine/fleet/directory"
	"github.com/fiveonit/engine/games"
	"github.com/fiveonit/engine/jointoken"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/runs"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/transport/webrtc"
	"github.com/fiveonit/engine/transport/websocket"
)

// HTTPConfig sets up the HTTP routes.
type HTTPConfig struct {
	// Tokens verifies join tokens (jointoken): the algorithms and keys a
	// server accepts. nil: HS256 with Secret.
	Tokens *jointoken.Verifier
	// Secret verifies HS256 join tokens when Tokens is nil.
	Secret []byte
	// WebSocket are the WebSocket transport's options (origins).
	WebSocket websocket.Options
	// WebRTC answers the offers of POST /rooms/{name}/rtc (nil: the
	// route answers 404).
	WebRTC *webrtc.Transport
	// Track, if set, is told of every joined client's connection while
	// it lasts, with its transport ("websocket", "webrtc") and its
	// counters (metrics: clients, frames and bytes per transport); it
	// returns the func to call when the connection has ended.
	Track func(transport string, counts func() Counts) (untrack func())
	// Refused, if set, is told of every join refused, with its transport
	// ("websocket", "webrtc") and why: one of RefusalReasons (metrics).
	Refused func(transport, reason string)
}

// RefusalReasons are the reasons HTTPConfig.Refused is told: a bad
// request (options, room name, offer), a join token refused, a page of
// another origin, a full room, the rooms at -max-rooms, the rooms made
// from the address at -max-rooms-from, its players at -max-players-from, a
// shutdown, too many WebRTC connections being set up (in all, from the
// address), a player the room voted out, an account refused (playing
// already: ErrAccount), an account store that did not load it
// (ErrAccountStore), a reconnect token the room does not hold or holds for
// another account, a run room's refusal of an account (no seat, its seat
// gone or played, the run over), a join sent to the fleet's process that
// holds its room (Config.Directory), a room not made because the
// directory did not answer, and anything else.
var RefusalReasons = []string{"bad_request", "token", "origin", "room_full", "max_rooms", "rooms_from",
	"players_from", "shutting_down", "busy", "busy_from", "banned", "account", "store", "rejoin", "seat", "moved", "directory", "other"}

func (hc HTTPConfig) refused(transport, reason string) {
	if hc.Refused != nil {
		hc.Refused(transport, reason)
	}
}

// joinRefusal returns the RefusalReasons of an error of Manager.Join or
// CanJoin.
func joinRefusal(err error) string {
	switch {
	case errors.Is(err, server.ErrRoomFull):
		return "room_full"
	case errors.Is(err, ErrMaxRooms):
		return "max_rooms"
	case errors.Is(err, ErrRoomsFrom):
		return "rooms_from"
	case errors.Is(err, ErrPlayersFrom):
		return "players_from"
	case errors.Is(err, ErrShuttingDown):
		return "shutting_down"
	case errors.Is(err, ErrBadRoomName):
		return "bad_request"
	case errors.Is(err, server.ErrBanned):
		return "banned"
	case errors.Is(err, ErrAccount):
		return "account"
	case errors.Is(err, ErrAccountStore):
		return "store"
	case errors.Is(err, server.ErrRejoinUnknown), errors.Is(err, server.ErrRejoinAccount):
		return "rejoin"
	case errors.Is(err, runs.ErrNoSeat), errors.Is(err, runs.ErrSeatGone), errors.Is(err, runs.ErrSeatHeld), errors.Is(err, runs.ErrRunOver):
		return "seat"
	case errors.Is(err, directory.ErrHeld):
		return "moved"
	case errors.Is(err, ErrDirectory):
		return "directory"
	}
	return "other"
}

// offerTimeout bounds the reading of a WebRTC offer's body, from its
// request's headers on (an offer is at most webrtc.MaxSignal, a few KB).
// A var: a test shortens it.
var offerTimeout = 10 * time.Second

// Counts are what a connection counted so far.
type Counts struct {
	FramesIn, BytesIn, FramesOut, BytesOut uint64
}

// Handler returns the routes: GET /rooms/{name} joins over a WebSocket,
// POST /rooms/{name}/rtc joins over WebRTC (the offer in, the answer out:
// package transport/webrtc), GET /rooms lists the rooms, GET /games the
// games a room may play (GameList), GET /levels/{name} returns a level's
// JSON.
// The query of a join: token (a join token; without one the player is
// "player N", or the name the query gives), name (the name a player
// without a token plays under), rejoin (the reconnect token of a place the room holds:
// take it back), acked=1 (ask for the acked snapshots), spectate=1 and
// watch=N (watch player N without a character), and the options of a new
// room: level, game, traffic, pedestrians.
func (m *Manager) Handler(hc HTTPConfig) http.Handler {
	if hc.Tokens == nil && len(hc.Secret) > 0 {
		v, err := jointoken.NewVerifier(jointoken.VerifierConfig{Algorithms: []string{jointoken.HS256}, Secret: hc.Secret})
		if err != nil {
			m.log.Error("join tokens: every token will be refused", "err", err)
		}
		hc.Tokens = v
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /rooms/{name}", func(w http.ResponseWriter, r *http.Request) { m.serveJoin(w, r, hc) })
	mux.HandleFunc("POST /rooms/{name}/rtc", func(w http.ResponseWriter, r *http.Request) { m.serveRTC(w, r, hc) })
	mux.HandleFunc("GET /rooms", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(m.List())
	})
	mux.HandleFunc("GET /games", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(GameList())
	})
	mux.HandleFunc("GET /levels/{name}", func(w http.ResponseWriter, r *http.Request) {
		b, err := levels.Raw(strings.TrimSuffix(r.PathValue("name"), ".json"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Write(b)
	})
	return mux
}

// maxRejoin bounds a reconnect token in a join's query: the server's are
// 22 characters.
const maxRejoin = 64

// maxName bounds the name a join's query gives, in bytes: a name of
// social.MaxNameRunes characters of four bytes each. A longer one is let
// go (the player is "player N").
const maxName = 128

// ErrTokenRoom is a join token for a run room's seat (its run claim)
// used to join another room.
var ErrTokenRoom = errors.New("this join token is for another room")

// Joiner decides who a join request to room is: its token's claims, or
// an anonymous player. v verifies the token (nil: a token is refused). A
// token that names a run room (its run claim) joins that room alone.
func Joiner(v *jointoken.Verifier, room string, q map[string][]string, now time.Time) (server.Who, error) {
	var who server.Who
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	who.Acked = get("acked") == "1"
	who.Spectate = get("spectate") == "1"
	if who.Rejoin = get("rejoin"); len(who.Rejoin) > maxRejoin {
		return who, fmt.Errorf("%w: a reconnect token is at most %d characters", server.ErrRejoinUnknown, maxRejoin)
	}
	if n, err := strconv.Atoi(get("watch")); err == nil && n > 0 && n <= math.MaxUint16 {
		who.Watch = uint16(n)
	}
	tok := get("token")
	if tok == "" {
		// A player without an account names themselves; the room cleans
		// the name (social.CleanName) and cuts it to its length.
		if n := get("name"); len(n) <= maxName {
			who.Name = n
		}
		return who, nil
	}
	if v == nil {
		return who, errors.New("join token refused: this server verifies no join tokens")
	}
	c, err := v.Verify(tok, now)
	if err != nil {
		return who, fmt.Errorf("join token refused: %w", err)
	}
	if c.Run != "" && c.Run != room {
		return who, fmt.Errorf("join token refused: %w: run room %s", ErrTokenRoom, c.Run)
	}
	who.Account, who.Name, who.Party, who.Debug = c.Account, c.Name, c.Party, c.Debug
	return who, nil
}

func (m *Manager) serveJoin(w http.ResponseWriter, r *http.Request, hc HTTPConfig) {
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		http.Error(w, "join a room with a WebSocket upgrade", http.StatusUpgradeRequired)
		return
	}
	name := r.PathValue("name")
	o, err := ParseOptions(r.URL.Query(), m.cfg.DefaultLevel)
	if err != nil {
		hc.refused("websocket", "bad_request")
		websocket.Refuse(w, r, hc.WebSocket, err.Error())
		return
	}
	o.From = remoteHost(r.RemoteAddr)
	who, err := Joiner(hc.Tokens, name, r.URL.Query(), time.Now())
	if err != nil {
		m.log.Info("join refused", "room", name, "err", err, "transport", "websocket", "remote", r.RemoteAddr)
		hc.refused("websocket", "token")
		websocket.Refuse(w, r, hc.WebSocket, err.Error())
		return
	}
	// A room of another process of the fleet: sent there before the
	// upgrade (a room this join makes here is made now).
	if checkOrigin(r, hc.WebSocket) == nil {
		addr, err := m.Elsewhere(name, o, who)
		if err != nil {
			hc.refused("websocket", joinRefusal(err))
			websocket.Refuse(w, r, hc.WebSocket, err.Error())
			return
		}
		if addr != "" {
			m.log.Info("join sent to another server", "room", name, "addr", addr, "transport", "websocket", "remote", r.RemoteAddr)
			hc.refused("websocket", "moved")
			redirectJoin(w, r, hc, name, addr)
			return
		}
	}
	conn, err := websocket.Accept(w, r, hc.WebSocket)
	if err != nil {
		m.log.Info("websocket upgrade failed", "room", name, "err", err)
		reason := "bad_request" // a handshake that is not one
		if checkOrigin(r, hc.WebSocket) != nil {
			reason = "origin" // the same test the WebSocket library made
		}
		hc.refused("websocket", reason)
		return
	}
	room, sess, err := m.Join(name, o, conn, who)
	if err != nil {
		m.log.Info("join refused", "room", name, "err", err, "transport", "websocket", "remote", r.RemoteAddr)
		hc.refused("websocket", joinRefusal(err))
		conn.Close(err.Error())
		return
	}
	log := room.log.With("session", sess.ID(), "account", who.Account, "transport", "websocket")
	log.Info("client joined", "remote", r.RemoteAddr)
	if hc.Track != nil {
		untrack := hc.Track("websocket", func() Counts {
			return Counts{conn.FramesIn.Load(), conn.BytesIn.Load(), conn.FramesOut.Load(), conn.BytesOut.Load()}
		})
		defer untrack()
	}
	conn.Serve(r.Context(), sess)
	<-conn.Done()
	<-conn.Finished() // the close frame is out before the handler returns
	log.Info("client left")
}

// serveRTC joins a client over WebRTC: its offer in the body, the query of
// a WebSocket join, the answer back; the client joins its room once its
// data channels are open (joinConnected). An error is an HTTP status with
// the reason as text: 403 for a player the room voted out; 503 for a full
// room, too many rooms or connections being set up, a shutdown; 429 for too many being set up from the same
// address (webrtc.MaxPendingFrom), a room to make when the rooms made
// from the address are Config.MaxRoomsFrom, or a player more when the
// players joined from it are Config.MaxPlayersFrom; a room that fills
// after the answer closes the connection with the reason instead.
func (m *Manager) serveRTC(w http.ResponseWriter, r *http.Request, hc HTTPConfig) {
	if hc.WebRTC == nil {
		http.Error(w, "WebRTC is off on this server", http.StatusNotFound)
		return
	}
	name := r.PathValue("name")
	if err := checkOrigin(r, hc.WebSocket); err != nil {
		hc.refused("webrtc", "origin")
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		// A page of another server of the fleet, whose offer that server
		// sent here with a 307, reads the answer only with this header.
		// The offer is a simple request (text/plain): no preflight.
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Add("Vary", "Origin")
	}
	o, err := ParseOptions(r.URL.Query(), m.cfg.DefaultLevel)
	if err != nil {
		hc.refused("webrtc", "bad_request")
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	o.From = remoteHost(r.RemoteAddr)
	who, err := Joiner(hc.Tokens, name, r.URL.Query(), time.Now())
	if err != nil {
		m.log.Info("join refused", "room", name, "err", err, "transport", "webrtc", "remote", r.RemoteAddr)
		hc.refused("webrtc", "token")
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	// The offer must come whole within offerTimeout: a body sent a byte
	// at a time would hold the handler, and its connection, for good.
	// A bad offer keeps the deadline (the server reads what is left of its
	// body before answering, and that read must not wait either); a good
	// one is read whole, and the deadline goes: past it, the server's
	// read in the background would cancel the request's context, which
	// the answer's gathering runs under.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(offerTimeout))
	offer, err := webrtc.ReadOffer(r.Body)
	if err != nil {
		hc.refused("webrtc", "bad_request")
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	_ = rc.SetReadDeadline(time.Time{})
	addr, err := m.Elsewhere(name, o, who)
	if err != nil {
		hc.refused("webrtc", joinRefusal(err))
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	if addr != "" {
		// The offer goes there whole: a 307 keeps the method and body.
		m.log.Info("join sent to another server", "room", name, "addr", addr, "transport", "webrtc", "remote", r.RemoteAddr)
		hc.refused("webrtc", "moved")
		w.Header().Set("Location", movedURL(addr, "/rooms/"+url.PathEscape(name)+"/rtc", r.URL.RawQuery, false))
		http.Error(w, fmt.Sprintf("room %s is on another server: %s", name, addr), http.StatusTemporaryRedirect)
		return
	}
	if err := m.CanJoin(name, o, who); err != nil {
		hc.refused("webrtc", joinRefusal(err))
		http.Error(w, err.Error(), rtcStatus(err))
		return
	}
	conn, answer, err := hc.WebRTC.Accept(r.Context(), offer, remoteHost(r.RemoteAddr))
	if err != nil {
		m.log.Info("webrtc offer refused", "room", name, "err", err)
		status, reason := http.StatusServiceUnavailable, "other"
		switch {
		case errors.Is(err, webrtc.ErrBadSignal):
			status, reason = http.StatusBadRequest, "bad_request"
		case errors.Is(err, webrtc.ErrBusyFrom):
			status, reason = http.StatusTooManyRequests, "busy_from"
		case errors.Is(err, webrtc.ErrBusy):
			reason = "busy"
		}
		hc.refused("webrtc", reason)
		http.Error(w, err.Error(), status)
		return
	}
	go m.joinConnected(name, o, conn, who, r.RemoteAddr, hc)
	webrtc.WriteAnswer(w, answer)
}

// rtcStatus is the HTTP status of a WebRTC offer refused by CanJoin's err.
func rtcStatus(err error) int {
	switch {
	case errors.Is(err, ErrBadRoomName):
		return http.StatusBadRequest
	case errors.Is(err, server.ErrBanned), joinRefusal(err) == "seat", joinRefusal(err) == "rejoin":
		return http.StatusForbidden
	case errors.Is(err, ErrRoomsFrom), errors.Is(err, ErrPlayersFrom):
		return http.StatusTooManyRequests
	}
	return http.StatusServiceUnavailable // room full, too many rooms, shutting down
}

// remoteHost is the host of a request's RemoteAddr (host:port).
func remoteHost(remote string) string {
	if h, _, err := net.SplitHostPort(remote); err == nil {
		return h
	}
	return remote
}

// joinConnected joins a WebRTC connection to its room once its data
// channels are open, not when its offer is answered: an offer costs one
// HTTP request (and can be replayed), and a client that never connects
// must not take a place in the room, nor put a character in its world,
// for the ConnectTimeout it is waited for. A room that filled meanwhile
// closes the connection with the reason.
func (m *Manager) joinConnected(name string, o Options, conn *webrtc.Conn, who server.Who, remote string, hc HTTPConfig) {
	select {
	case <-conn.Connected():
	case <-conn.Ended():
		return
	}
	room, sess, err := m.Join(name, o, conn, who)
	if err != nil {
		m.log.Info("join refused", "room", name, "err", err, "transport", "webrtc", "remote", remote)
		hc.refused("webrtc", joinRefusal(err))
		conn.Close(err.Error())
		return
	}
	log := room.log.With("session", sess.ID(), "account", who.Account, "transport", "webrtc")
	log.Info("client joined", "remote", remote)
	untrack := func() {}
	if hc.Track != nil {
		untrack = hc.Track("webrtc", func() Counts {
			return Counts{conn.FramesIn.Load(), conn.BytesIn.Load(), conn.FramesOut.Load(), conn.BytesOut.Load()}
		})
	}
	conn.Serve(sess, func() {
		untrack()
		log.Info("client left")
	})
}

// checkOrigin refuses a browser's WebRTC join from a page of another
// origin, as the WebSocket join does (the same options): the server's own
// host, o.OriginPatterns (path.Match patterns of the origin's host) or any
// with o.AnyOrigin. A request without an Origin (not a browser's) passes.
func checkOrigin(r *http.Request, o websocket.Options) error {
	origin := r.Header.Get("Origin")
	if origin == "" || o.AnyOrigin {
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return fmt.Errorf("origin %q is not a URL with a host", origin)
	}
	if strings.EqualFold(u.Host, r.Host) {
		return nil
	}
	for _, p := range o.OriginPatterns {
		if ok, _ := path.Match(strings.ToLower(p), strings.ToLower(u.Host)); ok {
			return nil
		}
	}
	return fmt.Errorf("origin %q may not join this server", u.Host)
}

// GameInfo describes a game for the lobby.
type GameInfo struct {
	Name        string `json:"name"`
	Label       string `json:"label"`
	Description string `json:"description"`
}

// GameList returns the built-in games, by name.
func GameList() []GameInfo {
	out := []GameInfo{}
	for _, g := range games.All() {
		out = append(out, GameInfo{Name: g.Name, Label: g.Label, Description: g.Description})
	}
	return out
}
