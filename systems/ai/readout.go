package ai

import (
	"strconv"

	"github.com/fiveonit/engine/ecs"
)

// Readout is what the AI tells a debug client: the traffic and crowd
// counts against what the room keeps, and every chaser's state.
type Readout struct {
	Tick                         uint64
	Traffic, TrafficWant         int
	Pedestrians, PedestriansWant int
	// Chasers are the chasers: the vehicles by wire id, then the officers
	// on foot.
	Chasers []ChaserState
}

// ChaserState is one chaser in the readout.
type ChaserState struct {
	WireID uint16 // the chaser
	Target uint16 // its target's wire id, 0 none
	Mode   uint8  // what it does (Mode* constants)
	Dist   float32
	Speed  float32
	Sees   bool
	Lane   int32 // the lane it follows, -1 none
}

// Readout returns the last tick's readout. Its Chasers are the system's
// own and change with the next Update: copy what you keep, or write it out
// with AppendText.
func (s *System) Readout() Readout { return s.readout }

// fillReadout records the tick's counts and chasers.
func (s *System) fillReadout(w *ecs.World) {
	r := &s.readout
	r.Tick = w.Tick()
	r.Traffic, r.TrafficWant = s.traffic, s.trafficWant
	r.Pedestrians, r.PedestriansWant = s.crowd, s.crowdWant
	r.Chasers = r.Chasers[:0]
	for _, c := range s.chasers {
		r.Chasers = append(r.Chasers, ChaserState{
			WireID: c.wid, Target: c.target, Mode: c.mode, Dist: c.dist, Speed: c.speed, Sees: c.sees, Lane: c.lane,
		})
	}
}

// AppendText appends the readout as one line of text per chaser after a
// header, the debug frame's body:
//
//	ai tick 1200 traffic 40/40 crowd 58/60 chasers 1
//	chaser 12 -> 3 follow 84.2m 17.9m/s lane 17 unseen
func (r *Readout) AppendText(b []byte) []byte {
	b = append(b, "ai tick "...)
	b = strconv.AppendUint(b, r.Tick, 10)
	b = append(b, " traffic "...)
	b = strconv.AppendInt(b, int64(r.Traffic), 10)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(r.TrafficWant), 10)
	b = append(b, " crowd "...)
	b = strconv.AppendInt(b, int64(r.Pedestrians), 10)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(r.PedestriansWant), 10)
	b = append(b, " chasers "...)
	b = strconv.AppendInt(b, int64(len(r.Chasers)), 10)
	for _, c := range r.Chasers {
		b = append(b, "\nchaser "...)
		b = strconv.AppendUint(b, uint64(c.WireID), 10)
		b = append(b, " -> "...)
		b = strconv.AppendUint(b, uint64(c.Target), 10)
		b = append(b, ' ')
		b = append(b, ModeName(c.Mode)...)
		b = append(b, ' ')
		b = strconv.AppendFloat(b, float64(c.Dist), 'f', 1, 32)
		b = append(b, "m "...)
		b = strconv.AppendFloat(b, float64(c.Speed), 'f', 1, 32)
		b = append(b, "m/s lane "...)
		b = strconv.AppendInt(b, int64(c.Lane), 10)
		if c.Sees {
			b = append(b, " sees"...)
		} else {
			b = append(b, " unseen"...)
		}
	}
	return b
}
