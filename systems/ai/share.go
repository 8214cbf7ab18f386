package ai

import (
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/nav"
)

// The room's traffic and its crowd are each one budget that every player
// shares. Each ambient car and pedestrian counts for the player nearest to
// it. With two players or more, each one's fair part is the budget over the
// players; a player with under three quarters of their part lacks. While
// any player lacks, the spawns go round the players who lack; and while the
// budget is full, a car or a pedestrian of a player over their part, unseen
// and a spawn distance from every player, is taken away to make the room
// (spare says how many may go). So a player who joins far from the others
// gets their part within seconds, not when the others' cars happen to be
// left behind.

// The budgets, as indices into System.pops and player.n.
const (
	popCars = iota
	popPeds
	popCount
)

// pop is one budget's sharing this tick.
type pop struct {
	fair  int // each player's fair part; 0: not shared (fewer than two players)
	lack  int // how many players lack
	spare int // how many more of those over their part may be taken away
}

// tallyCars counts the ambient cars of the tick for their nearest players
// and shares the traffic's budget.
func (s *System) tallyCars() {
	if len(s.players) < 2 {
		s.pops[popCars] = pop{}
		return
	}
	have := 0
	for i := range s.cars {
		c := &s.cars[i]
		if !c.counted || c.body < 0 {
			continue
		}
		if k, _ := s.nearest(s.bodies[c.body].pos); k >= 0 {
			s.players[k].n[popCars]++
			have++
		}
	}
	s.share(popCars, s.trafficWant-s.guardCars, have)
}

// share works out budget k's sharing from each player's count (player.n)
// and the count of the whole room, have.
func (s *System) share(k, budget, have int) {
	pp := &s.pops[k]
	*pp = pop{}
	n := len(s.players)
	if n < 2 || budget < n {
		return
	}
	pp.fair = budget / n
	deficit := 0
	for i := range s.players {
		pl := &s.players[i]
		pl.lacks[k] = 4*int(pl.n[k]) < 3*pp.fair
		if pl.lacks[k] {
			pp.lack++
			deficit += pp.fair - int(pl.n[k])
		}
	}
	// The free room in the budget goes to those who lack first: only
	// what it does not cover is taken from the others.
	pp.spare = max(deficit-max(budget-have, 0), 0)
}

// moveOff reports whether a car or pedestrian of budget k at p, d from its
// nearest player i, may be taken away to make room for a player who lacks:
// some may still go, i is over their fair part, and p is at least lo from
// every player. It counts the one taken. The caller checks that no player
// sees it, and takes it away.
func (s *System) moveOff(k, i int, d, lo float32) bool {
	pp := &s.pops[k]
	if pp.spare == 0 || i < 0 || d < lo || int(s.players[i].n[k]) <= pp.fair {
		return false
	}
	pp.spare--
	s.players[i].n[k]--
	return true
}

// forLacking reports whether a spawn at p suits budget k's sharing: no
// player lacks, or p's nearest player does.
func (s *System) forLacking(k int, p nav.Vec) bool {
	if s.pops[k].lack == 0 {
		return true
	}
	i, _ := s.nearest(p)
	return i >= 0 && s.players[i].lacks[k]
}

// spawnPlayer draws the player a spawn of budget k goes round: one of
// those who lack when any does, else any.
func (s *System) spawnPlayer(w *ecs.World, k int) *player {
	lack := s.pops[k].lack
	if lack == 0 {
		return &s.players[w.RNG.IntN(len(s.players))]
	}
	r := w.RNG.IntN(lack)
	for i := range s.players {
		if !s.players[i].lacks[k] {
			continue
		}
		if r == 0 {
			return &s.players[i]
		}
		r--
	}
	return &s.players[0] // not reached: lack counts them
}
