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

// carsRoom is the room's side of the cars that belong to someone
// (systems/cars): the players' owner numbers, the welcome's garages and
// the scratch the keys frames are checked with.
type carsRoom struct {
	sys       *cars.System // nil in a room with no level
	owners    map[string]uint32
	lastOwner uint32
	garages   []textframe.WelcomeGarage
	itemKey   []uint8 // by item id: 1 + the KeyID a key item answers to, 0 none
	own, keys []uint16
	rings     generic.Map1[components.Keys]
	players   generic.Map1[components.Player]
}

// carsSession is what a session holds of the cars: its owner number, and
// what it was last told in its keys and garage frames.
type carsSession struct {
	owner      uint32
	keysSent   bool
	bits       uint64 // the key ids its keys answer to
	own, keys  []uint16
	garageSent bool // the garage frame says what s.kept.Cars holds
	dirty      bool // s.kept.Cars changed since it was posted to the store
}

// errNeedsGarage and errNeedsBay are the replies to a takeout without a
// field it needs.
var (
	errNeedsGarage = errors.New(`"place" is required: a garage's id (the welcome's garages)`)
	errNeedsBay    = errors.New(`"slot" is required: the bay your car is kept in (the garage frame's)`)
)

// initCars sets up the room's side of the cars; New calls it once the
// schedule is made.
func (g *GameServer) initCars() {
	c := &g.cars
	c.sys = systems.Cars(g.w)
	c.owners = make(map[string]uint32)
	c.rings = generic.NewMap1[components.Keys](g.w.Arche)
	c.players = generic.NewMap1[components.Player](g.w.Arche)
	if c.sys == nil {
		return
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
}

// claimCars gives s's player their owner number (the same each time an
// account comes back to the room, a new one per join without an account)
// and makes car, at their spawn, theirs and open.
func (g *GameServer) claimCars(s *Session, char, car ecs.Entity) {
	c := &g.cars
	owner, ok := c.owners[s.who.Account]
	if !ok || s.who.Account == "" {
		c.lastOwner++
		owner = c.lastOwner
		if s.who.Account != "" {
			c.owners[s.who.Account] = owner
		}
	}
	s.cars.owner = owner
	if p := c.players.Get(char); p != nil {
		p.Owner = owner
	}
	g.pf.SetCarLock(car, components.CarLock{Owner: owner}, false)
}

// carCommand does a car command of s's character through the cars system;
// its error is the reply's reason.
func (g *GameServer) carCommand(s *Session, c *textframe.Command) error {
	c.Cmd = c.Type // the reply names the command
	cs := g.cars.sys
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
		return g.keepCar(s)
	}
	return g.takeOutCar(s, c)
}

// keepCar keeps the car s drives in the garage whose bay it stands in.
func (g *GameServer) keepCar(s *Session) error {
	cs := g.cars.sys
	if len(s.kept.Cars) >= store.MaxCars {
		return fmt.Errorf("%w: you keep %d cars, the most an account keeps", cars.ErrBayTaken, len(s.kept.Cars))
	}
	gars := cs.Garages()
	taken := func(gi, bay int) bool {
		return bay > math.MaxUint8 || slices.ContainsFunc(s.kept.Cars, func(k store.Car) bool {
			return k.Garage == gars[gi].ID && int(k.Bay) == bay
		})
	}
	k, err := cs.Keep(g.w, s.char, taken)
	if err != nil {
		return err
	}
	s.kept.Cars = append(s.kept.Cars, store.Car{Garage: gars[k.Garage].ID, Bay: uint8(k.Bay), Model: k.Model, Variant: k.Variant, Health: k.Health})
	slices.SortFunc(s.kept.Cars, func(a, b store.Car) int {
		return cmp.Or(cmp.Compare(a.Garage, b.Garage), cmp.Compare(a.Bay, b.Bay))
	})
	s.cars.dirty, s.cars.garageSent = true, false
	return nil
}

// takeOutCar brings the car s keeps in bay "slot" of garage "place" out.
func (g *GameServer) takeOutCar(s *Session, c *textframe.Command) error {
	cs := g.cars.sys
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
	i := slices.IndexFunc(s.kept.Cars, func(k store.Car) bool { return k.Garage == c.Place && int(k.Bay) == *c.Slot })
	if i < 0 {
		return fmt.Errorf("%w: you keep no car in bay %d of garage %s", cars.ErrNoCar, *c.Slot, c.Place)
	}
	k := s.kept.Cars[i]
	if _, err := cs.TakeOut(g.w, s.char, gi, int(k.Bay), cars.Kept{Model: k.Model, Variant: k.Variant, Health: k.Health}, s.cars.owner); err != nil {
		return err
	}
	s.kept.Cars = slices.Delete(s.kept.Cars, i, i+1)
	s.cars.dirty, s.cars.garageSent = true, false
	return nil
}

// notifyCars sends s its keys frame when the keys it carries or the cars
// that open for it changed, and its garage frame when the cars it keeps
// did (each once on joining; no garage frame where there are no garages
// and it keeps nothing). It runs on s's snapshot ticks, reports
// whether s is still connected and allocates nothing unless a frame goes.
func (g *GameServer) notifyCars(s *Session) bool {
	c := &g.cars
	if c.sys == nil || !g.w.Arche.Alive(s.char) {
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
	c.own, c.keys = c.own[:0], c.keys[:0]
	for _, m := range c.sys.Marked() {
		switch {
		case m.Owner != 0 && m.Owner == s.cars.owner:
			c.own = append(c.own, m.WireID)
		case m.Key != 0 && bits&(1<<(m.Key-1)) != 0:
			c.keys = append(c.keys, m.WireID)
		}
	}
	sc := &s.cars
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
	if sc.garageSent || len(c.garages) == 0 && len(s.kept.Cars) == 0 {
		return true // nothing to say: no garages, nothing kept
	}
	sc.garageSent = true
	f := textframe.GarageFrame{Type: "garage", Cars: make([]textframe.KeptCar, 0, len(s.kept.Cars))}
	for _, k := range s.kept.Cars {
		f.Cars = append(f.Cars, textframe.KeptCar{Garage: k.Garage, Bay: k.Bay, Model: k.Model, Variant: k.Variant, Health: k.Health})
	}
	return g.sendText(s, f)
}
