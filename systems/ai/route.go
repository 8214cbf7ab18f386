package ai

// Route is the AI's state for a vehicle it drives (an ambient car, a
// chaser): plain data, kept on the vehicle so the world holds all of it.
// The AI gives it to the traffic it spawns and to any other vehicle it
// starts driving (a police car with a Chaser).
type Route struct {
	// Lane is the lane the vehicle follows (an index into the level's
	// Roads.Lanes), -1 when it has none yet; Next is the lane it turns onto
	// at Lane's end, -1 not chosen.
	Lane, Next int32
	// Mode is what the vehicle is doing (Mode* constants).
	Mode uint8
	// Timer counts down the ticks left of a manoeuvre (reversing out).
	Timer uint16
	// Stuck counts the ticks a chaser has wanted to go and not moved.
	Stuck uint16
	// Waited counts the ticks a car has stood behind something in its way.
	Waited uint32
}

// The modes of a Route.
const (
	ModeFollow  uint8 = iota // along the lanes
	ModeDirect               // straight at the target (a chaser close by)
	ModeReverse              // backing out of where it got stuck
	ModeIdle                 // no target, or nowhere to go: stopped
	ModeLost                 // off the road graph with no lane near: stopped
)

var modeNames = [...]string{"follow", "direct", "reverse", "idle", "lost"}

// ModeName returns the mode's name as the readout spells it.
func ModeName(m uint8) string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return "mode?"
}
