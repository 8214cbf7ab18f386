package ecs

import "math"

// MinutesPerDay is the length of the room clock's day.
const MinutesPerDay = 24 * 60

// Clock is the room's tick count and its time of day. The time of day is a
// pure function of the tick (the start and pace set at some tick), so it is
// the same on every replay and needs no per-tick state.
type Clock struct {
	// Tick is the number of ticks the world has run.
	Tick uint64

	setTick  uint64
	setMin   float64
	pace     float64 // game minutes per real second
	revision uint32
}

// Set sets the time of day to minute (minutes after midnight) at tick, going
// on at pace game minutes per real second from there.
func (c *Clock) Set(tick uint64, minute, pace float64) {
	c.setTick = tick
	c.setMin = math.Mod(math.Mod(minute, MinutesPerDay)+MinutesPerDay, MinutesPerDay)
	if math.IsNaN(c.setMin) {
		c.setMin = 0
	}
	if math.IsNaN(pace) || math.IsInf(pace, 0) {
		pace = 0
	}
	c.pace = pace
	c.revision++
}

// SetNow sets the time of day from the current tick on.
func (c *Clock) SetNow(minute, pace float64) { c.Set(c.Tick, minute, pace) }

// Minutes returns the time of day in minutes after midnight, in [0, 1440).
func (c *Clock) Minutes() float64 {
	m := c.setMin + float64(c.Tick-c.setTick)/TickRate*c.pace
	return math.Mod(m, MinutesPerDay)
}

// Pace returns game minutes per real second.
func (c *Clock) Pace() float64 { return c.pace }

// Revision counts the times the clock was set: a change tells the server to
// send the clock to every player again.
func (c *Clock) Revision() uint32 { return c.revision }
