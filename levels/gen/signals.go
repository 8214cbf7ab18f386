package main

import (
	"fmt"

	"github.com/fiveonit/engine/levels"
)

// The traffic signals' timing, in seconds: a 36 s cycle everywhere, the
// major road's way given the longer green where a major road crosses a
// minor one.
const (
	signalAmber      = 3
	signalGreenMajor = 18 // the major road's way, crossing a minor road
	signalGreenMinor = 12 // the minor road's way, crossing a major road
	signalGreenEven  = 15 // either way where like roads cross
	signalCycle      = signalGreenMajor + signalGreenMinor + 2*signalAmber
	// signalWave sets each crossing this much further into the cycle
	// than the one south or west of it: about the time a car takes from
	// one to the next, so the lights roll on ahead of it.
	signalWave = 6
)

// signals puts a traffic signal at every intersection of the grid where a
// major road meets another road (the corners of the ring road are bends,
// not crossings); where two minor streets cross, and at the driveways, the
// junction rules alone hold. Each signal has two phases: the lanes coming
// in east-west, then those coming in north-south. Run it after roads.
func (b *builder) signals() {
	for j := range lines {
		for i := range lines {
			corner := (i == 0 || i == lines-1) && (j == 0 || j == lines-1)
			if corner || !major(i) && !major(j) {
				continue
			}
			node := gridNode(i, j)
			var ew, ns []int
			for _, ln := range b.l.Roads.Lanes {
				if ln.To != node {
					continue
				}
				if b.nodePos(ln.From).Y == float32(line(j)) {
					ew = append(ew, ln.ID)
				} else {
					ns = append(ns, ln.ID)
				}
			}
			greenEW, greenNS := float32(signalGreenEven), float32(signalGreenEven)
			switch {
			case major(j) && !major(i):
				greenEW, greenNS = signalGreenMajor, signalGreenMinor
			case major(i) && !major(j):
				greenEW, greenNS = signalGreenMinor, signalGreenMajor
			}
			b.l.Roads.Signals = append(b.l.Roads.Signals, levels.Signal{
				ID:   fmt.Sprintf("signal-%d-%d", i, j),
				Node: node,
				Phases: []levels.SignalPhase{
					{Lanes: ew, Green: greenEW},
					{Lanes: ns, Green: greenNS},
				},
				Amber:  signalAmber,
				Offset: float32((i + j) * signalWave % signalCycle),
			})
		}
	}
}

// nodePos returns the position of the node of id.
func (b *builder) nodePos(id int) levels.Vec2 {
	for _, n := range b.l.Roads.Nodes {
		if n.ID == id {
			return n.Pos
		}
	}
	panic(fmt.Sprintf("gen: no node %d", id))
}

// races lays out the level's races, their gates across the whole road in
// the middle of a block (never on a crossing):
//
//   - downtown-loop, a circuit round the middle of the city on the streets
//     two blocks in from the ring road, anticlockwise, two gates a side;
//     it crosses the central avenues at their signals;
//   - avenue-sprint, from the south ring road up the north-south avenue
//     through every one of its signals to the north ring road.
func (b *builder) races() {
	const (
		lo, hi = 2, 6 // the loop's road lines
	)
	mid := func(k int) float64 { return line(k) + pitch/2 } // block k's middle
	var loop []levels.RaceGate
	gate := func(x, y float64, yaw float32, width float64) {
		loop = append(loop, levels.RaceGate{Pos: v(x, y), Yaw: yaw, Width: float32(width)})
	}
	road := 2 * halfWidth(lo) // kerb to kerb of the loop's streets
	gate(mid(lo), line(lo), east, road)
	gate(mid(lo+2), line(lo), east, road)
	gate(line(hi), mid(lo), north, road)
	gate(line(hi), mid(lo+2), north, road)
	gate(mid(hi-1), line(hi), west, road)
	gate(mid(hi-3), line(hi), west, road)
	gate(line(lo), mid(hi-1), south, road)
	gate(line(lo), mid(hi-3), south, road)
	b.race("downtown-loop", true, loop)

	loop = nil
	avenue := lines / 2
	for _, k := range []int{0, 2, 4, 6, lines - 2} {
		gate(line(avenue), mid(k), north, 2*halfWidth(avenue))
	}
	b.race("avenue-sprint", false, loop)
}

// race adds a race, naming its gates after it in order.
func (b *builder) race(id string, loop bool, gates []levels.RaceGate) {
	for k := range gates {
		gates[k].ID = fmt.Sprintf("%s-%d", id, k)
	}
	b.l.Races = append(b.l.Races, levels.Race{ID: id, Loop: loop, Gates: gates})
}
