package ai_test

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/systems/ai"
	"github.com/fiveonit/engine/systems/systemstest"
)

// crowdedCity returns main-city's free roam with n players spread over
// it, walking each their own way, and a police car chasing the first.
// loop makes the AI's nearest-player queries loop over the players.
func crowdedCity(t testing.TB, n int, loop bool) *rig {
	t.Helper()
	r := newRig(t, systemstest.Load(t, "main-city"), ecs.FreeRoam(), 4, nil)
	if loop {
		ai.LoopPlayers(r.ai)
	}
	var first ecs.Entity
	for i := range n {
		p := r.Character(t, float32(i%8)*110-385, float32(i/8%8)*110-385, 0)
		if i == 0 {
			first = p
		}
	}
	r.policeCar(t, -200, -193.75, 0, first)
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		d.MoveY, d.LookYaw = 1, float32(tick/300)+float32(e.ID())
	}
	return r
}

// TestGridSameWorld runs 40 players' main-city twice from one seed, the
// AI's nearest-player queries on the grid and by the loop: the worlds
// are the same, byte for byte.
func TestGridSameWorld(t *testing.T) {
	run := func(loop bool) []byte {
		r := crowdedCity(t, 40, loop)
		r.Step(60 * 20)
		return dump(r.W)
	}
	sameWorld(t, run(false), run(true), "the grid's world and the loop's differ")
}

// TestCrowdedTickAllocatesNothing: the steady city with 40 players, who
// are filed on the grid: a tick with no spawn allocates nothing.
func TestCrowdedTickAllocatesNothing(t *testing.T) {
	r := steadyCity(t)
	for i := range 39 {
		r.Character(t, float32(i%8)*110-385, float32(i/8%8)*110-385, 0)
	}
	r.Step(120)
	allocs := testing.AllocsPerRun(200, func() { r.W.Step() })
	if allocs != 0 {
		t.Fatalf("%v allocations per tick", allocs)
	}
}
