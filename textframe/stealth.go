package textframe

import "strconv"

// StealthFrame tells a player, in a room with guards or cameras, whether a
// guard or a camera has them in sight, whether an alert guard is after
// them, and the room's alert: on joining, then whenever one of them
// changes. "In sight" means seen with suspicion building (a player in a car
// the guards do not know is stolen is looked at, not seen).
type StealthFrame struct {
	Type   string `json:"type"`   // "stealth"
	Seen   bool   `json:"seen"`   // a guard or a camera has you in sight (guard or camera)
	Guard  bool   `json:"guard"`  // a guard has you in sight
	Camera bool   `json:"camera"` // a camera has you in sight
	Chased bool   `json:"chased"` // an alert guard is after you
	Alert  bool   `json:"alert"`  // the room's alert is up: the guards are on the lookout
}

// AppendJSON appends f as json.Marshal writes it.
func (f *StealthFrame) AppendJSON(b []byte) []byte {
	b = appendType(b, f.Type)
	b = append(b, `,"seen":`...)
	b = strconv.AppendBool(b, f.Seen)
	b = append(b, `,"guard":`...)
	b = strconv.AppendBool(b, f.Guard)
	b = append(b, `,"camera":`...)
	b = strconv.AppendBool(b, f.Camera)
	b = append(b, `,"chased":`...)
	b = strconv.AppendBool(b, f.Chased)
	b = append(b, `,"alert":`...)
	b = strconv.AppendBool(b, f.Alert)
	return append(b, '}')
}

// ReadoutStealth is the debug readout's stealth part, in a room with
// guards or cameras: the room's alert, the light, and every sentry and
// camera with what it sees (the page draws their view cones from it).
type ReadoutStealth struct {
	Alert      bool            `json:"alert"`      // the room's alert is up
	AlertSince uint64          `json:"alertSince"` // the tick it went up
	Light      float32         `json:"light"`      // 1 by day, less at night: the sentries' rates and ranges scale with it
	Entries    uint64          `json:"entries"`    // entries ever written in the room's book
	Sentries   []ReadoutSentry `json:"sentries"`
	Cameras    []ReadoutCamera `json:"cameras"`
}

// ReadoutSentry is one sentry of the readout.
type ReadoutSentry struct {
	ID        uint16  `json:"id"`        // the guard's wire id
	Phase     string  `json:"phase"`     // "idle", "suspicious", "alert" or "searching"
	Suspicion float32 `json:"suspicion"` // 0..1: suspicious from 0.25, alert at 1
	Target    uint16  `json:"target"`    // the wire id of the player it watches or chases, 0 none
	X         float32 `json:"x"`         // where it stands, m
	Y         float32 `json:"y"`
	Yaw       float32 `json:"yaw"`   // the way it faces, rad
	Range     float32 `json:"range"` // how far it sees now, m
	Cone      float32 `json:"cone"`  // half its field of view, rad
}

// ReadoutCamera is one camera of the readout.
type ReadoutCamera struct {
	ID     uint16  `json:"id"`    // the camera's wire id, 0 when it has none
	Name   string  `json:"name"`  // the level's id of it
	X      float32 `json:"x"`     // where it hangs, m
	Y      float32 `json:"y"`     //
	Yaw    float32 `json:"yaw"`   // the way it faces now, rad
	Arc    float32 `json:"arc"`   // its field of view, rad
	Range  float32 `json:"range"` // how far it sees, m
	Broken bool    `json:"broken"`
	Target uint16  `json:"target"` // the wire id of the player in view, 0 none
	Spot   float32 `json:"spot"`   // 0..1: at 1 the player is spotted
}
