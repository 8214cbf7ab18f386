package netsync

import (
	"testing"

	"github.com/fiveonit/engine/netsync/wire"
)

// TestNewcomersByStep: an entity that walks into the area of interest, and
// entities the centre walks up to, are held from the first frame they are
// within the enter radius, although only a thin ring of the grid is looked
// at (1 m cells, so that a ring too thin shows).
func TestNewcomersByStep(t *testing.T) {
	for _, c := range []struct {
		name   string
		vx     float32 // the walker's speed along -X, m/s
		centre float32 // the centre's step along +X per frame, m
	}{
		{"entity walks in", 30, 0},
		{"centre walks up", 0, 2},
		{"both", 20, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := NewArena()
			a.grid.setCell(1)
			enc := NewEncoder(a)
			view := View{}
			ents := map[uint16]*wire.Entity{}
			for i := range 80 { // a line of entities from 252 m out
				ents[uint16(i+1)] = &wire.Entity{Kind: wire.KindPedestrian, Pos: wire.Vec3{X: 252 + float32(i)*0.25, Y: float32(i%5) * 3}, Lin: wire.Vec3{X: -c.vx}}
			}
			tick := uint32(0)
			for frame := 0; frame < 60; frame++ {
				for range wire.SnapshotEvery {
					tick++
					a.Begin(tick)
					for wid := uint16(1); wid <= 80; wid++ {
						e := ents[wid]
						e.Pos.X += e.Lin.X / 60
						a.Put(wid, e, false)
					}
					a.End()
				}
				view.Center.X += c.centre
				enc.Encode(&view)
				for wid := uint16(1); wid <= 80; wid++ {
					x, y := a.ground(wid)
					dx, dy := x-view.Center.X, y-view.Center.Y
					if dx*dx+dy*dy <= wire.AOIRadius*wire.AOIRadius && enc.State().Get(wid) == nil {
						t.Fatalf("frame %d: entity %d at %.2f m is not held", frame, wid, dx)
					}
				}
			}
		})
	}
}
