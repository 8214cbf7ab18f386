package netsync

import (
	"math"
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

// TestEncodersConcurrent: the encoders of different clients may run at once
// between the arena's End and its next Begin (go test -race checks that they
// only read the arena).
func TestEncodersConcurrent(t *testing.T) {
	w := newSimWorld(21, 300, 600)
	for range 200 {
		w.spawn()
	}
	a := NewArena()
	encs := make([]*Encoder, 4)
	decs := make([]*wire.Decoder, len(encs))
	views := make([]View, len(encs))
	for i := range encs {
		encs[i], decs[i] = NewEncoder(a), wire.NewDecoder()
		views[i].Center = wire.Vec3{X: float32(150 * i), Y: 300}
	}
	for range 60 {
		for range wire.SnapshotEvery {
			w.step()
			w.fill(a)
		}
		done := make(chan error, len(encs))
		for i := range encs {
			go func() {
				_, err := decs[i].Apply(encs[i].Encode(&views[i]))
				done <- err
			}()
		}
		for range encs {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestNaNPositions: an entity whose position is NaN or infinite (a bug
// upstream) neither panics nor breaks the stream: the client holds what it
// is sent, and the entity is placed again once its position is whole.
func TestNaNPositions(t *testing.T) {
	a := NewArena()
	enc, dec := NewEncoder(a), wire.NewDecoder()
	view := View{Center: wire.Vec3{X: 10, Y: 10}}
	nan := float32(math.NaN())
	ents := []wire.Entity{
		{Kind: wire.KindCar, Pos: wire.Vec3{X: 12, Y: 10}},
		{Kind: wire.KindItem, Pos: wire.Vec3{X: 11, Y: 10}},
	}
	for tick := uint32(1); tick <= 40; tick++ {
		switch tick {
		case 5:
			ents[0].Pos.X = nan
			ents[1].Pos.Y = float32(math.Inf(1))
		case 20:
			ents[0].Pos.X, ents[1].Pos.Y = 14, 10
		}
		a.Begin(tick)
		a.Put(1, &ents[0], false)
		a.Put(2, &ents[1], true)
		a.End()
		if _, err := dec.Apply(enc.Encode(&view)); err != nil {
			t.Fatalf("tick %d: %v", tick, err)
		}
		if ok, eid := dec.Store().EqualRecords(enc.State()); !ok {
			t.Fatalf("tick %d: entity %d differs", tick, eid)
		}
	}
	for wid := uint16(1); wid <= 2; wid++ {
		held := enc.State().Get(wid)
		if held == nil || held.Rec.Position() != a.recs[wid].Position() {
			t.Fatalf("entity %d is not where it is once its position is whole again", wid)
		}
	}
}
