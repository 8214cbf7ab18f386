package main

import (
	"fmt"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/netsync/wire"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/damage"
)

// The page draws and sounds what the snapshots' events say happened: a
// shot (a tracer from the muzzle to where the round stopped, a muzzle
// flash), a hit (a flash on what was hit; a hit marker when the round was
// yours; the direction it came from when it hurt you), a blast and a
// carjack. Events returns them as JSON, one object per event with its
// kind in "k":
//
//	shot     x, y the muzzle; ex, ey where the round stopped: the body it hit,
//	         the first building, or damage.ShotRange; hit whether a body;
//	         src the shooter's wire id; by its kind's name; w its weapon;
//	         mine whether it is you (or, watching, the watched player)
//	hit      x, y the point; tgt, src the wire ids; amt the hit points;
//	         me whether you (or your vehicle) took it; mine whether you did
//	         it; kill whether it killed or wrecked; fx, fy where it came from
//	blast    x, y the centre; r the radius; me whether you stood in it
//	carjack  x, y the vehicle; me whether you were pulled out; mine
//	         whether you pulled
//
// "You" is the own character, or the watched player's for a client that
// watches one.

// stopSteps is how many halvings find where a round meets a building:
// 2^-8 of damage.ShotRange, a quarter of a metre.
const stopSteps = 8

// Events returns the events the snapshots showed since the last call as
// JSON for the page, or "" when there were none; with none it allocates
// nothing. It also notes what hurt you and your vehicle, for the death
// screen (Death). The page calls it once per frame drawn.
func (p *Page) Events() string {
	evs := p.c.TakeEvents()
	if len(evs) == 0 {
		return ""
	}
	p.watchLife()
	me, car := p.me()
	st := p.c.Decoder().Store()
	var b []byte
	add := func() {
		if b == nil {
			b = append(b, '[')
		} else {
			b = append(b, ',')
		}
	}
	used := p.used[:0]
	for range evs {
		used = append(used, false)
	}
	for i := range evs {
		ev := &evs[i]
		switch ev.Kind {
		case wire.EventShot:
			end, hit := p.shotEnd(evs, used, i)
			var by string
			var weapon uint8
			if e, ok := entity(st, ev.Source); ok {
				by, weapon = components.Kind(e.Kind).String(), e.Weapon
			}
			add()
			b = fmt.Appendf(b, `{"k":"shot","x":%.2f,"y":%.2f,"ex":%.2f,"ey":%.2f,"hit":%t,"src":%d,"by":%q,"w":%d,"mine":%t}`,
				ev.Pos.X, ev.Pos.Y, end.X, end.Y, hit, ev.Source, by, weapon, me != 0 && ev.Source == me)
		case wire.EventHit:
			from := ev.Pos
			if e, ok := entity(st, ev.Source); ok {
				from = e.Pos
			}
			kill := false
			if e, ok := entity(st, ev.Target); ok {
				kill = e.HP == 0
			}
			mine := me != 0 && (ev.Source == me || car != 0 && ev.Source == car)
			toMe := me != 0 && (ev.Target == me || car != 0 && ev.Target == car)
			if toMe {
				p.noteHarm(evs, ev, ev.Target == car)
			}
			add()
			b = fmt.Appendf(b, `{"k":"hit","x":%.2f,"y":%.2f,"tgt":%d,"src":%d,"amt":%g,"me":%t,"mine":%t,"kill":%t,"fx":%.2f,"fy":%.2f}`,
				ev.Pos.X, ev.Pos.Y, ev.Target, ev.Source, ev.Amount, toMe, mine, kill, from.X, from.Y)
		case wire.EventBlast:
			in := false
			if e, ok := entity(st, me); ok && me != 0 {
				in = math32.Hypot(e.Pos.X-ev.Pos.X, e.Pos.Y-ev.Pos.Y) < ev.Amount
			}
			add()
			b = fmt.Appendf(b, `{"k":"blast","x":%.2f,"y":%.2f,"r":%.2f,"me":%t}`, ev.Pos.X, ev.Pos.Y, ev.Amount, in)
		case wire.EventCarjack:
			add()
			b = fmt.Appendf(b, `{"k":"carjack","x":%.2f,"y":%.2f,"me":%t,"mine":%t}`,
				ev.Pos.X, ev.Pos.Y, me != 0 && ev.Target == me, me != 0 && ev.Source == me)
		}
	}
	p.used = used
	if b == nil {
		return ""
	}
	return string(append(b, ']'))
}

// shotEnd returns where shot i of evs stopped: at the point of a hit by
// the same shooter in the same events that no earlier shot took (the
// damage system resolves a round in the tick it is fired), else at the
// first building along it or at damage.ShotRange; and whether it hit a
// body.
func (p *Page) shotEnd(evs []wire.Event, used []bool, i int) (wire.Vec3, bool) {
	ev := &evs[i]
	for j := i + 1; j < len(evs); j++ {
		h := &evs[j]
		if h.Kind == wire.EventHit && h.Source == ev.Source && !used[j] && !blastBy(evs, h.Source) {
			used[j] = true
			return h.Pos, true
		}
	}
	o := phys.Flat(components.Vec3(ev.Pos))
	d := phys.Flat(components.Vec3(ev.Dir))
	if l := d.Len(); l > 0 {
		d = d.Scale(1 / l)
	}
	end := o.Add(d.Scale(damage.ShotRange))
	if st := p.static; st != nil && !st.SegmentClear(o, end) {
		lo, hi := float32(0), float32(damage.ShotRange) // clear up to lo, blocked by hi
		for range stopSteps {
			mid := (lo + hi) / 2
			if st.SegmentClear(o, o.Add(d.Scale(mid))) {
				lo = mid
			} else {
				hi = mid
			}
		}
		end = o.Add(d.Scale(hi))
	}
	return wire.Vec3{X: end.X, Y: end.Y, Z: ev.Pos.Z}, false
}

// blastBy reports whether evs hold a blast whose source is eid: its hits
// are the blast's, not a round's.
func blastBy(evs []wire.Event, eid uint16) bool {
	for i := range evs {
		if evs[i].Kind == wire.EventBlast && evs[i].Source == eid {
			return true
		}
	}
	return false
}

// entity decodes the record the client holds of eid; false for none.
func entity(st *wire.Store, eid uint16) (wire.Entity, bool) {
	var e wire.Entity
	if eid == 0 {
		return e, false
	}
	h := st.Get(eid)
	if h == nil {
		return e, false
	}
	h.Rec.Decode(&e, h.PoseFull)
	return e, true
}

// me returns the wire ids of "you": the own character (or the watched
// player's, for a client that watches one) and the vehicle it sits in, 0
// for none.
func (p *Page) me() (char, vehicle uint16) {
	w, ok := p.c.Welcome()
	if !ok {
		return 0, 0
	}
	char = w.Character
	if char == 0 || p.spectOK {
		char = p.watched(&w)
	}
	if e, ok := entity(p.c.Decoder().Store(), char); ok && (e.Act == wire.ActDriving || e.Act == wire.ActPassenger ||
		e.Act == wire.ActEntering || e.Act == wire.ActExiting) {
		vehicle = e.Vehicle
	}
	return char, vehicle
}
