package main

import "github.com/fiveonit/engine/levels"

// missionSpawns adds the guard spawns the missions' chasers come out of,
// out on the streets: in the middle of six road segments spread over the
// city, on the lane that drives on (right-hand traffic), so that wherever
// a player is, one lies a few blocks away. The yard's two guard spawns
// (yard) are inside its wall, behind a keyed gate: chasers out of them
// would stay in. They go after every other spawn, so that no spawn's
// index moves.
func (b *builder) missionSpawns() {
	mid := func(seg int) float64 { return line(seg) + pitch/2 }
	for _, s := range []struct {
		vertical  bool
		road, seg int
		yaw       float32
	}{
		{true, 1, 1, north}, {true, 3, 5, south}, {true, 5, 2, north}, {true, 7, 5, south},
		{false, 3, 5, east}, {false, 5, 2, west},
	} {
		side := laneWidth / 2 // to the right of the heading
		if s.yaw == south || s.yaw == east {
			side = -side
		}
		if s.vertical {
			b.spawn(levels.RoleGuard, line(s.road)+side, mid(s.seg), s.yaw)
		} else {
			b.spawn(levels.RoleGuard, mid(s.seg), line(s.road)+side, s.yaw)
		}
	}
}
