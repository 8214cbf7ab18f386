package rooms

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/fiveonit/engine/games"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/runs"
	"github.com/fiveonit/engine/server"
)

// MaxRunBody bounds the body of a request to RunHandler: a roster of
// runs.MaxSeats seats fits many times over.
const MaxRunBody = 64 << 10

// RunResponse is RunHandler's answer to a run made: the room and where
// its players join.
type RunResponse struct {
	Room string `json:"room"`
	Join string `json:"join"` // the join's path: GET with a WebSocket upgrade, token= the seat's account's join token
}

// SeatResponse is RunHandler's answer to a seat added.
type SeatResponse struct {
	Room string `json:"room"`
	Seat int    `json:"seat"`
}

// RunHandler serves a platform's run rooms, on the admin listener only:
//
//	POST /runs                 a RunSpec (JSON): make and open the room;
//	                           201 with a RunResponse
//	POST /runs/{room}/seats    a runs.Seat (JSON): add a seat to the run
//	                           under way (server.GameServer.AddSeat); 201
//	                           with a SeatResponse
//
// Every request carries "Authorization: Bearer TOKEN" with token; an
// empty token refuses every request (403), so that the routes are off
// until an operator sets one. A refusal is a status with the reason as
// text: 400 for a body that is not one JSON value of the right shape or
// a roster or seat the run refuses, 404 for an unknown level, game,
// mission or room, 409 for a room name taken, 503 for a server at its
// rooms or shutting down.
func (m *Manager) RunHandler(token string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /runs", func(w http.ResponseWriter, r *http.Request) {
		var spec RunSpec
		if !authorized(w, r, token) || !readJSON(w, r, &spec) {
			return
		}
		room, err := m.MakeRun(spec)
		if err != nil {
			http.Error(w, err.Error(), runStatus(err))
			return
		}
		writeJSON(w, http.StatusCreated, RunResponse{Room: room.Name, Join: "/rooms/" + room.Name})
	})
	mux.HandleFunc("POST /runs/{room}/seats", func(w http.ResponseWriter, r *http.Request) {
		var seat runs.Seat
		if !authorized(w, r, token) || !readJSON(w, r, &seat) {
			return
		}
		name := r.PathValue("room")
		m.mu.Lock()
		room := m.rooms[name]
		m.mu.Unlock()
		if room == nil {
			http.Error(w, fmt.Sprintf("no room %q is open", name), http.StatusNotFound)
			return
		}
		i, err := room.gs.AddSeat(seat)
		if err != nil {
			http.Error(w, err.Error(), runStatus(err))
			return
		}
		writeJSON(w, http.StatusCreated, SeatResponse{Room: name, Seat: i})
	})
	return mux
}

// authorized checks r's bearer token against token, answering 403 when
// it fails or no token is set.
func authorized(w http.ResponseWriter, r *http.Request, token string) bool {
	if token == "" {
		http.Error(w, "the run routes are off: start the server with -admin-token", http.StatusForbidden)
		return false
	}
	got, ok := bytes.CutPrefix([]byte(r.Header.Get("Authorization")), []byte("Bearer "))
	if !ok || subtle.ConstantTimeCompare(got, []byte(token)) != 1 {
		http.Error(w, "a bearer token is required: Authorization: Bearer <the -admin-token>", http.StatusForbidden)
		return false
	}
	return true
}

// readJSON reads r's body, at most MaxRunBody, as one JSON value into v
// with no unknown field, answering 400 when it is not.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(io.LimitReader(r.Body, MaxRunBody+1))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		http.Error(w, "the body is not a JSON object of the right shape: "+err.Error(), http.StatusBadRequest)
		return false
	}
	if dec.More() {
		http.Error(w, "the body holds more than one JSON value", http.StatusBadRequest)
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// runStatus is the HTTP status of an error of MakeRun or AddSeat.
func runStatus(err error) int {
	switch {
	case errors.Is(err, ErrRoomTaken):
		return http.StatusConflict
	case errors.Is(err, ErrNoRun), errors.Is(err, levels.ErrUnknownLevel), errors.Is(err, games.ErrUnknownGame):
		return http.StatusNotFound
	case errors.Is(err, ErrMaxRooms), errors.Is(err, ErrShuttingDown):
		return http.StatusServiceUnavailable
	case errors.Is(err, server.ErrRunRoster), errors.Is(err, ErrBadRoomName):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}
