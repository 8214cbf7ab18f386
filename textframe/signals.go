package textframe

// WelcomeRace is a race of the level (levels.Race), for the minimap: its
// gates in the order they are driven.
type WelcomeRace struct {
	ID    string            `json:"id"`
	Loop  bool              `json:"loop,omitempty"` // a circuit: the last gate leads back to the first
	Gates []WelcomeRaceGate `json:"gates"`
}

// WelcomeRaceGate is a race gate (a checkpoint): a line Width metres long
// across the road, centred on Pos ([x, y], metres), that a car drives
// through heading Yaw (radians, 0 east, counter-clockwise).
type WelcomeRaceGate struct {
	ID    string     `json:"id"`
	Pos   [2]float32 `json:"pos"`
	Yaw   float32    `json:"yaw"`
	Width float32    `json:"width"`
}

// SignalsFrame tells the traffic signals a mission holds by hand: sent to
// every player as they join a room whose level has signals, and again
// whenever a signal is held or released. A signal it does not list runs
// its cycle, which the client works out from the level and the server's
// tick (levels.Signal, FORMAT.md), so the ordinary cycling sends nothing.
type SignalsFrame struct {
	Type string       `json:"type"` // "signals"
	Held []HeldSignal `json:"held"` // every signal held, in the level's order; [] for none
}

// HeldSignal is a signal held by hand.
type HeldSignal struct {
	ID    string `json:"id"`    // the signal's id in the level (roads.signals[].id)
	Phase int    `json:"phase"` // the phase held: its lanes green, every other red; -1 is red for every lane
}
