package netsync

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fiveonit/engine/netsync/wire"
)

var update = flag.Bool("update", false, "rewrite the golden frames under wire/testdata/golden")

// goldenDir is where the golden frames live: beside the wire format, whose
// tests decode them and whose fuzz targets start from them.
const goldenDir = "wire/testdata/golden"

type goldenStep struct {
	name string
	bit  int // the mask bit the frame shows (-1: none in particular)
	edit func(w *goldenWorld)
}

type goldenWorld struct {
	ents map[uint16]*wire.Entity
	view View
	a    *Arena
	tick uint32
}

// newGoldenWorld returns the start both golden scenarios share: the
// client's character, three cars (one of them police, far off) and a
// pedestrian, seen from the character.
func newGoldenWorld() *goldenWorld {
	g := &goldenWorld{a: NewArena(), ents: map[uint16]*wire.Entity{
		1: {Kind: wire.KindCharacter, Player: 1, Party: 1, Pos: wire.Vec3{X: 100, Y: 100}, Rot: yawQuat(0), HP: 100, MaxHP: 100},
		2: {Kind: wire.KindCar, Model: 2, Pos: wire.Vec3{X: 110, Y: 100}, Rot: yawQuat(1), HP: 900, MaxHP: 1000},
		3: {Kind: wire.KindPedestrian, Gen: 7, Pos: wire.Vec3{X: 220, Y: 100}, Rot: yawQuat(-2), HP: 50, MaxHP: 50},
		4: {Kind: wire.KindPoliceCar, Pos: wire.Vec3{X: 900, Y: 900}, Rot: yawQuat(2), Lin: wire.Vec3{X: 12}, Flags: wire.FlagSiren, HP: 1000, MaxHP: 1000},
		5: {Kind: wire.KindCar, Model: 1, Pos: wire.Vec3{X: 130, Y: 100}, Rot: yawQuat(0), HP: 1000, MaxHP: 1000},
	}}
	g.view = View{Center: g.ents[1].Pos, Own: [3]uint16{1}, LastSeq: 40, InputBuffer: 2}
	return g
}

func (g *goldenWorld) put() {
	for wid := uint16(1); wid <= 9; wid++ { // in id order, not the map's
		if e, ok := g.ents[wid]; ok {
			g.a.Put(wid, e, e.Kind == wire.KindPoliceCar)
		}
	}
}

// TestGoldenFrames encodes a fixed scenario, one frame per mask bit, and
// compares each frame with its golden file (go test -update rewrites them).
// A decoder applies each frame, so every golden frame is also a valid one.
func TestGoldenFrames(t *testing.T) {
	g := newGoldenWorld()
	steps := []goldenStep{
		{"keyframe", -1, func(g *goldenWorld) {
			g.a.AddEvent(wire.Event{Kind: wire.EventShot, Source: 1, Pos: wire.Vec3{X: 100, Y: 100, Z: 1}, Dir: wire.Vec3{X: 1}})
		}},
		{"position", wire.GroupPosition, func(g *goldenWorld) { g.ents[2].Pos.Z = 200 }}, // 200 m up: beyond small steps
		{"rotation", wire.GroupRotation, func(g *goldenWorld) { g.ents[2].Rot = yawQuat(1.5) }},
		{"velocity", wire.GroupVelocity, func(g *goldenWorld) { g.ents[2].Lin = wire.Vec3{X: 1.5} }},
		{"drive", wire.GroupDrive, func(g *goldenWorld) {
			g.ents[2].Throttle, g.ents[2].Steer, g.ents[2].HP = 1, -0.5, 850
			g.a.AddEvent(wire.Event{Kind: wire.EventHit, Source: 1, Target: 2, Pos: wire.Vec3{X: 110, Y: 100}, Amount: 50})
		}},
		{"action", wire.GroupAction, func(g *goldenWorld) { g.ents[3].Act, g.ents[3].Weapon, g.ents[3].AimYaw = wire.ActOnFoot, 1, 0.5 }},
		{"flags", wire.GroupFlags, func(g *goldenWorld) { g.ents[2].Flags = wire.FlagHeadlights | wire.FlagBraking }},
		{"identity", wire.GroupIdentity, func(g *goldenWorld) { g.ents[2].Variant, g.ents[2].Party = 3, 2 }},
		{"fullpose", wire.GroupFullPose, func(g *goldenWorld) { g.ents[1].Pos.X += 0.5 }},
		{"spin", wire.GroupSpin, func(g *goldenWorld) { g.ents[2].Ang = wire.Vec3{Z: 0.75} }},
		{"smallsteps", 9, func(g *goldenWorld) { g.ents[2].Pos = wire.Vec3{X: 111, Y: 100, Z: 200} }},
		{"posefull", 10, func(g *goldenWorld) { // the client gets into car 5
			g.view.Own[1] = 5
			g.ents[1].Vehicle, g.ents[1].Act = 5, wire.ActDriving
			g.a.AddEvent(wire.Event{Kind: wire.EventCarjack, Source: 1, Target: 3, Other: 5, Pos: wire.Vec3{X: 130, Y: 100}})
		}},
		{"tier1", 11, func(g *goldenWorld) { g.ents[3].Pos.X = 170 }},                // 70 m: tier 1
		{"tier3", 12, func(g *goldenWorld) { g.ents[3].Pos.X = 370 }},                // 270 m: tier 3, held (leave at 275)
		{"removed", -1, func(g *goldenWorld) { delete(g.ents, 2); g.ents[3].Gen++ }}, // gone, and a new life
		// A guard (a sentry, idle) and a camera of the level come near.
		{"sentries", -1, func(g *goldenWorld) {
			g.ents[6] = &wire.Entity{Kind: wire.KindGuard, Pos: wire.Vec3{X: 104, Y: 96}, Rot: yawQuat(2.5), HP: 100, MaxHP: 100}
			g.ents[7] = &wire.Entity{Kind: wire.KindCamera, Pos: wire.Vec3{X: 95, Y: 110, Z: 3}, Rot: yawQuat(-1), HP: 50, MaxHP: 50}
		}},
		// The guard searches (alert and suspicious: its phase bits); the
		// camera is shot out.
		{"phases", wire.GroupFlags, func(g *goldenWorld) {
			g.ents[6].Flags = wire.FlagAlert | wire.FlagSuspicious
			g.ents[7].Flags, g.ents[7].HP = wire.FlagWrecked, 0
		}},
	}
	dec := wire.NewDecoder()
	enc := NewEncoder(g.a)
	var frames [][]byte
	for i, s := range steps {
		g.tick += wire.SnapshotEvery
		g.a.Begin(g.tick)
		s.edit(g)
		g.put()
		g.a.End()
		g.view.Center = g.ents[1].Pos
		frame := append([]byte(nil), enc.Encode(&g.view)...)
		if _, err := dec.Apply(frame); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if s.bit >= 0 && !frameHasBit(t, frame, s.bit) {
			t.Fatalf("%s: no change carries mask bit %d", s.name, s.bit)
		}
		frames = append(frames, frame)
		compareGolden(t, fmt.Sprintf("%02d_%s.bin", i, s.name), frame)
	}
	// PoseAge: the ordered encoder never sets it; the acked one will. A
	// hand-made delta onto the last frame: the police car's velocity,
	// measured 2 ticks before the frame.
	police := *g.ents[4]
	police.Lin.X = 14
	var rec wire.Record
	rec.Quantize(&police)
	h := wire.Header{Kind: wire.FrameDelta, Tick: g.tick + wire.SnapshotEvery, BaseTick: g.tick, LastSeq: 52, Changed: 1}
	held := dec.Store().Get(4)
	from := held.Rec.Position()
	frame := wire.AppendHeader(nil, &h)
	frame = wire.AppendChange(frame, 4, 1<<wire.GroupVelocity|wire.PoseAge|wire.MaskTierOf(held.Tier), 2, &rec, &from)
	frame = append(frame, 0)
	if _, err := dec.Apply(frame); err != nil || !frameHasBit(t, frame, 13) {
		t.Fatalf("poseage: %v", err)
	}
	compareGolden(t, fmt.Sprintf("%02d_poseage.bin", len(steps)), frame)
}

// frameHasBit reports whether some change of frame has mask bit bit.
func frameHasBit(t *testing.T, frame []byte, bit int) bool {
	t.Helper()
	parse := wire.ParseHeader
	if frame[0] == wire.FrameAcked {
		parse = wire.ParseAckedHeader
	}
	h, off, err := parse(frame)
	if err != nil {
		t.Fatal(err)
	}
	changes := func(removed, changed int) bool {
		off += 2 * removed
		for range changed {
			c, n, err := wire.ParseChange(frame[off:])
			if err != nil {
				t.Fatal(err)
			}
			if c.Mask&(1<<bit) != 0 {
				return true
			}
			off += n
		}
		return false
	}
	if h.Flags&wire.HeaderChain == 0 {
		return changes(int(h.Removed), int(h.Changed))
	}
	for range h.Changed { // the links: u32 tick, u16 removed, u16 changed
		removed, changed := int(le.Uint16(frame[off+4:])), int(le.Uint16(frame[off+6:]))
		off += linkHead
		if changes(removed, changed) {
			return true
		}
	}
	return false
}

func compareGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	compareGoldenIn(t, goldenDir, name, got)
}

func compareGoldenIn(t *testing.T, dir, name string, got []byte) {
	t.Helper()
	path := filepath.Join(dir, name)
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: the frame differs from the golden one:\n got %x\nwant %x", name, got, want)
	}
}
