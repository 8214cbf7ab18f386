package netsync

import (
	"slices"
	"testing"

	"github.com/fiveonit/engine/netsync/wire"
)

// TestArenaTicks: what the arena says of an entity tick by tick: present or
// gone, its life, which of its parts changed when, its rest, Always, and the
// log (jumps and new lives, the ids changed).
func TestArenaTicks(t *testing.T) {
	a := NewArena()
	car := wire.Entity{Kind: wire.KindCar, Gen: 1, Pos: wire.Vec3{X: 10, Y: 20}, Rot: wire.Quat{W: 1}, HP: 100}
	type want struct {
		present, always, rest bool
		life                  uint32
		poseAt, stateAt       uint32
		logged, changed       bool // in the log's ids; in the tick's changed bits
	}
	steps := []struct {
		name   string
		edit   func(e *wire.Entity) bool // false: not Put this tick
		always bool
		want   want
	}{
		{"first put: a new life", func(e *wire.Entity) bool { return true }, false,
			want{present: true, rest: true, life: 1, poseAt: 1, stateAt: 1, logged: true, changed: true}},
		{"the same values: nothing changed", func(e *wire.Entity) bool { return true }, false,
			want{present: true, rest: true, life: 1, poseAt: 1, stateAt: 1}},
		{"a step: the pose", func(e *wire.Entity) bool { e.Pos.X += 0.5; e.Lin.X = 30; return true }, false,
			want{present: true, life: 1, poseAt: 3, stateAt: 1, changed: true}},
		{"health: the state", func(e *wire.Entity) bool { e.HP = 90; return true }, false,
			want{present: true, life: 1, poseAt: 3, stateAt: 4, changed: true}},
		{"below a quantum: no group changed", func(e *wire.Entity) bool { e.Lin.X += 0.0001; return true }, false,
			want{present: true, life: 1, poseAt: 5, stateAt: 4, changed: true}}, // the full pose's float changed
		{"always now", func(e *wire.Entity) bool { return true }, true,
			want{present: true, always: true, life: 1, poseAt: 5, stateAt: 4, logged: true, changed: true}},
		{"a jump", func(e *wire.Entity) bool { e.Pos.X += 100; return true }, true,
			want{present: true, always: true, life: 1, poseAt: 7, stateAt: 4, logged: true, changed: true}},
		{"not put: gone", func(e *wire.Entity) bool { return false }, true,
			want{life: 1, poseAt: 7, stateAt: 4, changed: true}},
		{"back: a new life", func(e *wire.Entity) bool { e.Lin = wire.Vec3{}; return true }, false,
			want{present: true, rest: true, life: 2, poseAt: 9, stateAt: 9, logged: true, changed: true}},
		{"a new generation: a new life", func(e *wire.Entity) bool { e.Gen++; return true }, false,
			want{present: true, rest: true, life: 3, poseAt: 10, stateAt: 10, logged: true, changed: true}},
	}
	const wid = 300
	for i, s := range steps {
		tick := uint32(i + 1)
		a.Begin(tick)
		if s.edit(&car) {
			a.Put(wid, &car, s.always)
		}
		a.End()
		h := &a.hot[wid]
		wids, _ := a.logged(tick)
		got := want{
			present: a.present(wid), always: h.state&stAlways != 0, rest: h.state&stRest != 0, life: uint32(h.life),
			poseAt: a.moves[wid].poseAt, stateAt: h.stateAt,
			logged: slices.Contains(wids, wid), changed: a.changedAt(wid) > tick-1,
		}
		if got != s.want {
			t.Fatalf("tick %d, %s: got %+v, want %+v", tick, s.name, got, s.want)
		}
		if got.present && (a.recs[wid].Kind() != wire.KindCar || a.recs[wid].Gen() != car.Gen || h.x != car.Pos.X) {
			t.Fatalf("tick %d, %s: the facts are not the entity's", tick, s.name)
		}
		if got.present != slices.Contains(a.live, wid) {
			t.Fatalf("tick %d, %s: the live list and present disagree", tick, s.name)
		}
	}
	// The changes of the last k ticks add up.
	if a.changedAt(wid) <= a.Tick()-3 {
		t.Fatal("changedAt misses a change of the last tick")
	}
}
