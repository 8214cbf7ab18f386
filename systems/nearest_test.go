package systems_test

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
)

// TestEnterNearestCar: Use takes the nearest car in reach, whichever order
// the cars were made in (the driver's seat, free in both); out of reach of
// every car, Use does nothing. (A car whose driver's seat is taken is a
// carjack: TestCarjackRuleHook.)
func TestEnterNearestCar(t *testing.T) {
	cases := []struct {
		name     string
		carsY    []float32 // the cars, in the order made, at (carsX[i], carsY[i]), facing east
		carsX    []float32
		wantCar  int // index of the car entered, -1 none
		personAt [2]float32
	}{
		// Both in reach (seats.Reach 1.5 m of the body): 1.1 m and 1.3 m.
		{"nearer made second", []float32{4.2, 0}, []float32{10, 10}, 1, [2]float32{10, 2}},
		{"nearer made first", []float32{0, 4.2}, []float32{10, 10}, 0, [2]float32{10, 2}},
		{"none in reach", []float32{0, 0}, []float32{10, 20}, -1, [2]float32{15, 8}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, "test-flat", 1)
			var cars []ecs.Entity
			for i := range c.carsX {
				cars = append(cars, r.Car(t, c.carsX[i], c.carsY[i], 0))
			}
			p := r.Character(t, c.personAt[0], c.personAt[1], 0)
			r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
				if e == p && tick == 2 {
					d.Pressed = components.BtnUse
				}
			}
			r.Step(3)
			in := ecstest.Get[components.SeatedIn](r.W, p)
			if c.wantCar < 0 {
				if !in.Vehicle.IsZero() {
					t.Fatalf("entered %v, out of reach of every car", in.Vehicle)
				}
				return
			}
			if in.Vehicle != cars[c.wantCar] || in.Seat != 0 {
				t.Fatalf("entered %v, want car %d (%v)", in.Vehicle, c.wantCar, cars[c.wantCar])
			}
		})
	}
}
