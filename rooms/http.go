package rooms

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/fiveonit/engine/jointoken"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/transport/websocket"
)

// HTTPConfig sets up the HTTP routes.
type HTTPConfig struct {
	// Secret verifies join tokens (jointoken).
	Secret []byte
	// WebSocket are the WebSocket transport's options (origins).
	WebSocket websocket.Options
}

// Handler returns the routes: GET /rooms/{name} joins over a WebSocket,
// GET /rooms lists the rooms, GET /levels/{name} returns a level's JSON.
// The query of a join: token (a join token; without one the player is
// "player N"), acked=1 (ask for the acked snapshots), spectate=1 and
// watch=N (watch player N without a character), and the options of a new
// room: level, traffic, pedestrians.
func (m *Manager) Handler(hc HTTPConfig) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /rooms/{name}", func(w http.ResponseWriter, r *http.Request) { m.serveJoin(w, r, hc) })
	mux.HandleFunc("GET /rooms", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(m.List())
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

// Joiner decides who a join request is: its token's claims, or an
// anonymous player.
func Joiner(secret []byte, q map[string][]string, now time.Time) (server.Who, error) {
	var who server.Who
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	who.Acked = get("acked") == "1"
	who.Spectate = get("spectate") == "1"
	if n, err := strconv.Atoi(get("watch")); err == nil && n > 0 && n < 256 {
		who.Watch = uint8(n)
	}
	tok := get("token")
	if tok == "" {
		return who, nil
	}
	c, err := jointoken.Verify(secret, tok, now)
	if err != nil {
		return who, fmt.Errorf("join token refused: %w", err)
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
		websocket.Refuse(w, r, hc.WebSocket, err.Error())
		return
	}
	who, err := Joiner(hc.Secret, r.URL.Query(), time.Now())
	if err != nil {
		m.log.Info("join refused", "room", name, "err", err)
		websocket.Refuse(w, r, hc.WebSocket, err.Error())
		return
	}
	conn, err := websocket.Accept(w, r, hc.WebSocket)
	if err != nil {
		m.log.Info("websocket upgrade failed", "room", name, "err", err)
		return
	}
	room, sess, err := m.Join(name, o, conn, who)
	if err != nil {
		conn.Close(err.Error())
		return
	}
	log := room.log.With("session", sess.ID(), "account", who.Account, "transport", "websocket")
	log.Info("client joined", "remote", r.RemoteAddr)
	conn.Serve(r.Context(), sess)
	<-conn.Done()
	log.Info("client left")
}
