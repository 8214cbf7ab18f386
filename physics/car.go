package physics

import (
	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
)

// RestSpeed is the forward speed (m/s) under which a car counts as at rest:
// a brake held there reverses, a throttle held while reversing faster than
// it brakes first. Half a metre per second is slower than any deliberate
// motion and faster than the creep left after braking.
const RestSpeed = 0.5

// CarSpec is the tuning of one car model. Accelerations are in m/s² (force
// over mass), speeds in m/s, angles in radians.
type CarSpec struct {
	Name string
	// Mass in kilograms.
	Mass float32
	// HalfX (along the heading) and HalfY (across) are the half extents of
	// the body's box; Height is its roof, for line of sight.
	HalfX, HalfY, Height float32
	// Wheelbase is the distance between the axles, for the bicycle model.
	Wheelbase float32
	// AxleBack is, for a trailer, its axle's distance behind its centre
	// (where its tyres grip); cars ignore it.
	AxleBack float32
	// Accel is the engine's acceleration at full throttle.
	Accel float32
	// BrakeDecel is the deceleration at full brake.
	BrakeDecel float32
	// ReverseAccel is the acceleration backwards with the brake held at rest.
	ReverseAccel float32
	// TopSpeed and ReverseSpeed cap the engine forwards and backwards.
	TopSpeed, ReverseSpeed float32
	// MaxSteer is the front wheels' angle at full lock.
	MaxSteer float32
	// MaxYawRate caps the turning rate; YawAccel is how fast the yaw rate
	// follows the steering (and how fast the tyres stop a spin).
	MaxYawRate, YawAccel float32
	// Grip is the tyres' largest sideways acceleration: lateral velocity is
	// killed up to Grip*dt per step, beyond it the car slides.
	Grip float32
	// SlideYaw is how far past the grip limit the nose may turn (the yaw
	// rate is capped at SlideYaw*Grip/speed): over 1 the car drifts.
	SlideYaw float32
	// Align (1/s) turns a sliding car back into its direction of travel,
	// the rear tyres' stabilising moment.
	Align float32
	// HandbrakeGrip is the factor on Grip (and Align) with the handbrake
	// held: the rear wheels lock and slide. HandbrakeYaw is the factor on
	// the yaw rate with it (the tail comes round). HandbrakeDecel is its
	// braking.
	HandbrakeGrip, HandbrakeYaw, HandbrakeDecel float32
	// RollDecel (m/s²) and AirDrag (1/m, deceleration per speed squared)
	// slow the car when nothing drives it.
	RollDecel, AirDrag float32
	// Friction and Restitution are the body's, against other bodies.
	Friction, Restitution float32
}

// The car models, indices of CarModels (components.Identity.Model).
const (
	ModelCompact uint8 = iota
	ModelSedan
	ModelSports
	ModelVan
	ModelTruck
	ModelPolice
	ModelTrailer
	ModelCount // number of models; not a model
)

// CarModels is the table of car models, indexed by components.Identity.Model.
// Every model tops out where its engine still beats its drag.
var CarModels = [ModelCount]CarSpec{
	ModelCompact: {Name: "compact", Mass: 1100, HalfX: 1.9, HalfY: 0.85, Height: 1.45, Wheelbase: 2.5,
		Accel: 5.5, BrakeDecel: 11, ReverseAccel: 4, TopSpeed: 38, ReverseSpeed: 8,
		MaxSteer: 0.6, MaxYawRate: 2.6, YawAccel: 14, Grip: 10, SlideYaw: 1.25, Align: 3,
		HandbrakeGrip: 0.3, HandbrakeYaw: 1.6, HandbrakeDecel: 5, RollDecel: 0.4, AirDrag: 0.0008,
		Friction: 0.6, Restitution: 0.15},
	ModelSedan: {Name: "sedan", Mass: 1400, HalfX: 2.3, HalfY: 0.95, Height: 1.45, Wheelbase: 2.8,
		Accel: 6, BrakeDecel: 11, ReverseAccel: 4, TopSpeed: 45, ReverseSpeed: 9,
		MaxSteer: 0.6, MaxYawRate: 2.4, YawAccel: 13, Grip: 10.5, SlideYaw: 1.25, Align: 3,
		HandbrakeGrip: 0.3, HandbrakeYaw: 1.6, HandbrakeDecel: 5, RollDecel: 0.4, AirDrag: 0.0007,
		Friction: 0.6, Restitution: 0.15},
	ModelSports: {Name: "sports", Mass: 1300, HalfX: 2.2, HalfY: 0.95, Height: 1.25, Wheelbase: 2.6,
		Accel: 9, BrakeDecel: 13, ReverseAccel: 5, TopSpeed: 60, ReverseSpeed: 10,
		MaxSteer: 0.55, MaxYawRate: 2.6, YawAccel: 16, Grip: 12, SlideYaw: 1.3, Align: 3,
		HandbrakeGrip: 0.3, HandbrakeYaw: 1.6, HandbrakeDecel: 6, RollDecel: 0.4, AirDrag: 0.0005,
		Friction: 0.6, Restitution: 0.15},
	ModelVan: {Name: "van", Mass: 2200, HalfX: 2.5, HalfY: 1.05, Height: 2.2, Wheelbase: 3.2,
		Accel: 4.5, BrakeDecel: 9, ReverseAccel: 3.5, TopSpeed: 35, ReverseSpeed: 7,
		MaxSteer: 0.6, MaxYawRate: 2.0, YawAccel: 10, Grip: 8.5, SlideYaw: 1.2, Align: 3,
		HandbrakeGrip: 0.35, HandbrakeYaw: 1.4, HandbrakeDecel: 5, RollDecel: 0.5, AirDrag: 0.001,
		Friction: 0.6, Restitution: 0.1},
	ModelTruck: {Name: "truck", Mass: 6000, HalfX: 3.8, HalfY: 1.25, Height: 3.2, Wheelbase: 4.5,
		Accel: 3, BrakeDecel: 7, ReverseAccel: 2.5, TopSpeed: 28, ReverseSpeed: 6,
		MaxSteer: 0.6, MaxYawRate: 1.6, YawAccel: 6, Grip: 7, SlideYaw: 1.15, Align: 3,
		HandbrakeGrip: 0.4, HandbrakeYaw: 1.3, HandbrakeDecel: 4, RollDecel: 0.5, AirDrag: 0.0008,
		Friction: 0.6, Restitution: 0.05},
	ModelPolice: {Name: "police", Mass: 1600, HalfX: 2.4, HalfY: 0.98, Height: 1.5, Wheelbase: 2.9,
		Accel: 8, BrakeDecel: 12, ReverseAccel: 5, TopSpeed: 55, ReverseSpeed: 10,
		MaxSteer: 0.6, MaxYawRate: 2.5, YawAccel: 15, Grip: 11.5, SlideYaw: 1.25, Align: 3,
		HandbrakeGrip: 0.3, HandbrakeYaw: 1.6, HandbrakeDecel: 6, RollDecel: 0.4, AirDrag: 0.0006,
		Friction: 0.6, Restitution: 0.15},
	ModelTrailer: {Name: "trailer", Mass: 1500, HalfX: 3, HalfY: 1.2, Height: 2.8, AxleBack: 1,
		Grip: 9, RollDecel: 0.3, AirDrag: 0.0008, Friction: 0.6, Restitution: 0.1},
}

// TrailerLength is the distance (m) from a tractor's centre to the centre
// of a trailer of model m hitched to it (components.TrailerLink.Length):
// the trailer's half length, a truck's, and a metre of drawbar. The server
// hitches a trailer with it, and a client replays its own with it.
func TrailerLength(m uint8) float32 { return CarModel(m).HalfX + CarModel(ModelTruck).HalfX + 1 }

// CarModel returns the spec of model m, or the compact's for an unknown
// model (a level naming a model this build lacks still gets a car).
func CarModel(m uint8) *CarSpec {
	if int(m) < len(CarModels) {
		return &CarModels[m]
	}
	return &CarModels[ModelCompact]
}

// Body returns the components.Body of a car of this spec: a box on the
// vehicle layer that collides with everything.
func (s *CarSpec) Body() components.Body {
	return components.Body{
		Shape: components.ShapeBox, HalfX: s.HalfX, HalfY: s.HalfY, Height: s.Height,
		Mass: s.Mass, Friction: s.Friction, Restitution: s.Restitution,
		Layer: components.LayerVehicle, Mask: 0xFFFF,
	}
}

// DriveCar is the vehicle model: it turns this tick's Drive into the car's
// velocity over dt (only vel.Lin X, Y and vel.Ang.Z change; Integrate or
// Step moves the car).
//
// Along the heading: rolling resistance and air drag; the throttle
// accelerates up to TopSpeed (and brakes first when reversing); the brake
// brakes, and held at rest reverses up to ReverseSpeed. Across it: the tyres
// kill sideways velocity up to Grip*dt per step, beyond which the car slides.
// The yaw rate follows the bicycle model, speed*tan(steer)/wheelbase, capped
// by MaxYawRate and by SlideYaw times what the grip can hold at this speed,
// plus the alignment of a sliding car with its travel; it moves toward that
// rate by at most YawAccel*dt. The handbrake brakes, cuts the grip and the
// alignment to HandbrakeGrip and lets the nose turn HandbrakeYaw times
// faster: a drift. Steer > 0 turns left (counter-clockwise) going forward.
func DriveCar(pose *components.Pose, vel *components.Velocity, in *components.Drive, spec *CarSpec, dt float32) {
	c, s := pose.Rot.Heading()
	fwd := vel.Lin.X*c + vel.Lin.Y*s
	lat := vel.Lin.Y*c - vel.Lin.X*s
	throttle := clamp(in.Throttle, 0, 1)
	brake := clamp(in.Brake, 0, 1)
	steer := clamp(in.Steer, -1, 1)

	grip, align, yawGain := spec.Grip, spec.Align, float32(1)
	hand := in.Held&components.BtnHandbrake != 0
	if hand {
		grip *= spec.HandbrakeGrip
		align *= spec.HandbrakeGrip
		yawGain = spec.HandbrakeYaw
	}
	lat = toward0(lat, grip*dt)

	fwd = toward0(fwd, (spec.RollDecel+spec.AirDrag*fwd*fwd)*dt)
	if throttle > 0 {
		// The engine drives the speed over the ground, sliding included,
		// up to TopSpeed.
		top := spec.TopSpeed
		if lat != 0 {
			top = sqrt32(max32(top*top-lat*lat, 0))
		}
		if fwd < -RestSpeed {
			fwd = min32(fwd+spec.BrakeDecel*throttle*dt, 0)
		} else if fwd < top {
			fwd = min32(fwd+spec.Accel*throttle*dt, top)
		}
	}
	if brake > 0 {
		switch {
		case fwd > RestSpeed:
			fwd = max32(fwd-spec.BrakeDecel*brake*dt, 0)
		case fwd >= -spec.ReverseSpeed:
			fwd = max32(fwd-spec.ReverseAccel*brake*dt, -spec.ReverseSpeed)
		default: // pushed backwards faster than reverse: the brake holds it back
			fwd = min32(fwd+spec.BrakeDecel*brake*dt, -spec.ReverseSpeed)
		}
	}
	if hand {
		fwd = toward0(fwd, spec.HandbrakeDecel*dt)
	}

	// Bicycle model, capped by the turning rate and by the grip; the
	// alignment term is lat/fwd (the slip angle) faded out toward rest.
	target := fwd * math32.Tan(steer*spec.MaxSteer) / spec.Wheelbase
	limit := spec.MaxYawRate
	if af := abs32(fwd); af*limit > spec.SlideYaw*spec.Grip {
		limit = spec.SlideYaw * spec.Grip / af
	}
	limit *= yawGain
	target = clamp(target*yawGain, -limit, limit) + align*lat*fwd/(fwd*fwd+1)
	w := vel.Ang.Z
	if !finite(w) {
		w = 0
	}
	step := spec.YawAccel * dt
	w += clamp(target-w, -step, step)

	vel.Lin.X = fwd*c - lat*s
	vel.Lin.Y = fwd*s + lat*c
	vel.Ang.Z = w
}

// DriveTrailer is the model of a towed or loose trailer: rolling resistance
// and air drag along its heading, and its tyres' grip at its axle, AxleBack
// behind its centre. The grip kills the axle's sideways velocity up to
// Grip*dt per step, and so turns a towed trailer in behind its hitch and
// stops a loose one spinning. The hitch itself is a constraint of Step.
func DriveTrailer(pose *components.Pose, vel *components.Velocity, spec *CarSpec, dt float32) {
	c, s := pose.Rot.Heading()
	fwd := vel.Lin.X*c + vel.Lin.Y*s
	lat := vel.Lin.Y*c - vel.Lin.X*s
	w := vel.Ang.Z
	if !finite(w) {
		w = 0
	}
	fwd = toward0(fwd, (spec.RollDecel+spec.AirDrag*fwd*fwd)*dt)

	// Sideways velocity of the axle at (-a, 0): lat - w*a. A sideways
	// impulse there of j (per unit mass) changes lat by j and w by
	// -a*j*m/I; with I = m(hx²+hy²)/3 the point's effective inverse mass per
	// unit mass is 1 + a²*3/(hx²+hy²).
	a := spec.AxleBack
	k := 3 / (spec.HalfX*spec.HalfX + spec.HalfY*spec.HalfY)
	vAxle := lat - w*a
	j := clamp(-vAxle/(1+a*a*k), -spec.Grip*dt, spec.Grip*dt)
	lat += j
	w -= a * j * k

	vel.Lin.X = fwd*c - lat*s
	vel.Lin.Y = fwd*s + lat*c
	vel.Ang.Z = w
}
