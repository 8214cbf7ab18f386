// Package cars is the system of the cars that belong to someone: whose a
// car is, its lock and its key (components.CarLock, on every vehicle from
// its making, and FlagLocked in its Flags), the break-ins, and the level's
// garages, where players keep their cars.
//
//   - A car is its owner's (CarLock.Owner: a player's owner number,
//     components.Player.Owner) or nobody's, and answers to a key tag or to
//     none. A player's car at their spawn is theirs and open; a spawner's
//     cars are nobody's, with the spawner's key tag.
//   - Its owner and whoever carries a key that answers to its tag (a key
//     item or the key ring: the items system's HasKey) get into it while it
//     is locked (MayOpen: the seats system's hook), and lock or unlock it
//     within LockReach (Lock).
//   - A locked car with nobody inside gives to a crowbar (Force, through
//     the items system's use of a tool), slowly: the one forcing it stays
//     within ForceReach for BreakTicks, and the break-in is a crime the
//     police see (components.CrimeBreakIn).
//   - A garage (garages.go) keeps the cars driven into its bays by their
//     owners or the holders of their keys, at its price, and puts them
//     back out into a free bay.
//
// The server calls Lock, Force, Keep and TakeOut for its clients' commands
// between ticks, with the world unlocked; each checks what it is asked,
// changes nothing when it refuses, and says why in its error (wrapping one
// of the Err values). Update runs the break-ins and lists the cars that
// belong to someone or have a key (Marked), for the keys frames. It runs in
// the input phase after the seats.
package cars

import (
	"errors"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/catalog"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/prefab"
	"github.com/mlange-42/arche/generic"
)

// Name is the system's name in the schedule.
const Name = "cars"

// The reasons an act on a car is refused. The errors returned wrap them
// with the particulars.
var (
	ErrDead       = errors.New("you are dead")
	ErrNoCar      = errors.New("no such car")
	ErrNotYours   = errors.New("not yours")
	ErrNoKey      = errors.New("no key")
	ErrTooFar     = errors.New("too far away")
	ErrAlready    = errors.New("already so")
	ErrOccupied   = errors.New("somebody is inside")
	ErrNoTool     = errors.New("nothing to force it with")
	ErrNotDriving = errors.New("drive the car into a garage's bay first")
	ErrMoving     = errors.New("stop the car first")
	ErrWrecked    = errors.New("the car is a wreck")
	ErrNoCash     = errors.New("not enough cash")
	ErrBayTaken   = errors.New("bay taken")
	ErrNoGarage   = errors.New("no such garage")
)

// HasKey reports whether person e carries a key that answers to tag (the
// items system's HasKey: a key item, or the tag on its key ring).
type HasKey func(w *ecs.World, e ecs.Entity, tag string) bool

// Marked is a car that belongs to someone or has a key: what the keys
// frames are made of.
type Marked struct {
	WireID uint16
	Owner  uint32
	Key    uint8 // CarLock.Key: 1 + the key tag's id, 0 none
}

// System is the cars system. Make it with New.
type System struct {
	level   *levels.Level
	static  *phys.Static
	build   *prefab.Builder
	tags    []string // the level's key tags, by KeyID
	hasKey  HasKey
	garages []Garage

	forcing []force
	marked  []Marked

	locks    generic.Map2[components.CarLock, components.Flags]
	vehicles generic.Map5[components.Kind, components.Pose, components.Body, components.Seats, components.Velocity]
	ids      generic.Map1[components.Identity]
	health   generic.Map1[components.Health]
	players  generic.Map2[components.Player, components.Cash]
	person   generic.Map3[components.PersonAction, components.SeatedIn, components.Pose]
	inv      generic.Map1[components.Inventory]
	links    *generic.Filter1[components.TrailerLink]
	bodies   *generic.Filter2[components.Pose, components.Body]
	owned    *generic.Filter2[components.CarLock, components.Identity]
}

// force is a break-in under way: by forces car since the tick from.
type force struct {
	car, by ecs.Entity
	from    uint64
}

// busyList is the room the per-tick lists are made with: more than a busy
// room holds.
const busyList = 64

// New returns the cars system of w on level l (nil: no garages); static is
// the level's geometry (nil: nothing is in the way), tags the level's key
// tags by KeyID (the gates system's KeyTags), hasKey the rule of who
// carries which key (nil: nobody carries any).
func New(w *ecs.World, l *levels.Level, static *phys.Static, tags []string, hasKey HasKey) *System {
	s := &System{
		level: l, static: static, build: prefab.New(w), tags: tags, hasKey: hasKey,
		forcing:  make([]force, 0, busyList),
		marked:   make([]Marked, 0, busyList),
		locks:    generic.NewMap2[components.CarLock, components.Flags](w.Arche),
		vehicles: generic.NewMap5[components.Kind, components.Pose, components.Body, components.Seats, components.Velocity](w.Arche),
		ids:      generic.NewMap1[components.Identity](w.Arche),
		health:   generic.NewMap1[components.Health](w.Arche),
		players:  generic.NewMap2[components.Player, components.Cash](w.Arche),
		person:   generic.NewMap3[components.PersonAction, components.SeatedIn, components.Pose](w.Arche),
		inv:      generic.NewMap1[components.Inventory](w.Arche),
		links:    generic.NewFilter1[components.TrailerLink](),
		bodies:   generic.NewFilter2[components.Pose, components.Body](),
		owned:    generic.NewFilter2[components.CarLock, components.Identity](),
	}
	s.links.Register(w.Arche)
	s.bodies.Register(w.Arche)
	s.owned.Register(w.Arche)
	s.garages = garagesOf(l, w.Rules.Garages)
	return s
}

// Update runs the break-ins under way and lists the marked cars.
func (s *System) Update(w *ecs.World) {
	s.breakIns(w)
	s.marked = s.marked[:0]
	q := s.owned.Query(w.Arche)
	for q.Next() {
		l, id := q.Get()
		if l.Owner != 0 || l.Key != 0 {
			s.marked = append(s.marked, Marked{WireID: id.WireID, Owner: l.Owner, Key: l.Key})
		}
	}
}

// Marked returns the cars that belong to someone or have a key, as of the
// last Update, in the world's order. The slice is the system's own.
func (s *System) Marked() []Marked { return s.marked }

// KeyTag returns the tag of key id, "" for an id the level has none for.
func (s *System) KeyTag(id components.KeyID) string {
	if int(id) < len(s.tags) {
		return s.tags[id]
	}
	return ""
}

// person returns e's action, seat and pose, refusing the gone and the
// dead.
func (s *System) alivePerson(w *ecs.World, e ecs.Entity) (*components.PersonAction, *components.SeatedIn, *components.Pose, error) {
	if e.IsZero() || !w.Arche.Alive(e) {
		return nil, nil, nil, ErrDead
	}
	act, seated, pose := s.person.Get(e)
	if act == nil || act.Act == components.ActDead {
		return nil, nil, nil, ErrDead
	}
	if h := s.health.Get(e); h != nil && h.HP == 0 {
		return nil, nil, nil, ErrDead
	}
	return act, seated, pose, nil
}

// isCar reports whether e is a car a player may own: a KindCar.
func (s *System) isCar(w *ecs.World, e ecs.Entity) bool {
	if e.IsZero() || !w.Arche.Alive(e) {
		return false
	}
	k, _, _, _, _ := s.vehicles.Get(e)
	l, _ := s.locks.Get(e)
	return k != nil && *k == components.KindCar && l != nil
}

// occupied reports whether anyone sits in vehicle v.
func (s *System) occupied(w *ecs.World, v ecs.Entity) bool {
	_, _, _, seats, _ := s.vehicles.Get(v)
	for _, o := range seats.Occupant {
		if !o.IsZero() && w.Arche.Alive(o) {
			return true
		}
	}
	return false
}

// bodyDistance is the distance from p to vehicle v's box (0 inside).
func (s *System) bodyDistance(v ecs.Entity, p components.Vec3) float32 {
	_, pose, body, _, _ := s.vehicles.Get(v)
	co, si := pose.Rot.Heading()
	dx, dy := p.X-pose.Pos.X, p.Y-pose.Pos.Y
	lx, ly := dx*co+dy*si, -dx*si+dy*co
	ex := math32.Max(math32.Abs(lx)-body.HalfX, 0)
	ey := math32.Max(math32.Abs(ly)-body.HalfY, 0)
	return math32.Sqrt(ex*ex + ey*ey)
}

// holdsTool reports whether e carries a tool item (a crowbar).
func (s *System) holdsTool(w *ecs.World, e ecs.Entity) bool {
	inv := s.inv.Get(e)
	if inv == nil || w.Items == nil {
		return false
	}
	for _, st := range inv.Slots {
		if it := w.Items.Get(st.Item); it != nil && it.Kind == catalog.KindTool {
			return true
		}
	}
	return false
}

func dist(a, b components.Vec3) float32 {
	dx, dy := a.X-b.X, a.Y-b.Y
	return math32.Sqrt(dx*dx + dy*dy)
}
