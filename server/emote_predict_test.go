package server

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/social"
)

// TestClientPredictsAnEmote: a player playing an emote stands on foot, so
// its client goes on predicting its character (an emote is ended by the
// next move, which must not wait a round trip).
func TestClientPredictsAnEmote(t *testing.T) {
	l, err := levels.Load("test-flat")
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{Room: "emote", Level: l, Seed: 1, Rules: ecs.Rules{Name: "test", Traffic: -1, Pedestrians: -1}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close("test over")
	p := newInproc(t, g, false)
	step := func(d components.Drive) {
		if _, ok := p.c.Welcome(); ok {
			if err := p.c.Tick(d); err != nil {
				t.Fatal(err)
			}
		}
		g.Tick()
		p.deliver(t)
	}
	for range 10 {
		step(components.Drive{})
	}
	step(components.Drive{Pressed: components.BtnUse})
	for range 90 { // out of the car
		step(components.Drive{})
	}
	if err := p.s.Receive([]byte(`{"type":"emote","emote":2}`), true); err != nil {
		t.Fatal(err)
	}
	emoted := 0
	for range 60 {
		step(components.Drive{})
		act, _, _ := g.persons.Get(p.s.char)
		if _, ok := social.IsEmote(act.Act); !ok {
			continue
		}
		emoted++
		w, _ := p.c.Welcome()
		wid, car, _ := p.c.Controlled()
		if wid != w.Character || car {
			t.Fatalf("during an emote the client controls %d (car %v), want its character %d", wid, car, w.Character)
		}
		if pw, _, _, ok := p.c.Predicted(); !ok || pw != w.Character {
			t.Fatalf("during an emote the client predicts %d (%v), want its character %d", pw, ok, w.Character)
		}
	}
	if emoted < 30 {
		t.Fatalf("the emote played %d ticks: nothing to predict", emoted)
	}
}
