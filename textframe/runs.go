package textframe

import "strconv"

// The run frames: a run room's run (package runs) as its players and
// spectators see it, and whom a player out of the run or a spectator
// watches.
//
// A run room sends each of its clients a "run" frame as it joins and
// whenever the run changes: its phase, a seat's state or score, the
// result. A client that watches another (a spectator, or a player the run
// took out) gets a "spectate" frame as it starts watching and whenever it
// watches someone else, and a "watched" frame with that player's health,
// Cash and Wanted stars; the command {"type":"spectate","session":N}
// switches to the player of session N (in a run room, one still in the
// run), and is answered with a reply.

// RunFrame is the run.
type RunFrame struct {
	Type    string `json:"type"`    // "run"
	Mission string `json:"mission"` // the run mission's name
	Title   string `json:"title"`   // what the players see
	Mode    string `json:"mode"`    // "versus" or "coop"
	// Phase is "waiting" (for the roster), "countdown", "live", "ended"
	// (the result is in) or "closed" (the room closes now).
	Phase string `json:"phase"`
	// Tick is the server tick of the frame; Ends the tick the phase
	// ends at, 0 for none: the wait's timeout, the countdown's end, the
	// room's close.
	Tick uint64 `json:"tick"`
	Ends uint64 `json:"ends,omitempty"`
	// You is your seat, -1 for a spectator.
	You   int       `json:"you"`
	Teams []RunTeam `json:"teams"`
	Seats []RunSeat `json:"seats"`
	// Paying is false once a debug command was honoured in the room: the
	// run pays nothing.
	Paying bool       `json:"paying"`
	Result *RunResult `json:"result,omitempty"`
}

// RunTeam is one team: its name and score (its seats' scores summed).
type RunTeam struct {
	Name  string `json:"name"`
	Score int    `json:"score"`
}

// RunSeat is one seat of the run.
type RunSeat struct {
	Seat int    `json:"seat"`
	Name string `json:"name"`
	Team int    `json:"team"`
	// State is "empty" (not come yet), "playing", "dropped" (its player's
	// connection dropped: held for a minute), "out" (out of the run,
	// watching), "out-dropped" or "gone" (for good).
	State string `json:"state"`
	// Connected is whether its player is connected now.
	Connected bool `json:"connected"`
	// Session and Player are its player's in the room, 0 before they came.
	Session uint32 `json:"session,omitempty"`
	Player  uint16 `json:"player,omitempty"`
	// Score is the seat's score; TeamHits the hits it dealt its
	// teammates (each took runs.TeamHitPenalty off the score).
	Score    int  `json:"score"`
	TeamHits int  `json:"teamHits,omitempty"`
	Late     bool `json:"late,omitempty"` // added under way
}

// RunResult is how the run ended.
type RunResult struct {
	// Outcome is "won" (versus: Winner won), "success", "failure",
	// "forfeit" (every other team left: Winner won) or "abandoned".
	Outcome string `json:"outcome"`
	Winner  int    `json:"winner"` // the winning team, -1 for none
	Text    string `json:"text"`
	// NoPay says the run paid nothing: a debug command was honoured in
	// its room.
	NoPay bool `json:"noPay,omitempty"`
}

// SpectateFrame says whom you watch: your view is centred on them.
// Session 0 is nobody (the level's centre).
type SpectateFrame struct {
	Type    string `json:"type"` // "spectate"
	Session uint32 `json:"session"`
	Player  uint16 `json:"player"`
	Name    string `json:"name"`
	// Team is their team in a run room, -1 elsewhere.
	Team int `json:"team"`
}

// WatchedFrame tells a client that watches another player (a spectator,
// or a player a run took out) what that player's own HUD shows: their
// health, Cash and Wanted stars. It comes as the client starts watching
// someone and whenever one of them changes; Player 0 is nobody.
type WatchedFrame struct {
	Type   string `json:"type"` // "watched"
	Player uint16 `json:"player"`
	HP     uint16 `json:"hp"`
	MaxHP  uint16 `json:"maxHp"`
	Cash   int64  `json:"cash"`
	Stars  uint8  `json:"stars"`
	Dead   bool   `json:"dead,omitempty"`
}

// AppendJSON appends f as json.Marshal writes it, allocating nothing once
// b has room: it goes out whenever the watched player's health changes.
func (f *WatchedFrame) AppendJSON(b []byte) []byte {
	b = appendType(b, f.Type)
	b = append(b, `,"player":`...)
	b = strconv.AppendUint(b, uint64(f.Player), 10)
	b = append(b, `,"hp":`...)
	b = strconv.AppendUint(b, uint64(f.HP), 10)
	b = append(b, `,"maxHp":`...)
	b = strconv.AppendUint(b, uint64(f.MaxHP), 10)
	b = append(b, `,"cash":`...)
	b = strconv.AppendInt(b, f.Cash, 10)
	b = append(b, `,"stars":`...)
	b = strconv.AppendUint(b, uint64(f.Stars), 10)
	if f.Dead {
		b = append(b, `,"dead":true`...)
	}
	return append(b, '}')
}
