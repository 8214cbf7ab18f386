package server

import (
	"fmt"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
)

// TestCarjackPartiesOnMainCity is a scenario on main-city under rules that
// let players hurt each other ("on", then "rivals"): Ada invites Bea to
// her party with the party command and Bea accepts. Ada sits at the wheel
// of her car; Bea, on foot at its door, presses Use and does not pull her
// out (at most she takes a passenger's seat). Cy, in no party, presses Use
// at the same door and drives off with the car, Ada on foot.
func TestCarjackPartiesOnMainCity(t *testing.T) {
	for _, hurt := range []string{"on", "rivals"} {
		t.Run(hurt, func(t *testing.T) {
			l, err := levels.Load("main-city")
			if err != nil {
				t.Fatal(err)
			}
			g, err := New(Config{Room: "jack", Level: l, Seed: 1, Rules: ecs.Rules{PlayersHurt: hurt}})
			if err != nil {
				t.Fatal(err)
			}
			ada, bea, cy := join(t, g, Who{Name: "Ada"}), join(t, g, Who{Name: "Bea"}), join(t, g, Who{Name: "Cy"})
			all := []*probe{ada, bea, cy}
			carsTicks(g, wireEvery, all...)
			party := func(p *probe) uint16 { return g.ids.Get(p.s.char).Party }
			ada.command(fmt.Sprintf(`{"type":"party","cmd":"invite","session":%d,"id":1}`, bea.s.id))
			carsTicks(g, 1, all...)
			gapsOK(t, ada, 1, "invite Bea")
			bea.command(fmt.Sprintf(`{"type":"party","cmd":"accept","session":%d,"id":2}`, ada.s.id))
			carsTicks(g, 1, all...)
			gapsOK(t, bea, 2, "accept Ada's invitation")
			if party(ada) == 0 || party(bea) != party(ada) || party(cy) != 0 {
				t.Fatalf("parties: Ada %d, Bea %d, Cy %d", party(ada), party(bea), party(cy))
			}

			car := yardIn(g, ada)
			if car.IsZero() {
				t.Fatal("Ada is not in her car")
			}
			carsPut(g, ada.s.char, 0, -60, 0)
			carsTicks(g, 1, all...)
			door := g.posOf(car).Pos
			driver := func() ecs.Entity { return g.seats.Get(car).Occupant[0] }

			// Bea, a party mate, at the door: Ada stays at the wheel.
			yardUse(g, bea, ada, cy)
			carsPut(g, bea.s.char, door.X, door.Y+2, 0)
			yardUse(g, bea, ada, cy)
			if driver() != ada.s.char || yardIn(g, ada) != car {
				t.Fatalf("Bea, Ada's party mate, pulled her out (the driver is %v)", driver())
			}
			if in := yardIn(g, bea); in == car {
				yardUse(g, bea, ada, cy) // out of the passenger's seat
			}
			carsPut(g, bea.s.char, door.X+15, door.Y+15, 0)

			// Cy, in no party, at the same door: he carjacks her.
			yardUse(g, cy, ada, bea)
			carsPut(g, cy.s.char, door.X, door.Y+2, 0)
			yardUse(g, cy, ada, bea)
			if driver() != cy.s.char || yardIn(g, cy) != car {
				t.Fatalf("Cy, in no party, did not carjack Ada (the driver is %v)", driver())
			}
			if act, in, _ := g.persons.Get(ada.s.char); !in.Vehicle.IsZero() || act.Act == components.ActDead {
				t.Fatalf("Ada after the carjack: %+v in %v", *act, in.Vehicle)
			}
		})
	}
}
