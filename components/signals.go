package components

import "github.com/fiveonit/engine/levels"

// Light is what a traffic signal shows the cars at the end of a lane.
type Light uint8

// The lights. LightNone is a lane that ends at no signal: the junction
// rules alone hold there. The values are the level format's
// (levels.SignalLight), whose signal plan works them out.
const (
	LightNone  = Light(levels.SignalNone)
	LightGreen = Light(levels.SignalGreen)
	LightAmber = Light(levels.SignalAmber)
	LightRed   = Light(levels.SignalRed)
)

// Stop reports whether a car coming to the light stops before the junction
// (unless too near to stop): at amber and at red.
func (l Light) Stop() bool { return l >= LightAmber }

// Signals is the world's resource (arche's: generic.NewResource) of the
// traffic signals' lights this tick. The signals system adds it and writes
// it in the pre-step; the AI reads it after. A world without the resource
// has no signals.
type Signals struct {
	// Lanes is the light at the end of each lane of the level, by index in
	// Roads.Lanes: LightNone where no signal stands.
	Lanes []Light
}
