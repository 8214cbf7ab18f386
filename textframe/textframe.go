// Package textframe defines the protocol's text frames: JSON objects with a
// "type", sent on the reliable channel (the welcome, the clock, Wanted and
// status updates, the inventory and container frames, replies and errors,
// the room's roster, chat and votes from the server; debug, phone, item and
// social commands from a client). The binary frames are package
// netsync/wire's. Each frame is documented on its type, field by field:
// here, in items.go for what players hold, and in social.go.
package textframe

import (
	"encoding/json"
)

// Welcome is the first frame a client gets: who it is, where, the rules
// and constants its client needs, and the level's zones and races for the
// minimap.
type Welcome struct {
	Type      string          `json:"type"` // "welcome"
	Session   uint32          `json:"session"`
	Player    uint16          `json:"player"`
	Name      string          `json:"name"`
	Party     uint16          `json:"party"`              // your party's number in the room, 0 none
	Character uint16          `json:"character"`          // wire id, 0 for a spectator
	Car       uint16          `json:"car"`                // wire id of the car you start in
	Spectate  bool            `json:"spectate,omitempty"` // you watch without a character
	Watch     uint16          `json:"watch,omitempty"`    // the player you watch (0: the first)
	Room      string          `json:"room"`
	Level     string          `json:"level"`
	Game      string          `json:"game"`  // the game the room plays (package games)
	Rules     json.RawMessage `json:"rules"` // the game's rules (ecs.Rules)
	Debug     bool            `json:"debug"` // your debug commands are honoured
	Acked     bool            `json:"acked"` // you get acked snapshots (kind 6)
	Tick      uint64          `json:"tick"`  // the server's tick now
	// Rejoin is the reconnect token of your place: a join that presents
	// it (rejoin=) within RejoinSeconds of a drop takes your character
	// and car back. "" where the room holds no places. Keep it secret.
	Rejoin        string          `json:"rejoin,omitempty"`
	RejoinSeconds float64         `json:"rejoinSeconds,omitempty"`
	Consts        WelcomeConsts   `json:"consts"` //
	Zones         []WelcomeZone   `json:"zones,omitempty"`
	Items         []WelcomeItem   `json:"items,omitempty"`   // the room's item catalog, by id (items.go)
	Races         []WelcomeRace   `json:"races,omitempty"`   // signals.go
	Garages       []WelcomeGarage `json:"garages,omitempty"` // cars.go
}

// WelcomeConsts are the protocol constants a client needs.
type WelcomeConsts struct {
	TickRate       int     `json:"tickRate"`
	SnapshotEvery  int     `json:"snapshotEvery"`
	InputsPerFrame int     `json:"inputsPerFrame"`
	AOIRadius      float32 `json:"aoiRadius"`
	CheckEvery     int     `json:"checkEvery"`
}

// WelcomeZone is a safe or restricted zone, for the minimap.
type WelcomeZone struct {
	ID      string       `json:"id"`
	Kind    string       `json:"kind"`
	Polygon [][2]float32 `json:"polygon"`
}

// ClockFrame tells the time of day: sent on join and whenever it is set.
type ClockFrame struct {
	Type    string  `json:"type"` // "clock"
	Minutes float64 `json:"minutes"`
	Pace    float64 `json:"pace"`
	Tick    uint64  `json:"tick"`
}

// WantedFrame tells a player their Wanted level when it changes; Fine is
// set (and Arrested true) when they have just been arrested.
type WantedFrame struct {
	Type     string  `json:"type"` // "wanted"
	Stars    uint8   `json:"stars"`
	Heat     float32 `json:"heat"`
	Arrested bool    `json:"arrested,omitempty"`
	Fine     int64   `json:"fine,omitempty"`
	Cash     int64   `json:"cash"`
}

// StatusFrame tells a player their own state when it changes: health,
// cash; and when they die, what killed them and when they come back.
type StatusFrame struct {
	Type  string `json:"type"` // "status"
	HP    uint16 `json:"hp"`
	MaxHP uint16 `json:"maxHp"`
	Cash  int64  `json:"cash"`
	Dead  bool   `json:"dead,omitempty"`
	// Cause is what killed a dead player: "shot", "run-over" (a vehicle
	// hit them on foot), "crash" (another collision), "explosion" (a
	// grenade, or a wreck blowing up beside them), "wreck" (the vehicle
	// they sat in was wrecked and blew up); "" unknown.
	Cause string `json:"cause,omitempty"`
	// By is who killed them: "player" (ByPlayer is their number in the
	// room, the roster's; it may be their own), "police", "guard", "car"
	// (one no player drove), "pedestrian"; for a wreck, what wrecked it;
	// "" nothing but themselves.
	By       string `json:"by,omitempty"`
	ByPlayer uint16 `json:"byPlayer,omitempty"`
	// RespawnIn is the seconds until they come back, from this frame; 0
	// (left out) when the rules leave them dead.
	RespawnIn float64 `json:"respawnIn,omitempty"`
}

// ReplyFrame answers a command: OK, or the reason it was refused.
type ReplyFrame struct {
	Type  string `json:"type"`         // "reply"
	ID    uint32 `json:"id,omitempty"` // the command's id
	Cmd   string `json:"cmd"`          // the command's cmd; an item command's type
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// ErrorFrame reports a problem with what the client sent.
type ErrorFrame struct {
	Type  string `json:"type"` // "error"
	Error string `json:"error"`
}

// Command is a text frame from a client: a debug command, a phone command,
// a mode switch, an item command (items.go lists them) or a social command
// (social.go). Unknown fields are refused.
type Command struct {
	Type string `json:"type"` // "debug", "phone", "mode", an item command ("pickup", "drop", "use", "move", "open", "take", "put", "close", "buy"), a car command ("lock", "unlock", "keep", "takeout", "callcar") or a social one ("chat", "quickchat", "emote", "vote", "party")
	ID   uint32 `json:"id,omitempty"`
	Cmd  string `json:"cmd"`
	// Arguments, by command.
	X       *float32 `json:"x,omitempty"`
	Y       *float32 `json:"y,omitempty"`
	Yaw     float32  `json:"yaw,omitempty"`
	Model   uint8    `json:"model,omitempty"`
	Minutes *float64 `json:"minutes,omitempty"`
	Pace    *float64 `json:"pace,omitempty"`
	Target  uint16   `json:"target,omitempty"` // a wire id; 0 is yourself
	Stars   *uint8   `json:"stars,omitempty"`
	Value   string   `json:"value,omitempty"`
	// Slot, To and Count, for an item command: an inventory's or a
	// container's slot (from 0), the slot to move to, how many (0 or
	// none: all; a buy's default is one). Item is an item's name (buy, and
	// the debug command give-item); Place a level's container or shop id.
	Slot  *int   `json:"slot,omitempty"`
	To    *int   `json:"to,omitempty"`
	Count int    `json:"count,omitempty"`
	Item  string `json:"item,omitempty"`
	Place string `json:"place,omitempty"`
	Phase *int   `json:"phase,omitempty"` // "signal": the phase to hold, -1 red; none releases
	// Acked, for a "mode" frame: switch to the acked snapshots (true) or
	// the ordered ones (false); the first frame of the new kind is a
	// keyframe.
	Acked *bool `json:"acked,omitempty"`
	// SocialArgs are the social commands' arguments.
	SocialArgs
	// MissionArgs are the phone commands' arguments (missions.go).
	MissionArgs
}

// Marshal returns the JSON of one of this package's frames.
func Marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only this package's frame types are marshalled
	}
	return b
}

// Type returns the "type" of a text frame, "" if it has none.
func Type(b []byte) string {
	var t struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(b, &t) != nil {
		return ""
	}
	return t.Type
}

// ReadoutFrame is the debug readout, twice a second to every client whose
// debug commands are honoured: the traffic and crowd against what the room
// keeps, every chaser's state, and in a room with guards or cameras the
// stealth's.
type ReadoutFrame struct {
	Type            string          `json:"type"` // "readout"
	Tick            uint64          `json:"tick"`
	Traffic         int             `json:"traffic"`
	TrafficWant     int             `json:"trafficWant"`
	Pedestrians     int             `json:"pedestrians"`
	PedestriansWant int             `json:"pedestriansWant"`
	Chasers         []ReadoutChaser `json:"chasers"`
	Stealth         *ReadoutStealth `json:"stealth,omitempty"`
}

// ReadoutChaser is one chaser of the readout.
type ReadoutChaser struct {
	ID     uint16  `json:"id"`     // the chaser's wire id
	Target uint16  `json:"target"` // its target's wire id, 0 none
	Mode   string  `json:"mode"`
	Dist   float32 `json:"dist"`  // metres to the target
	Speed  float32 `json:"speed"` // m/s
	Sees   bool    `json:"sees"`
	Lane   int32   `json:"lane"` // the lane it follows, -1 none
}
