package server

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/systems/city"
)

// TestStatusTellsTheDeath: a player killed is told in the status frame
// what killed them, who did (another player, by their number), and in
// how many seconds they come back; a death no system saw (a debug kill)
// has no cause; a player back alive is told no cause.
func TestStatusTellsTheDeath(t *testing.T) {
	l, err := levels.Load("test-flat")
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{Room: "deaths", Level: l, Seed: 1, Rules: ecs.FreeRoam()})
	if err != nil {
		t.Fatal(err)
	}
	a, b := join(t, g, Who{Debug: true}), join(t, g, Who{Debug: true})
	ps := []*probe{a, b}
	run(g, ps, 2, nil)
	// a's grenade at b's feet, its fuse out next tick.
	pos := g.posOf(b.s.char).Pos
	if _, err := g.pf.Thrown(pos, components.Vec3{}, components.Projectile{By: a.s.char, Blast: g.w.Tick() + 1, Radius: 8, Harm: 500}); err != nil {
		t.Fatal(err)
	}
	run(g, ps, 3, nil)
	st := b.lastText("status")
	an := g.ids.Get(a.s.char)
	if st == nil || st["dead"] != true || st["cause"] != "explosion" || st["by"] != "player" || st["byPlayer"] != float64(an.Player) {
		t.Fatalf("status after a's grenade: %v, want dead by explosion, by player %d", st, an.Player)
	}
	if in, _ := st["respawnIn"].(float64); in <= city.RespawnTicks/ecs.TickRate-0.1 || in > city.RespawnTicks/ecs.TickRate {
		t.Fatalf("respawnIn %v, want about %d s", st["respawnIn"], city.RespawnTicks/ecs.TickRate)
	}
	run(g, ps, city.RespawnTicks, nil)
	if st := b.lastText("status"); st["dead"] == true || st["cause"] != nil || st["respawnIn"] != nil {
		t.Fatalf("status once back: %v", st)
	}
	ok(t, do(g, ps, b, `{"type":"debug","cmd":"kill"}`))
	run(g, ps, 1, nil)
	if st := b.lastText("status"); st["dead"] != true || st["cause"] != nil || st["by"] != nil || st["respawnIn"] == nil {
		t.Fatalf("status after a debug kill: %v", st)
	}
}

// TestDeathNames: every cause of death and every kind that kills has the
// status frame's name the page reads; what kills nobody has none.
func TestDeathNames(t *testing.T) {
	causes := []struct {
		c    components.DeathCause
		want string
	}{
		{components.DeathUnknown, ""},
		{components.DeathShot, "shot"},
		{components.DeathRunOver, "run-over"},
		{components.DeathCrash, "crash"},
		{components.DeathExplosion, "explosion"},
		{components.DeathWreck, "wreck"},
	}
	if len(causes) != len(deathCauses) {
		t.Fatalf("%d causes named, the test knows %d", len(deathCauses), len(causes))
	}
	for _, c := range causes {
		if got := deathCauses[c.c]; got != c.want {
			t.Errorf("cause %d is %q, want %q", c.c, got, c.want)
		}
	}
	kinds := []struct {
		k    components.Kind
		want string
	}{
		{components.KindNone, ""},
		{components.KindCharacter, "player"},
		{components.KindCar, "car"},
		{components.KindTrailer, "car"},
		{components.KindPedestrian, "pedestrian"},
		{components.KindPoliceCar, "police"},
		{components.KindOfficer, "police"},
		{components.KindGuard, "guard"},
		{components.KindGate, ""},
	}
	for _, k := range kinds {
		if got := deathBy(k.k); got != k.want {
			t.Errorf("by kind %d is %q, want %q", k.k, got, k.want)
		}
	}
}
