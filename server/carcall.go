package server

import (
	"errors"
	"fmt"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/cars"
	"github.com/fiveonit/engine/systems/city"
	"github.com/fiveonit/engine/textframe"
	"github.com/mlange-42/arche/generic"
)

// Tuning of the car called back (the callcar command).
const (
	// CarCallNear (m): a car this near its owner, upright and clear of
	// the buildings, is not called: they walk to it.
	CarCallNear = 30
	// CarCallTicks is the delivery's delay: 4 s from the call to the car
	// standing near its owner.
	CarCallTicks = 4 * ecs.TickRate
	// CarCallEvery is the least time from one delivery to the next call
	// taken: 20 s, so that a car is no teleport at will.
	CarCallEvery = 20 * ecs.TickRate
	// CarCallFee is what a delivery costs, in cash, paid as the car
	// arrives: a tenth of a new player's cash, a fifth of keeping a car
	// in free roam's garage.
	CarCallFee = 50
	// CarCallRoad (m): the car is put on the traffic lane nearest its
	// owner, facing the lane's way, when one passes this near; beside
	// them otherwise.
	CarCallRoad = 25
	// carCallTilt is the most a car's rotation may lean off the upright
	// (the quaternion's X and Y parts) and still stand on its wheels.
	carCallTilt = 0.05
	// carCallFit (m) is the circle round a car's centre kept clear of
	// the buildings where it is put: the city's spots' (SpotNear).
	carCallFit = 1.2
	// carCallWedged (m) is the circle round a car's centre that must be
	// clear of the buildings and inside the level for it to be free.
	carCallWedged = 0.1
)

// The reasons a call is refused (the reply's error wraps one with the
// particulars), and a delivery called off.
var (
	ErrCarNone    = errors.New("you have no car out")
	ErrCarWrecked = errors.New("your car is wrecked")
	ErrCarNear    = errors.New("your car is already near")
	ErrCarTaken   = errors.New("your car is taken")
	ErrCarComing  = errors.New("your car is already on the way")
	ErrCarTooSoon = errors.New("your car was delivered a moment ago")
	ErrCarWanted  = errors.New("no delivery while the police want you")
	ErrCarInRun   = errors.New("not in a run: the run gives you your car")
	ErrCarNoSpot  = errors.New("no free spot for your car near you")
)

// carCallFeature brings a player's own car back to them on the callcar
// command: after CarCallTicks it stands on the road near them, upright
// and at rest, for CarCallFee. The state of each player's call is kept by
// slot; the deliveries run in its tick, before the world steps, and each
// call's news goes out as a carcall frame and a notice.
type carCallFeature struct {
	g      *GameServer
	cars   *cars.System // nil in a room with no level
	city   *city.System // nil in a room with no level
	sess   perSession[carCall]
	locks  generic.Map2[components.CarLock, components.Flags]
	drives generic.Map1[components.Drive]
	shapes generic.Map1[components.Body]
	bodies *generic.Filter2[components.Pose, components.Body]
}

// carCall is a session's call: the car on its way and when it arrives,
// when the next call is taken, and the news not yet told.
type carCall struct {
	car    ecs.Entity // the car on its way; zero for none
	due    uint64     // the tick it arrives at
	next   uint64     // the first tick a new call is taken at
	news   bool       // frame and notice wait to be sent
	frame  textframe.CarCallFrame
	notice textframe.NoticeFrame
}

// The carcall frame's states.
const (
	carComing  = "coming"
	carArrived = "arrived"
	carOff     = "off"
)

func newCarCallFeature(g *GameServer) *carCallFeature {
	f := &carCallFeature{g: g, sess: newPerSession[carCall](g.cfg.MaxPlayers)}
	f.cars = g.cars.sys
	f.city, _ = g.w.Sched.System(city.Name).(*city.System)
	f.locks = generic.NewMap2[components.CarLock, components.Flags](g.w.Arche)
	f.drives = generic.NewMap1[components.Drive](g.w.Arche)
	f.shapes = generic.NewMap1[components.Body](g.w.Arche)
	f.bodies = generic.NewFilter2[components.Pose, components.Body]()
	f.bodies.Register(g.w.Arche)
	return f
}

func (f *carCallFeature) commands() []string { return []string{"callcar"} }
func (f *carCallFeature) enter(s *Session)   { f.sess.reset(s) }
func (f *carCallFeature) leave(s *Session)   { f.sess.reset(s) }

// resume tells s's new client of a car still on its way anew; news not
// yet told stays to be told. A car gone since is told of as its
// delivery is called off.
func (f *carCallFeature) resume(s *Session) {
	c := f.sess.of(s)
	if !c.news && !c.car.IsZero() && f.g.w.Arche.Alive(c.car) {
		f.tellComing(c, f.g.ids.Get(c.car).WireID, f.g.posOf(c.car))
	}
}

// command takes s's call of its car, or says why not.
func (f *carCallFeature) command(s *Session, cmd *textframe.Command) error {
	g := f.g
	cmd.Cmd = cmd.Type // the reply names the command
	switch {
	case f.cars == nil || f.city == nil:
		return errors.New("not available: this room has no level")
	case s.who.Spectate:
		return errors.New("a spectator has no car")
	case g.runs != nil:
		return ErrCarInRun
	}
	c, now := f.sess.of(s), g.w.Tick()
	if !c.car.IsZero() {
		return fmt.Errorf("%w: here in %s", ErrCarComing, seconds(c.due-min(now, c.due)))
	}
	if now < c.next {
		return fmt.Errorf("%w: call it again in %s", ErrCarTooSoon, seconds(c.next-now))
	}
	car, err := f.check(s)
	if err != nil {
		return err
	}
	*c = carCall{car: car, due: now + CarCallTicks, next: c.next}
	f.tellComing(c, g.ids.Get(car).WireID, f.g.posOf(car))
	return nil
}

// check returns s's car if it may be brought to s now, or says why not:
// s is dead or wanted, has no car out, or its car is wrecked, has someone
// in it, stands near and free, or s cannot pay the fee.
func (f *carCallFeature) check(s *Session) (ecs.Entity, error) {
	g := f.g
	if !g.w.Arche.Alive(s.char) {
		return ecs.Entity{}, cars.ErrDead
	}
	if h := g.health.Get(s.char); h == nil || h.HP == 0 {
		return ecs.Entity{}, cars.ErrDead
	}
	wanted, cash := g.wanted.Get(s.char)
	if wanted != nil && wanted.Stars > 0 {
		return ecs.Entity{}, fmt.Errorf("%w: lose the %d-star Wanted level first", ErrCarWanted, wanted.Stars)
	}
	car := g.cars.ownCar(s)
	if car.IsZero() {
		if len(g.cars.sess.of(s).kept) > 0 {
			return car, fmt.Errorf("%w: the cars you keep are in a garage; take one out there", ErrCarNone)
		}
		return car, ErrCarNone
	}
	if _, fl := f.locks.Get(car); fl.Bits&components.FlagWrecked != 0 {
		return car, f.wrecked(s)
	}
	for i, o := range g.seats.Get(car).Occupant {
		switch {
		case o.IsZero() || !g.w.Arche.Alive(o):
		case o == s.char:
			return car, fmt.Errorf("%w: you sit in it", ErrCarNear)
		case i == 0:
			return car, fmt.Errorf("%w: someone else is driving it", ErrCarTaken)
		default:
			return car, fmt.Errorf("%w: someone sits in it", ErrCarTaken)
		}
	}
	if d := flatDist(f.g.posOf(s.char), f.g.posOf(car)); d <= CarCallNear && f.free(car) {
		return car, fmt.Errorf("%w: it stands %.0f m away", ErrCarNear, d)
	}
	if cash == nil || cash.Amount < CarCallFee {
		have := int64(0)
		if cash != nil {
			have = cash.Amount
		}
		return car, fmt.Errorf("%w: a delivery costs %d, you have %d", cars.ErrNoCash, CarCallFee, have)
	}
	return car, nil
}

// wrecked says that s's car is wrecked and where another comes from.
func (f *carCallFeature) wrecked(s *Session) error {
	if len(f.g.cars.sess.of(s).kept) > 0 {
		return fmt.Errorf("%w: no delivery brings it back; take a car you keep out of its garage", ErrCarWrecked)
	}
	if len(f.cars.Garages()) > 0 {
		return fmt.Errorf("%w: no delivery brings it back; find another car, and keep it in a garage to have it again", ErrCarWrecked)
	}
	return fmt.Errorf("%w: no delivery brings it back; find another car", ErrCarWrecked)
}

// free reports whether car stands free: on its wheels (not flipped) and
// not wedged into a building or off the level. A car that is not free is
// brought back however near it stands.
func (f *carCallFeature) free(car ecs.Entity) bool {
	p := f.g.posOf(car)
	r := p.Rot
	if math32.Abs(r.X) > carCallTilt || math32.Abs(r.Y) > carCallTilt {
		return false
	}
	return f.g.static == nil || !f.g.static.Overlaps(phys.Flat(p.Pos), carCallWedged)
}

// tick delivers the cars whose time has come, in the sessions' order.
func (f *carCallFeature) tick() {
	now := f.g.w.Tick()
	for _, s := range f.g.sessions {
		if c := f.sess.of(s); !c.car.IsZero() && now >= c.due && !s.closed {
			f.deliver(s, c)
		}
	}
}

// deliver puts s's car on a free spot of the road near s, upright and at
// rest, and takes the fee; or calls the delivery off, for nothing, when
// what the call needed no longer holds.
func (f *carCallFeature) deliver(s *Session, c *carCall) {
	g := f.g
	car := c.car
	wid := uint16(0)
	if g.w.Arche.Alive(car) {
		wid = g.ids.Get(car).WireID
	}
	c.car = ecs.Entity{}
	got, err := f.check(s)
	if err == nil && got != car {
		err = errors.New("you took another car out since the call")
	}
	var pos components.Vec3
	var yaw float32
	if err == nil {
		var ok bool
		if pos, yaw, ok = f.spot(s, car); !ok {
			err = ErrCarNoSpot
		}
	}
	if err != nil {
		f.tellOff(c, wid, err)
		return
	}
	g.bodies.place(car, pos, yaw)
	if d := f.drives.Get(car); d != nil {
		*d = components.Drive{}
	}
	_, cash := g.wanted.Get(s.char)
	cash.Amount -= CarCallFee
	c.next = g.w.Tick() + CarCallEvery
	d := flatDist(f.g.posOf(s.char), f.g.posOf(car))
	c.news = true
	c.frame = textframe.CarCallFrame{Type: "carcall", State: carArrived, Car: wid, At: &[2]float32{pos.X, pos.Y}, Fee: CarCallFee}
	c.notice = textframe.NoticeFrame{Type: "notice", Kind: "success",
		Text: fmt.Sprintf("Your %s is here, %.0f m away: $%d paid.", f.model(car), d, CarCallFee)}
}

// carCallAlong (m) are the places along the way tried in turn for the
// car, from the one level with its owner: a car's length and a gap apart.
var carCallAlong = [...]float32{0, 8, -8, 16, -16}

// spot returns where s's car is put: on the lane nearest s, facing its
// way, when one passes within CarCallRoad, else beside s facing as s
// does. The places along that way (carCallAlong) are tried on it first,
// then each with the first free spot to its sides (city.SpotNear); a
// place is taken when the car fits there clear of the buildings and of
// every other body (clear). false when none is.
func (f *carCallFeature) spot(s *Session, car ecs.Entity) (components.Vec3, float32, bool) {
	g := f.g
	me := f.g.posOf(s.char)
	if act, in, _ := g.persons.Get(s.char); act != nil && !in.Vehicle.IsZero() && g.w.Arche.Alive(in.Vehicle) {
		me = f.g.posOf(in.Vehicle) // in another car: beside that one
	}
	at := levels.Vec2{X: me.Pos.X, Y: me.Pos.Y}
	l := g.cfg.Level
	try := func(at levels.Vec2, yaw float32) (components.Vec3, bool) {
		sn, co := math32.Sincos(yaw)
		for _, k := range carCallAlong {
			p := components.Vec3{X: at.X + co*k, Y: at.Y + sn*k, Z: l.Ground.Height}
			if (g.static == nil || !g.static.Overlaps(phys.Flat(p), carCallFit)) && f.clear(p, car) {
				return p, true
			}
		}
		for _, k := range carCallAlong {
			if p, ok := f.city.SpotNear(g.w, levels.Vec2{X: at.X + co*k, Y: at.Y + sn*k}, yaw); ok && f.clear(p, car) {
				return p, true
			}
		}
		return components.Vec3{}, false
	}
	if lane, d := l.NearestLane(at); lane >= 0 && d <= CarCallRoad {
		a, b := l.LaneLine(lane)
		ab := b.Sub(a)
		t := float32(0)
		if n := ab.Dot(ab); n > 0 {
			t = min(max(at.Sub(a).Dot(ab)/n, 0), 1)
		}
		yaw := math32.Atan2(ab.Y, ab.X)
		if p, ok := try(a.Add(ab.Scale(t)), yaw); ok {
			return p, yaw, true
		}
	}
	yaw := me.Rot.Yaw()
	p, ok := try(at, yaw)
	return p, yaw, ok
}

// clear reports whether car, standing at p, would touch no other body:
// each body taken as the circle round it, the car too (SpotNear keeps
// bodies' centres apart by a car's width only, which a car behind or
// ahead on the lane may be nearer than its length).
func (f *carCallFeature) clear(p components.Vec3, car ecs.Entity) bool {
	reach := func(b *components.Body) float32 {
		if b.Shape == components.ShapeBox {
			return math32.Sqrt(b.HalfX*b.HalfX + b.HalfY*b.HalfY)
		}
		return b.Radius
	}
	r := reach(f.shapes.Get(car))
	q := f.bodies.Query(f.g.w.Arche)
	for q.Next() {
		pose, b := q.Get()
		dx, dy := pose.Pos.X-p.X, pose.Pos.Y-p.Y
		if q.Entity() != car && dx*dx+dy*dy < (r+reach(b))*(r+reach(b)) {
			q.Close()
			return false
		}
	}
	return true
}

// model is car's model's name, as a player says it ("sedan").
func (f *carCallFeature) model(car ecs.Entity) string {
	if id := f.g.ids.Get(car); id != nil && int(id.Model) < len(phys.CarModels) {
		return phys.CarModels[id.Model].Name
	}
	return "car"
}

// tellComing makes the news of a call taken: the car (wire id wid) is
// on its way from where it stands.
func (f *carCallFeature) tellComing(c *carCall, wid uint16, from *components.Pose) {
	now := f.g.w.Tick()
	c.news = true
	c.frame = textframe.CarCallFrame{Type: "carcall", State: carComing, Car: wid, At: &[2]float32{from.Pos.X, from.Pos.Y},
		Ends: c.due + 1, Fee: CarCallFee}
	c.notice = textframe.NoticeFrame{Type: "notice", Kind: "info",
		Text: fmt.Sprintf("Your %s is on its way: here in %s, $%d on arrival.", f.model(c.car), seconds(c.due-min(now, c.due)), CarCallFee)}
}

// tellOff makes the news of a delivery called off, for why.
func (f *carCallFeature) tellOff(c *carCall, wid uint16, why error) {
	c.news = true
	c.frame = textframe.CarCallFrame{Type: "carcall", State: carOff, Car: wid, Why: why.Error()}
	c.notice = textframe.NoticeFrame{Type: "notice", Kind: "failure",
		Text: "Your car's delivery is called off, nothing paid: " + why.Error() + "."}
}

// notify sends s the news of its call, the carcall frame then the
// notice, once. It allocates nothing on a tick without news.
func (f *carCallFeature) notify(s *Session) bool {
	c := f.sess.of(s)
	if !c.news {
		return true
	}
	c.news = false
	g := f.g
	c.frame.Tick = g.w.Tick()
	return g.sendText(s, c.frame) && g.sendText(s, c.notice)
}

// flatDist is the distance between two poses on the ground.
func flatDist(a, b *components.Pose) float32 { return phys.Flat(a.Pos).Sub(phys.Flat(b.Pos)).Len() }

// seconds writes a count of ticks as whole seconds, rounded up ("4 s").
func seconds(ticks uint64) string {
	return fmt.Sprintf("%d s", (ticks+ecs.TickRate-1)/ecs.TickRate)
}
