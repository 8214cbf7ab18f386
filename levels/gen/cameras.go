package main

import (
	"math"

	"github.com/fiveonit/engine/levels"
)

// cameras mounts the security cameras: two in the gated yard and two at the
// police station, each sweeping. They look over the open ground the guards
// patrol and the police's car park, and leave the walls' shade and the
// vans' lee out of their cones, so a careful player can get by them.
func (b *builder) cameras() {
	y := lotArea(yardBlock[0], yardBlock[1])
	const gap = 5 // half the yard gate's opening, as yard() makes it
	p := lotArea(policeBlock[0], policeBlock[1])
	b.l.Cameras = append(b.l.Cameras,
		// Beside the yard gate, inside, looking north up the yard.
		levels.Camera{ID: "yard-cam-gate", Pos: v(y.cx()+gap+1, y.y0+1.5), Yaw: north, Arc: 1, Range: 28, Sweep: 0.7, Period: 10},
		// In the corner east of the warehouse, looking south-west across
		// the yard.
		levels.Camera{ID: "yard-cam-corner", Pos: v(y.x1-1.5, y.y0+38.5), Yaw: -3 * math.Pi / 4, Arc: 1, Range: 35, Sweep: 0.6, Period: 12},
		// In the car park's south-west corner, looking north-east over it.
		levels.Camera{ID: "police-cam-lot", Pos: v(p.x0+1.5, p.y0+1.5), Yaw: math.Pi / 4, Arc: 1.2, Range: 40, Sweep: 0.6, Period: 10},
		// Before the station's front, looking south over the car park.
		levels.Camera{ID: "police-cam-door", Pos: v(p.cx()-8, p.y0+31), Yaw: south, Arc: 1.2, Range: 25, Sweep: 0.8, Period: 8},
	)
}
