package physics

import (
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
)

// drivable are the models a driver can drive (not the trailer).
var drivable = []uint8{ModelCompact, ModelSedan, ModelSports, ModelVan, ModelTruck, ModelPolice}

// carFrame returns the car's forward and sideways (left) speed.
func carFrame(pose *components.Pose, vel *components.Velocity) (fwd, lat float32) {
	c, s := pose.Rot.Heading()
	return vel.Lin.X*c + vel.Lin.Y*s, vel.Lin.Y*c - vel.Lin.X*s
}

// runCar drives a lone car on open ground for steps ticks with in, and
// calls each after every tick.
func runCar(pose *components.Pose, vel *components.Velocity, in components.Drive, spec *CarSpec, steps int, each func(k int)) {
	for k := 0; k < steps; k++ {
		DriveCar(pose, vel, &in, spec, Dt)
		Integrate(pose, vel, Dt, 0)
		if each != nil {
			each(k)
		}
	}
}

func TestCarReachesTopSpeedAndNoMore(t *testing.T) {
	for _, m := range drivable {
		spec := CarModel(m)
		t.Run(spec.Name, func(t *testing.T) {
			pose := components.Pose{Rot: components.YawQuat(0.8)}
			var vel components.Velocity
			var maxSpeed float32
			reached := -1
			runCar(&pose, &vel, components.Drive{Throttle: 1}, spec, 60*60, func(k int) {
				sp := Flat(vel.Lin).Len()
				maxSpeed = max32(maxSpeed, sp)
				if reached < 0 && sp >= 0.999*spec.TopSpeed {
					reached = k
				}
			})
			if reached < 0 {
				t.Fatalf("never reached top speed %v: max %v", spec.TopSpeed, maxSpeed)
			}
			if maxSpeed > spec.TopSpeed*1.0001 {
				t.Errorf("speed %v exceeds top speed %v", maxSpeed, spec.TopSpeed)
			}
			// No faster than the engine alone could do it.
			if minTicks := int(spec.TopSpeed / spec.Accel / Dt * 0.999); reached < minTicks {
				t.Errorf("reached top speed in %d ticks, engine allows no fewer than %d", reached, minTicks)
			}
			// It drives where it points.
			_, lat := carFrame(&pose, &vel)
			if abs32(lat) > 1e-3 {
				t.Errorf("sideways speed %v driving straight", lat)
			}
		})
	}
}

func TestCarBrakesToRest(t *testing.T) {
	for _, m := range drivable {
		spec := CarModel(m)
		t.Run(spec.Name, func(t *testing.T) {
			pose := components.Pose{Rot: components.NoRotation}
			vel := components.Velocity{Lin: components.Vec3{X: 30}}
			stopped := -1
			runCar(&pose, &vel, components.Drive{Brake: 1}, spec, 600, func(k int) {
				if fwd, _ := carFrame(&pose, &vel); stopped < 0 && fwd <= RestSpeed {
					stopped = k
				}
			})
			if stopped < 0 {
				t.Fatal("never stopped")
			}
			// The brake alone takes 30/BrakeDecel seconds; drag helps a little.
			want := 30 / spec.BrakeDecel / Dt
			if float32(stopped) > want+2 || float32(stopped) < want*0.8 {
				t.Errorf("stopped after %d ticks, want about %.0f", stopped, want)
			}
			// Let go at rest: it stays at rest.
			vel = components.Velocity{}
			runCar(&pose, &vel, components.Drive{}, spec, 120, nil)
			if sp := Flat(vel.Lin).Len(); sp != 0 {
				t.Errorf("creeping at %v with nothing held", sp)
			}
		})
	}
}

func TestCarReversesOnBrakeAtRest(t *testing.T) {
	for _, m := range drivable {
		spec := CarModel(m)
		t.Run(spec.Name, func(t *testing.T) {
			pose := components.Pose{Rot: components.YawQuat(-2)}
			var vel components.Velocity
			var minFwd float32
			runCar(&pose, &vel, components.Drive{Brake: 1}, spec, 60*30, func(int) {
				fwd, _ := carFrame(&pose, &vel)
				minFwd = min32(minFwd, fwd)
			})
			fwd, _ := carFrame(&pose, &vel)
			if fwd > -0.99*spec.ReverseSpeed {
				t.Errorf("reversing at %v, want about -%v", fwd, spec.ReverseSpeed)
			}
			if minFwd < -spec.ReverseSpeed*1.0001 {
				t.Errorf("reversed at %v, faster than the cap %v", minFwd, spec.ReverseSpeed)
			}
			// The throttle brakes the reversing car before driving on.
			in := components.Drive{Throttle: 1}
			DriveCar(&pose, &vel, &in, spec, Dt)
			if f, _ := carFrame(&pose, &vel); f <= fwd || f > 0 {
				t.Errorf("throttle while reversing: %v -> %v, want braking toward 0", fwd, f)
			}
		})
	}
}

func TestCarSteeringSign(t *testing.T) {
	spec := CarModel(ModelSedan)
	for _, tc := range []struct {
		name    string
		fwd     float32
		steer   float32
		wantPos bool
	}{
		{"forward left", 10, 1, true},
		{"forward right", 10, -1, false},
		{"forward half left", 10, 0.5, true},
		{"reverse left", -5, 1, false},
		{"reverse right", -5, -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			yaw0 := float32(0.4)
			pose := components.Pose{Rot: components.YawQuat(yaw0)}
			c, s := pose.Rot.Heading()
			vel := components.Velocity{Lin: components.Vec3{X: c * tc.fwd, Y: s * tc.fwd}}
			in := components.Drive{Steer: tc.steer}
			if tc.fwd > 0 {
				in.Throttle = 0.3
			}
			runCar(&pose, &vel, in, spec, 30, nil)
			if (vel.Ang.Z > 0) != tc.wantPos || vel.Ang.Z == 0 {
				t.Errorf("yaw rate %v, want positive %v", vel.Ang.Z, tc.wantPos)
			}
			if turned := pose.Rot.Yaw() - yaw0; (turned > 0) != tc.wantPos {
				t.Errorf("turned by %v, want positive %v", turned, tc.wantPos)
			}
		})
	}
}

func TestCarBicycleModelAtLowSpeed(t *testing.T) {
	// Slow and well within the grip, the yaw rate is speed*tan(steer)/wheelbase
	// and the car does not slide.
	spec := CarModel(ModelSedan)
	pose := components.Pose{Rot: components.NoRotation}
	vel := components.Velocity{Lin: components.Vec3{X: 4}}
	in := components.Drive{Steer: 0.5}
	var maxLat float32
	for k := 0; k < 120; k++ {
		fwd, _ := carFrame(&pose, &vel)
		in.Throttle = clamp((4-fwd)*2, 0, 1)
		DriveCar(&pose, &vel, &in, spec, Dt)
		Integrate(&pose, &vel, Dt, 0)
		_, lat := carFrame(&pose, &vel)
		maxLat = max32(maxLat, abs32(lat))
	}
	fwd, _ := carFrame(&pose, &vel)
	want := fwd * math32.Tan(0.5*spec.MaxSteer) / spec.Wheelbase
	if abs32(vel.Ang.Z-want) > 0.02*want {
		t.Errorf("yaw rate %v, bicycle model says %v", vel.Ang.Z, want)
	}
	if maxLat > 0.05 {
		t.Errorf("slid sideways at %v m/s at low speed", maxLat)
	}
}

func TestCarSlidesAtSpeedAndMoreWithHandbrake(t *testing.T) {
	spec := CarModel(ModelSedan)
	slide := func(in components.Drive) (maxLat float32, final components.Velocity) {
		pose := components.Pose{Rot: components.NoRotation}
		vel := components.Velocity{Lin: components.Vec3{X: 30}}
		runCar(&pose, &vel, in, spec, 90, func(int) {
			_, lat := carFrame(&pose, &vel)
			maxLat = max32(maxLat, abs32(lat))
		})
		return maxLat, vel
	}
	grip, _ := slide(components.Drive{Throttle: 1, Steer: 1})
	hand, vel := slide(components.Drive{Throttle: 1, Steer: 1, Held: components.BtnHandbrake})
	if grip < 0.1 {
		t.Errorf("full lock at 30 m/s: sideways speed %v, want a slide", grip)
	}
	if hand < 2*grip {
		t.Errorf("with the handbrake: sideways speed %v, want more than twice %v", hand, grip)
	}
	if sp := Flat(vel.Lin).Len(); !(sp < 30) {
		t.Errorf("the handbrake did not slow the car: %v", sp)
	}
}

func TestCarHostileInputStaysFinite(t *testing.T) {
	nan := math32.NaN()
	inf := math32.Inf(1)
	for _, in := range []components.Drive{
		{Throttle: nan, Brake: nan, Steer: nan},
		{Throttle: inf, Brake: -inf, Steer: inf},
		{Throttle: 1e30, Steer: -1e30},
	} {
		pose := components.Pose{Rot: components.NoRotation}
		vel := components.Velocity{Lin: components.Vec3{X: 20}}
		runCar(&pose, &vel, in, CarModel(ModelSports), 600, nil)
		if !finite(vel.Lin.X+vel.Lin.Y+vel.Ang.Z) || !finite(pose.Pos.X+pose.Pos.Y+pose.Rot.Z+pose.Rot.W) {
			t.Errorf("input %+v: state %+v %+v", in, pose, vel)
		}
		if sp := Flat(vel.Lin).Len(); sp > CarModel(ModelSports).TopSpeed*1.0001 {
			t.Errorf("input %+v: speed %v over the top", in, sp)
		}
	}
}

func TestCarModelFallback(t *testing.T) {
	if CarModel(200) != &CarModels[ModelCompact] {
		t.Error("an unknown model is not the compact")
	}
	if CarModel(ModelTruck).Name != "truck" {
		t.Error("model index does not find its spec")
	}
	for _, m := range drivable {
		s := CarModel(m)
		if drag := s.RollDecel + s.AirDrag*s.TopSpeed*s.TopSpeed; drag >= s.Accel {
			t.Errorf("%s: drag %v at top speed beats the engine %v", s.Name, drag, s.Accel)
		}
	}
}

func TestTrailerStraightensBehindAndStopsSpinning(t *testing.T) {
	spec := CarModel(ModelTrailer)
	pose := components.Pose{Rot: components.NoRotation}
	vel := components.Velocity{Lin: components.Vec3{X: 10, Y: 3}, Ang: components.Vec3{Z: 2}}
	for k := 0; k < 240; k++ {
		DriveTrailer(&pose, &vel, spec, Dt)
		Integrate(&pose, &vel, Dt, 0)
	}
	if abs32(vel.Ang.Z) > 0.01 {
		t.Errorf("still spinning at %v rad/s", vel.Ang.Z)
	}
	if _, lat := carFrame(&pose, &vel); abs32(lat) > 0.01 {
		t.Errorf("still sliding sideways at %v", lat)
	}
}
