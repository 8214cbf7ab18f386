package loadgen

import (
	"encoding/binary"
	"slices"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/client"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/mlange-42/arche/generic"
)

// The distance bands Drawn sorts the errors into, in metres from the
// client's own character: near (under BandNear), mid (up to BandFar), far.
const (
	BandNear = 50
	BandFar  = 200
)

// movedAway (m) is how far the server's entity must be from the pose a
// client holds for the time since that pose to count as a gap: an entity
// that stayed where it was (at rest, or pushing against a wall) rightly
// gets no new pose.
const movedAway = 0.5

// Drawn measures what the bots draw against the server's world: for each
// remote entity a client draws, the distance between where it draws it
// and where the server has it at that moment, by the entity's distance
// from the client's own character (the bands); and the longest an entity
// a client held went without a newer pose than the one it holds while
// the server's had moved on from it (by more than movedAway).
type Drawn struct {
	// Near, Mid and Far are the errors in metres, one per entity drawn
	// per sample.
	Near, Mid, Far []float32
	// MaxGapTicks is the longest, in server ticks, a moving entity a
	// client held went with the pose it holds; MaxGapBand its band (0
	// near, 1 mid, 2 far).
	MaxGapTicks uint32
	MaxGapBand  int

	buf   []client.Visible
	poses *generic.Map2[components.Pose, components.Velocity]
	since map[uint32]uint32 // by bot and wire id: the tick its held pose was first found off
}

// SampleDrawn adds the bots' drawn errors of now to d: call it between
// steps, every few ticks.
func (f *Farm) SampleDrawn(d *Drawn) {
	w := f.G.World()
	if d.poses == nil {
		m := generic.NewMap2[components.Pose, components.Velocity](w.Arche)
		d.poses = &m
	}
	tick := uint32(w.Tick())
	if d.since == nil {
		d.since = map[uint32]uint32{}
	}
	for bi, b := range f.Bots {
		wl, ok := b.Client.Welcome()
		if !ok {
			continue
		}
		self, ok := w.ByWireID(wl.Character)
		if !ok {
			continue
		}
		me, _ := d.poses.Get(self)
		d.buf = b.Client.View(d.buf[:0])
		st := b.Client.Decoder().Store()
		for i := range d.buf {
			v := &d.buf[i]
			if v.Predicted || v.EID == wl.Character || v.EID == wl.Car || v.Act == wire.ActDriving || v.Act == wire.ActPassenger {
				continue // its own, or a person drawn at the vehicle it sits in
			}
			e, ok := w.ByWireID(v.EID)
			if !ok {
				continue // gone on the server: its removal is on its way
			}
			pose, _ := d.poses.Get(e)
			if pose == nil {
				continue
			}
			band := bandOf(math32.Hypot(pose.Pos.X-me.Pos.X, pose.Pos.Y-me.Pos.Y))
			err := math32.Hypot(v.Pos.X-pose.Pos.X, v.Pos.Y-pose.Pos.Y)
			switch band {
			case 0:
				d.Near = append(d.Near, err)
			case 1:
				d.Mid = append(d.Mid, err)
			default:
				d.Far = append(d.Far, err)
			}
			h := st.Get(v.EID)
			if h == nil || h.PoseFull {
				continue
			}
			// Off since when: the first sample that found the held pose
			// more than movedAway from the server's.
			key := uint32(bi)<<16 | uint32(v.EID)
			hx := float32(int32(binary.LittleEndian.Uint32(h.Rec[wire.PositionAt:]))) / wire.PositionScale
			hy := float32(int32(binary.LittleEndian.Uint32(h.Rec[wire.PositionAt+4:]))) / wire.PositionScale
			if math32.Hypot(pose.Pos.X-hx, pose.Pos.Y-hy) <= movedAway || h.PoseTick > d.since[key] {
				delete(d.since, key) // held where it is, or a newer pose came
			}
			if math32.Hypot(pose.Pos.X-hx, pose.Pos.Y-hy) <= movedAway {
				continue
			}
			since, ok := d.since[key]
			if !ok {
				d.since[key] = tick
				continue
			}
			if tick-since > d.MaxGapTicks {
				d.MaxGapTicks, d.MaxGapBand = tick-since, band
			}
		}
	}
}

func bandOf(dist float32) int {
	switch {
	case dist < BandNear:
		return 0
	case dist <= BandFar:
		return 1
	}
	return 2
}

// Quantile returns the q-quantile (0..1) of errs, sorting them; 0 for
// none.
func Quantile(errs []float32, q float64) float32 {
	if len(errs) == 0 {
		return 0
	}
	slices.Sort(errs)
	return errs[min(int(float64(len(errs)-1)*q+0.5), len(errs)-1)]
}

// GapSeconds returns d's longest gap in seconds.
func (d *Drawn) GapSeconds() float64 { return float64(d.MaxGapTicks) / ecs.TickRate }
