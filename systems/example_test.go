package systems_test

import (
	"fmt"
	"slices"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/prefab"
	"github.com/fiveonit/engine/systems"
	"github.com/fiveonit/engine/systems/motion"
	"github.com/mlange-42/arche/generic"
)

// Fuel is the example component of docs/extending.md: plain data, no
// pointers. A real one goes in package components.
type Fuel struct {
	Litres float32
}

// fuelSystem is the example system of docs/extending.md: it burns a driven
// car's fuel and cuts its throttle when the tank is dry. It runs in the
// pre-step, after the seats have handed the driver's input to the car.
type fuelSystem struct {
	filter *generic.Filter2[Fuel, components.Drive]
}

func newFuelSystem(w *ecs.World) *fuelSystem {
	f := generic.NewFilter2[Fuel, components.Drive]()
	f.Register(w.Arche) // a registered filter is cached: faster queries
	return &fuelSystem{filter: f}
}

func (s *fuelSystem) Update(w *ecs.World) {
	q := s.filter.Query(w.Arche)
	for q.Next() {
		fuel, drive := q.Get()
		fuel.Litres -= drive.Throttle * 0.002
		if fuel.Litres <= 0 {
			fuel.Litres, drive.Throttle = 0, 0
		}
	}
}

// Example_addComponentAndSystem is the walkthrough in docs/extending.md,
// compiled and run, so that it stays true.
func Example_addComponentAndSystem() {
	l, _ := levels.Load("test-flat")
	st, _ := motion.BakeLevel(l)
	w, _ := ecs.New(ecs.Config{Seed: 1})

	// 1. Give entities the component: here a car, through the prefab
	//    builder, then Assign (a structural change: never inside a query).
	car, _ := prefab.New(w).Vehicle(components.KindCar, 0, components.Vec3{}, 0, ecs.Entity{})
	fuel := generic.NewMap1[Fuel](w.Arche)
	fuel.Assign(car, &Fuel{Litres: 0.1})

	// 2. Put the system in the one schedule list, last in its phase: after
	//    the AI, which writes its cars' Drive in the pre-step, and before
	//    the physics step. A real one is a line in systems.Entries; here it
	//    is spliced in, under a name of its own, since a real fuel system
	//    would be "fuel" (names are unique in a schedule).
	entries := systems.Entries(w, systems.Options{Static: st})
	at := slices.IndexFunc(entries, func(e ecs.Entry) bool { return e.Phase > ecs.PhasePreStep })
	entries = slices.Insert(entries, at, ecs.Entry{Name: "example-fuel", Phase: ecs.PhasePreStep, System: newFuelSystem(w)})
	if err := w.SetSchedule(entries); err != nil {
		fmt.Println(err)
		return
	}

	// 3. A player gets in (Use) and holds the throttle until the tank is
	//    dry: the seats system hands the driver's Drive to the car.
	player, _ := prefab.New(w).Character(1, 0, 0, components.Vec3{Y: 2}, 0)
	drives := generic.NewMap1[components.Drive](w.Arche)
	for i := 0; i < 240; i++ {
		d := drives.Get(player) // what the server's input system writes
		*d = components.Drive{Throttle: 1}
		if i == 0 {
			d.Pressed = components.BtnUse
		}
		w.Step()
	}
	fmt.Printf("fuel left: %.1f l\n", fuel.Get(car).Litres)
	// Output: fuel left: 0.0 l
}
