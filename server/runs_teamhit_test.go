package server

import (
	"fmt"
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs/ecstest"
)

// TestRunTeamHitByRound: with friendly fire, rounds a1 fires from a real
// pistol into a2, a teammate, hurt a2 and count against a1 in the run
// frame: its seat's team hits, and the penalty off its score.
func TestRunTeamHitByRound(t *testing.T) {
	r := newRunRoom(t, false, true, twoVtwo...)
	r.live("a1", "a2", "b1", "b2")
	a1, a2 := r.ps["a1"], r.ps["a2"]
	// step sends a1 d and every other player nothing, and runs a tick.
	step := func(d components.Drive) {
		for _, p := range r.ps {
			if p == a1 {
				p.send(d)
			} else {
				p.send(components.Drive{})
			}
		}
		r.g.Tick()
		for _, p := range r.ps {
			p.read()
		}
	}
	// Both out of their cars, then on foot 10 m apart, north and south,
	// clear of the cars at their place.
	for _, p := range []*probe{a1, a2} {
		p.send(components.Drive{Pressed: components.BtnUse})
	}
	r.g.Tick()
	for range 60 {
		step(components.Drive{})
	}
	for i, p := range []*probe{a2, a1} {
		p.command(fmt.Sprintf(`{"type":"debug","cmd":"teleport","x":130,"y":%d}`, 30+10*i))
		step(components.Drive{})
	}
	a1.command(`{"type":"debug","cmd":"give-item","item":"pistol"}`)
	step(components.Drive{})
	a1.command(`{"type":"debug","cmd":"give-item","item":"pistol-ammo","count":30}`)
	step(components.Drive{})
	from, to := r.g.posOf(r.char("a1")).Pos, r.g.posOf(r.char("a2")).Pos
	if d := math32.Hypot(to.X-from.X, to.Y-from.Y); d < 5 || d > 20 {
		t.Fatalf("a1 and a2 stand %.1f m apart, want about 10", d)
	}
	aim := math32.Atan2(to.Y-from.Y, to.X-from.X)
	step(components.Drive{Pressed: components.BtnWeapon, LookYaw: aim})
	for range 60 {
		step(components.Drive{Held: components.BtnFire, LookYaw: aim})
	}
	h := ecstest.Get[components.Health](r.g.World(), r.char("a2"))
	if h.HP >= h.Max {
		t.Fatalf("a2 after a1's rounds: %d of %d hp, want hurt", h.HP, h.Max)
	}
	f := r.run(a1)
	if s := f.Seats[0]; s.TeamHits == 0 || s.Score >= 0 {
		t.Fatalf("a1 after hitting a teammate with rounds: %+v, want team hits and a penalty", s)
	}
	if s := f.Seats[2]; s.TeamHits != 0 {
		t.Errorf("b1, who fired nothing: %+v", s)
	}
}
