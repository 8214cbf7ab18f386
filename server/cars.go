package server

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/fiveonit/engine/catalog"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/store"
	"github.com/fiveonit/engine/systems"
	"github.com/fiveonit/engine/systems/cars"
	"github.com/fiveonit/engine/textframe"
	"github.com/mlange-42/arche/generic"
)

// carsFeature wires the cars that belong to someone (systems/cars) to the
// sessions: the car commands, the players' owner numbers, the cars each
// keeps in the garages, the keys and garage frames, and the welcome's
// garages.
type carsFeature struct {
	g         *GameServer
	sess      perSession[carsSession]
	sys       *cars.System // nil in a room with no level
	owners    map[string]uint32
	lastOwner uint32
	garages   []textframe.WelcomeGarage
	itemKey   []uint8 // by item id: 1 + the KeyID a key item answers to, 0 none
	own, keys []uint16
	rings     generic.Map1[components.Keys]
	players   generic.Map1[components.Player]
	locks     generic.Map1[components.CarLock]
}

// carsSession is what a session holds of the cars: its owner number, the
// cars it keeps in the garages, and what it was last told in its keys and
// garage frames.
type carsSession struct {
	owner      uint32
	kept       []store.Car // the cars it keeps, by garage and bay (the account's, when it has one)
	keysSent   bool
	bits       uint64 // the key ids its keys answer to
	own, keys  []uint16
	garageSent bool       // the garage frame says what kept holds
	dirty      bool       // kept changed since the accounts feature took it
	out        ecs.Entity // the car it last took out of a garage
}

// errNeedsGarage and errNeedsBay are the replies to a takeout without a
// field it needs.
var (
	errNeedsGarage = errors.New(`"place" is required: a garage's id (the welcome's garages)`)
	errNeedsBay    = errors.New(`"slot" is required: the bay your car is kept in (the garage frame's)`)
)

// newCarsFeature sets up the room's side of the cars, once the schedule is
// made.
func newCarsFeature(g *GameServer) *carsFeature {
	c := &carsFeature{g: g, sess: newPerSession[carsSession](g.cfg.MaxPlayers)}
	c.sys = systems.Cars(g.w)
	c.owners = make(map[string]uint32)
	c.rings = generic.NewMap1[components.Keys](g.w.Arche)
	c.players = generic.NewMap1[components.Player](g.w.Arche)
	c.locks = generic.NewMap1[components.CarLock](g.w.Arche)
	if c.sys == nil {
		return c
	}
	c.own, c.keys = make([]uint16, 0, 64), make([]uint16, 0, 64)
	tags := systems.Gates(g.w).KeyTags()
	if cat := g.w.Items; cat != nil {
		c.itemKey = make([]uint8, cat.Len()+1)
		for i, it := range cat.Items() {
			if it.Kind == catalog.KindKey {
				if k := slices.Index(tags, it.Key); k >= 0 {
					c.itemKey[i+1] = uint8(k) + 1
				}
			}
		}
	}
	for _, gar := range c.sys.Garages() {
		wg := textframe.WelcomeGarage{ID: gar.ID, Price: gar.Price, Bays: make([]textframe.WelcomeBay, 0, len(gar.Bays))}
		for _, b := range gar.Bays {
			wg.Bays = append(wg.Bays, textframe.WelcomeBay{Pos: [2]float32{b.Pos.X, b.Pos.Y}, Yaw: b.Yaw})
		}
		c.garages = append(c.garages, wg)
	}
	return c
}

func (c *carsFeature) commands() []string { return []string{"lock", "unlock", "keep", "takeout"} }

func (c *carsFeature) welcome(_ *Session, f *textframe.Welcome) { f.Garages = c.garages }

func (c *carsFeature) leave(*Session) {}

// enter gives a player their owner number and makes the car at their
// spawn theirs. The cars kept start empty: the accounts feature, after
// this one, loads an account's.
func (c *carsFeature) enter(s *Session) {
	sc := c.sess.of(s)
	own, keys, kept := sc.own[:0], sc.keys[:0], sc.kept[:0] // the slot's lists are reused
	*sc = carsSession{own: own, keys: keys, kept: kept}
	if !s.who.Spectate {
		c.claim(s)
	}
}

// resume tells s's new client its keys and the cars it keeps anew.
func (c *carsFeature) resume(s *Session) {
	sc := c.sess.of(s)
	sc.keysSent, sc.garageSent = false, false
}

// load sets the cars s keeps to an account's.
func (c *carsFeature) load(s *Session, kept []store.Car) {
	sc := c.sess.of(s)
	sc.kept = append(sc.kept[:0], kept...)
}

// takeKept returns the cars s keeps and whether they changed since the
// last call.
func (c *carsFeature) takeKept(s *Session) ([]store.Car, bool) {
	sc := c.sess.of(s)
	dirty := sc.dirty
	sc.dirty = false
	return sc.kept, dirty
}

// claim gives s's player their owner number (the same each time an
// account comes back to the room, a new one per join without an account)
// and makes the car at their spawn theirs and open.
func (c *carsFeature) claim(s *Session) {
	owner, ok := c.owners[s.who.Account]
	if !ok || s.who.Account == "" {
		c.lastOwner++
		owner = c.lastOwner
		if s.who.Account != "" {
			c.owners[s.who.Account] = owner
		}
	}
	c.sess.of(s).owner = owner
	if p := c.players.Get(s.char); p != nil {
		p.Owner = owner
	}
	c.g.pf.SetCarLock(s.car, components.CarLock{Owner: owner}, false)
}

// ownCar returns the car s calls its own: the one it last took out of a
// garage while that is in the world and still s's, else the one it came
// in with while that is; the zero entity when neither is (kept in a
// garage, or gone).
func (c *carsFeature) ownCar(s *Session) ecs.Entity {
	sc := c.sess.of(s)
	for _, car := range [...]ecs.Entity{sc.out, s.car} {
		if car.IsZero() || !c.g.w.Arche.Alive(car) {
			continue
		}
		if l := c.locks.Get(car); l != nil && l.Owner == sc.owner {
			return car
		}
	}
	return ecs.Entity{}
}

// command does a car command of s's character through the cars system;
// its error is the reply's reason.
func (cf *carsFeature) command(s *Session, c *textframe.Command) error {
	g := cf.g
	c.Cmd = c.Type // the reply names the command
	cs := cf.sys
	switch {
	case cs == nil:
		return errors.New("not available: this room has no level")
	case s.who.Spectate:
		return errors.New("a spectator has no car")
	}
	switch c.Type {
	case "lock", "unlock":
		return cs.Lock(g.w, s.char, c.Target, c.Type == "lock")
	case "keep":
		return cf.keep(s)
	}
	return cf.takeOut(s, c)
}

// keep keeps the car s drives in the garage whose bay it stands in.
func (c *carsFeature) keep(s *Session) error {
	cs, sc := c.sys, c.sess.of(s)
	if len(sc.kept) >= store.MaxCars {
		return fmt.Errorf("%w: you keep %d cars, the most an account keeps", cars.ErrBayTaken, len(sc.kept))
	}
	gars := cs.Garages()
	taken := func(gi, bay int) bool {
		return bay > math.MaxUint8 || slices.ContainsFunc(sc.kept, func(k store.Car) bool {
			return k.Garage == gars[gi].ID && int(k.Bay) == bay
		})
	}
	k, err := cs.Keep(c.g.w, s.char, taken)
	if err != nil {
		return err
	}
	sc.kept = append(sc.kept, store.Car{Garage: gars[k.Garage].ID, Bay: uint8(k.Bay), Model: k.Model, Variant: k.Variant, Health: k.Health})
	slices.SortFunc(sc.kept, func(a, b store.Car) int {
		return cmp.Or(cmp.Compare(a.Garage, b.Garage), cmp.Compare(a.Bay, b.Bay))
	})
	sc.dirty, sc.garageSent = true, false
	return nil
}

// takeOut brings the car s keeps in bay "slot" of garage "place" out.
func (cf *carsFeature) takeOut(s *Session, c *textframe.Command) error {
	cs, sc := cf.sys, cf.sess.of(s)
	switch {
	case c.Place == "":
		return errNeedsGarage
	case c.Slot == nil:
		return errNeedsBay
	}
	gi, ok := cs.GarageIndex(c.Place)
	if !ok {
		return fmt.Errorf("%w: this level has none called %q", cars.ErrNoGarage, c.Place)
	}
	i := slices.IndexFunc(sc.kept, func(k store.Car) bool { return k.Garage == c.Place && int(k.Bay) == *c.Slot })
	if i < 0 {
		return fmt.Errorf("%w: you keep no car in bay %d of garage %s", cars.ErrNoCar, *c.Slot, c.Place)
	}
	k := sc.kept[i]
	car, err := cs.TakeOut(cf.g.w, s.char, gi, int(k.Bay), cars.Kept{Model: k.Model, Variant: k.Variant, Health: k.Health}, sc.owner)
	if err != nil {
		return err
	}
	sc.out = car
	sc.kept = slices.Delete(sc.kept, i, i+1)
	sc.dirty, sc.garageSent = true, false
	return nil
}

// notify sends s its keys frame when the keys it carries or the cars that
// open for it changed, and its garage frame when the cars it keeps did
// (each once on joining; no garage frame where there are no garages and
// it keeps nothing). It runs on s's snapshot ticks and allocates nothing
// unless a frame goes.
func (c *carsFeature) notify(s *Session) bool {
	g := c.g
	if c.sys == nil || !s.playing(g.w) || !s.snapshotDue(g.w.Tick()) {
		return true
	}
	var bits uint64
	if k := c.rings.Get(s.char); k != nil {
		bits = k.Bits
	}
	if inv := g.inv.Get(s.char); inv != nil {
		for _, st := range inv.Slots {
			if int(st.Item) < len(c.itemKey) && c.itemKey[st.Item] != 0 {
				bits |= 1 << (c.itemKey[st.Item] - 1)
			}
		}
	}
	sc := c.sess.of(s)
	c.own, c.keys = c.own[:0], c.keys[:0]
	for _, m := range c.sys.Marked() {
		switch {
		case m.Owner != 0 && m.Owner == sc.owner:
			c.own = append(c.own, m.WireID)
		case m.Key != 0 && bits&(1<<(m.Key-1)) != 0:
			c.keys = append(c.keys, m.WireID)
		}
	}
	if sc.own == nil {
		sc.own, sc.keys = make([]uint16, 0, 8), make([]uint16, 0, 8) // a frame's lists are [], not null
	}
	if !sc.keysSent || bits != sc.bits || !slices.Equal(c.own, sc.own) || !slices.Equal(c.keys, sc.keys) {
		sc.keysSent, sc.bits = true, bits
		sc.own, sc.keys = append(sc.own[:0], c.own...), append(sc.keys[:0], c.keys...)
		f := textframe.KeysFrame{Type: "keys", Tags: []string{}, Own: sc.own, Keys: sc.keys}
		for id := range components.MaxKeys {
			if bits&(1<<id) != 0 {
				f.Tags = append(f.Tags, c.sys.KeyTag(components.KeyID(id)))
			}
		}
		if !g.sendText(s, f) {
			return false
		}
	}
	if sc.garageSent || len(c.garages) == 0 && len(sc.kept) == 0 {
		return true // nothing to say: no garages, nothing kept
	}
	sc.garageSent = true
	f := textframe.GarageFrame{Type: "garage", Cars: make([]textframe.KeptCar, 0, len(sc.kept))}
	for _, k := range sc.kept {
		f.Cars = append(f.Cars, textframe.KeptCar{Garage: k.Garage, Bay: k.Bay, Model: k.Model, Variant: k.Variant, Health: k.Health})
	}
	return g.sendText(s, f)
}
