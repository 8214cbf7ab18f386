package netsync

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fiveonit/engine/netsync/wire"
)

// ackedGoldenDir holds the acked golden frames: beside the wire format,
// whose tests decode them and whose fuzz targets start from them.
const ackedGoldenDir = "wire/testdata/acked"

// TestAckedGoldenFrames encodes a fixed scenario with the acked encoder, its
// acknowledgements late or lost now and then and one frame lost, and
// compares each frame the client gets with its golden file (go test -update
// rewrites them). A decoder applies them, so every golden frame is a valid
// one, in this order.
func TestAckedGoldenFrames(t *testing.T) {
	g := newGoldenWorld()
	type step struct {
		name      string
		lost, ack bool // the frame does not arrive; the client's ack comes back before the next
		edit      func(g *goldenWorld)
		bit       int // a mask bit some change of the frame has (-1: none in particular)
	}
	steps := []step{
		{"keyframe", false, true, func(g *goldenWorld) {
			g.a.AddEvent(wire.Event{Kind: wire.EventShot, Source: 1, Pos: wire.Vec3{X: 100, Y: 100, Z: 1}, Dir: wire.Vec3{X: 1}})
		}, 10},
		{"moved", false, false, func(g *goldenWorld) { g.ents[2].Pos.X += 3 }, 9},
		{"again", false, true, func(g *goldenWorld) { // onto the keyframe: a chain of the move and this
			g.ents[1].HP = 80
			g.a.AddEvent(wire.Event{Kind: wire.EventHit, Source: 2, Target: 1, Pos: wire.Vec3{X: 100, Y: 100}, Amount: 20})
		}, 9},
		{"lost", true, false, func(g *goldenWorld) { g.ents[3].Act, g.ents[3].Weapon = wire.ActOnFoot, 2 }, -1},
		{"onto-acked", false, true, func(g *goldenWorld) { g.ents[2].Ang = wire.Vec3{Z: 0.5} }, wire.GroupAction},
		{"removed", false, true, func(g *goldenWorld) { delete(g.ents, 2); g.ents[3].Gen++ }, wire.GroupIdentity},
		{"posefull", false, false, func(g *goldenWorld) {
			g.view.Own[1] = 5
			g.ents[1].Vehicle, g.ents[1].Act = 5, wire.ActDriving
			g.a.AddEvent(wire.Event{Kind: wire.EventCarjack, Source: 1, Target: 3, Other: 5, Pos: wire.Vec3{X: 130, Y: 100}})
		}, wire.GroupFullPose},
		{"keyframe-again", false, true, nil, 13}, // the poses at rest since, with their age
	}
	enc, dec := NewAckedEncoder(g.a), wire.NewAckedDecoder()
	var names []string
	for i, s := range steps {
		g.tick += wire.SnapshotEvery
		g.a.Begin(g.tick)
		if s.edit != nil {
			s.edit(g)
		}
		g.put()
		g.a.End()
		g.view.Center = g.ents[1].Pos
		if s.name == "keyframe-again" {
			enc.RequestKeyframe()
		}
		frame := slices.Clone(enc.Encode(&g.view))
		if s.bit >= 0 && !frameHasBit(t, frame, s.bit) {
			t.Fatalf("%s: no change carries mask bit %d", s.name, s.bit)
		}
		if s.lost {
			continue
		}
		fr, err := dec.Apply(frame)
		if err != nil || fr == nil {
			t.Fatalf("%s: %v %v", s.name, fr, err)
		}
		if ok, eid := dec.Store().EqualRecords(enc.State()); !ok {
			t.Fatalf("%s: entity %d differs", s.name, eid)
		}
		if s.ack {
			enc.Ack(dec.Tick())
		}
		name := fmt.Sprintf("%02d_%s.bin", i, s.name)
		names = append(names, name)
		compareGoldenIn(t, ackedGoldenDir, name, frame)
	}
	if !*update {
		return
	}
	// Nothing else in the directory: a frame renamed leaves no stale file.
	paths, _ := filepath.Glob(filepath.Join(ackedGoldenDir, "*.bin"))
	for _, p := range paths {
		if !slices.Contains(names, filepath.Base(p)) {
			os.Remove(p)
		}
	}
}
