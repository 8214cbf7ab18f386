package physics

import (
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
)

func TestWalkerSpeeds(t *testing.T) {
	spec := &DefaultWalker
	look := float32(0.7)
	fwd := Vec{math32.Cos(look), math32.Sin(look)}
	right := Vec{fwd.Y, -fwd.X}
	for _, tc := range []struct {
		name  string
		in    components.Drive
		speed float32
		dir   Vec
	}{
		{"walk", components.Drive{MoveY: 1, LookYaw: look}, spec.WalkSpeed, fwd},
		{"run", components.Drive{MoveY: 1, LookYaw: look, Held: components.BtnSprint}, spec.RunSpeed, fwd},
		{"back", components.Drive{MoveY: -1, LookYaw: look}, spec.WalkSpeed, fwd.Scale(-1)},
		{"strafe right", components.Drive{MoveX: 1, LookYaw: look}, spec.WalkSpeed, right},
		{"diagonal capped", components.Drive{MoveX: 1, MoveY: 1, LookYaw: look}, spec.WalkSpeed, fwd.Add(right).Scale(1 / math32.Sqrt2)},
		{"half stick", components.Drive{MoveY: 0.5, LookYaw: look}, spec.WalkSpeed / 2, fwd},
		{"stand", components.Drive{LookYaw: look}, 0, fwd},
		{"hostile stick", components.Drive{MoveY: 1e30, LookYaw: look}, spec.WalkSpeed, fwd},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pose := components.Pose{Rot: components.YawQuat(look)}
			vel := components.Velocity{Lin: components.Vec3{X: 0.3, Y: -0.2}}
			var maxSpeed float32
			for k := 0; k < 60; k++ {
				DriveWalker(&pose, &vel, &tc.in, spec, Dt)
				Integrate(&pose, &vel, Dt, 0)
				maxSpeed = max32(maxSpeed, Flat(vel.Lin).Len())
			}
			v := Flat(vel.Lin)
			if d := v.Sub(tc.dir.Scale(tc.speed)).Len(); d > 1e-4 {
				t.Errorf("velocity %v, want %v along %v", v, tc.speed, tc.dir)
			}
			if maxSpeed > max32(tc.speed, 0.37)*1.0001 {
				t.Errorf("overshot to %v", maxSpeed)
			}
		})
	}
}

func TestWalkerTurnsTowardLook(t *testing.T) {
	spec := &DefaultWalker
	for _, tc := range []struct {
		name      string
		from, to  float32
		wantSign  float32
		wantTicks int // ticks to arrive at TurnRate
	}{
		{"left", 0, 2, 1, int(2 / spec.TurnRate / Dt)},
		{"right", 0, -1, -1, int(1 / spec.TurnRate / Dt)},
		{"short way through pi", 3, -3, 1, int((2*math32.Pi - 6) / spec.TurnRate / Dt)},
		{"already there", 1, 1, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pose := components.Pose{Rot: components.YawQuat(tc.from)}
			var vel components.Velocity
			in := components.Drive{LookYaw: tc.to}
			arrived := -1
			for k := 0; k < 120; k++ {
				DriveWalker(&pose, &vel, &in, spec, Dt)
				if k == 0 && tc.wantSign != 0 && vel.Ang.Z*tc.wantSign <= 0 {
					t.Errorf("turning at %v, want sign %v", vel.Ang.Z, tc.wantSign)
				}
				if abs32(vel.Ang.Z) > spec.TurnRate*1.0001 {
					t.Errorf("turning at %v over the rate", vel.Ang.Z)
				}
				Integrate(&pose, &vel, Dt, 0)
				if arrived < 0 && angleDiff(pose.Rot.Yaw(), tc.to) < 1e-3 {
					arrived = k
				}
			}
			if d := angleDiff(pose.Rot.Yaw(), tc.to); d > 1e-4 {
				t.Errorf("heading %v, want %v", pose.Rot.Yaw(), tc.to)
			}
			if arrived < tc.wantTicks-1 || arrived > tc.wantTicks+2 {
				t.Errorf("arrived after %d ticks, want about %d", arrived, tc.wantTicks)
			}
		})
	}
}

func angleDiff(a, b float32) float32 {
	d := math32.Remainder(a-b, 2*math32.Pi)
	return abs32(d)
}

func TestIntegrate(t *testing.T) {
	pose := components.Pose{Pos: components.Vec3{X: 1, Y: 2, Z: 7}, Rot: components.YawQuat(-0.5)}
	vel := components.Velocity{Lin: components.Vec3{X: 3, Y: -6, Z: 9}, Ang: components.Vec3{Z: 1.5}}
	for k := 0; k < 60; k++ {
		Integrate(&pose, &vel, Dt, 0.25)
	}
	if d := (Vec{pose.Pos.X - 4, pose.Pos.Y + 4}).Len(); d > 1e-4 {
		t.Errorf("position %v, want (4, -4)", pose.Pos)
	}
	if pose.Pos.Z != 0.25 {
		t.Errorf("z %v not pinned to the ground", pose.Pos.Z)
	}
	if d := angleDiff(pose.Rot.Yaw(), 1); d > 1e-5 {
		t.Errorf("yaw %v, want 1", pose.Rot.Yaw())
	}
	q := pose.Rot
	if n := q.X*q.X + q.Y*q.Y + q.Z*q.Z + q.W*q.W; abs32(n-1) > 1e-6 || q.X != 0 || q.Y != 0 {
		t.Errorf("rotation %v not a unit yaw", q)
	}
	// A non-finite spin leaves the rotation alone.
	vel.Ang.Z = math32.NaN()
	Integrate(&pose, &vel, Dt, 0)
	if pose.Rot != q {
		t.Errorf("NaN spin changed the rotation to %v", pose.Rot)
	}
}
