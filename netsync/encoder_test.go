package netsync

import (
	"testing"

	"github.com/fiveonit/engine/netsync/wire"
)

// TestEventsOfInterest: a client gets the events within its leave radius and
// those done by or to its own entities, each once, and no others.
func TestEventsOfInterest(t *testing.T) {
	a := NewArena()
	enc, dec := NewEncoder(a), wire.NewDecoder()
	view := View{Center: wire.Vec3{X: 0, Y: 0}, Own: [3]uint16{7}}
	me := wire.Entity{Kind: wire.KindCharacter, Pos: wire.Vec3{X: 1}}
	far := wire.Entity{Kind: wire.KindCar, Pos: wire.Vec3{X: 2000}}
	tick := uint32(0)
	frame := func(events ...wire.Event) []wire.Event {
		tick++
		a.Begin(tick)
		a.Put(7, &me, true)
		a.Put(8, &far, false)
		for _, ev := range events {
			a.AddEvent(ev)
		}
		a.End()
		fr, err := dec.Apply(enc.Encode(&view))
		if err != nil {
			t.Fatal(err)
		}
		return append([]wire.Event(nil), fr.Events...)
	}
	near := wire.Event{Kind: wire.EventBlast, Pos: wire.Vec3{X: 100}, Amount: 5}
	farAway := wire.Event{Kind: wire.EventShot, Source: 8, Pos: wire.Vec3{X: 2000}, Dir: wire.Vec3{X: 1}}
	hitMe := wire.Event{Kind: wire.EventHit, Source: 8, Target: 7, Pos: wire.Vec3{X: 2000}, Amount: 10}
	got := frame(near, farAway, hitMe)
	if len(got) != 2 || got[0].Kind != wire.EventBlast || got[1].Kind != wire.EventHit {
		t.Fatalf("events %+v, want the near blast and the hit on the client's own", got)
	}
	if got := frame(); len(got) != 0 {
		t.Fatalf("events sent again: %+v", got)
	}
	// Events of the ticks between two frames all come in the next.
	tick++
	a.Begin(tick)
	a.Put(7, &me, true)
	a.AddEvent(near)
	a.End()
	if got := frame(near); len(got) != 2 {
		t.Fatalf("%d events from two ticks, want 2", len(got))
	}
}
