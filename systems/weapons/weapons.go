// Package weapons is the system that fires the weapons people hold and
// throws their grenades.
//
// Guns: a person on foot, alive, with a gun in hand (PersonAction.Weapon:
// the pistol or the SMG) and the trigger held (BtnFire) fires a round every
// gun's Every ticks toward where they look (Drive.LookYaw, which also
// becomes their aim). A round is an EventShot in the tick's events (Source
// the shooter, Pos the muzzle, Dir the direction, Amount the harm it does);
// the damage system, after the step, finds what it hits and does the harm
// (so the safe zones, the ghosts and the players-hurt rule apply to shots
// as to crashes). The shot's View is the shooter's Drive.View: the tick
// of the world the player saw, which the damage system rewinds the
// targets to (package lagcomp). A shot by a player is a CrimeShooting. BtnWeapon draws
// the first gun the person carries, or holsters the one in hand.
//
// A person who carries an inventory (a player's character) draws only a
// gun whose item (the room's catalog's) it holds, and each round takes one
// of the gun's ammunition: none left, the trigger clicks. A person without
// one (an NPC) fires freely.
//
// Grenades: a person on foot holding BtnPin with a grenade in the
// inventory pulls its pin (the grenade is in hand); releasing BtnPin
// throws it toward where they look, the farther the longer the pin was
// held (ThrowMin to ThrowMax m/s, reached after ChargeTicks), as a
// KindProjectile with a components.Projectile: the physics step flies it
// and bounces it off the static world, and the damage system blows it
// FuseTicks after the throw. The input queue's guess keeps BtnPin held, so
// a gap in a client's inputs never throws: only the thrower's own release
// does. Dying, or getting into a car, with the pin out drops the grenade
// live at the person's feet.
//
// It runs in the input phase after the seats (a person who just got out
// may shoot) and before anything reads the tick's events.
package weapons

import (
	"slices"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/prefab"
	"github.com/mlange-42/arche/generic"
)

// Name is the system's name in the schedule.
const Name = "weapons"

// Pistol is the PersonAction.Weapon of the pistol (0 is bare hands).
const Pistol = components.WeaponPistol

// The pistol: a round every PistolEvery ticks (four a second) doing
// PistolHarm (four rounds kill a person). The SMG: ten a second, doing
// SMGHarm.
const (
	PistolEvery = 15
	PistolHarm  = 25
	SMGEvery    = 6
	SMGHarm     = 12
)

// Gun is one gun's rate and harm.
type Gun struct {
	Every uint64  // ticks between rounds
	Harm  float32 // hit points a round takes
}

// Guns are the guns by components.Weapon*; zero for what is no gun.
var Guns = [...]Gun{components.WeaponPistol: {PistolEvery, PistolHarm}, components.WeaponSMG: {SMGEvery, SMGHarm}, components.WeaponGrenade: {}}

// The throw: a grenade leaves the hand ThrowHeight metres up at
// ThrowAngle above the level, at ThrowMin m/s (about 6 m away) for a tap
// up to ThrowMax (about 30 m) for a pin held ChargeTicks. It blows
// FuseTicks after the throw, within BlastRadius, doing BlastHarm to a
// person at its centre.
const (
	ThrowHeight = 1.5
	ThrowAngle  = 0.61 // radians, 35°
	ThrowMin    = 8
	ThrowMax    = 18
	ChargeTicks = ecs.TickRate
	FuseTicks   = 3 * ecs.TickRate
	BlastRadius = 6
	BlastHarm   = 120
)

// muzzle (m) is how far in front of the shooter's centre a round starts:
// beyond their own body.
const muzzle = 0.5

// System is the weapons system. Make it with New.
type System struct {
	build    *prefab.Builder
	people   *generic.Filter2[components.PersonAction, components.Drive]
	person   generic.Map3[components.Identity, components.Health, components.SeatedIn]
	playerOf generic.Map1[components.Player]
	aim      generic.Map2[components.Pose, components.Drive]
	inv      generic.Map1[components.Inventory]
	actions  generic.Map1[components.PersonAction]
	last     []fired // by entity index: the last round and the pin of each person
	shooters []shooter
	throws   []throw
	pulls    []ecs.Entity // who began to hold BtnPin this tick
}

type fired struct {
	e    ecs.Entity
	tick uint64 // the tick of the last round, +1 (0: none yet)
	pin  uint64 // the tick the pin was pulled, +1 (0: no pin out)
	prev uint8  // the weapon in hand before the pin was pulled
}

type shooter struct {
	e   ecs.Entity
	wid uint16
	gun uint8
}

type throw struct {
	e     ecs.Entity
	wid   uint16
	speed float32
}

// New returns the weapons system of w.
func New(w *ecs.World) *System {
	s := &System{
		build:    prefab.New(w),
		people:   generic.NewFilter2[components.PersonAction, components.Drive](),
		person:   generic.NewMap3[components.Identity, components.Health, components.SeatedIn](w.Arche),
		playerOf: generic.NewMap1[components.Player](w.Arche),
		aim:      generic.NewMap2[components.Pose, components.Drive](w.Arche),
		inv:      generic.NewMap1[components.Inventory](w.Arche),
		actions:  generic.NewMap1[components.PersonAction](w.Arche),
	}
	s.people.Register(w.Arche)
	return s
}

// holds reports whether a person with inventory inv (nil: an NPC, who
// holds anything) carries the item that puts weapon in hand.
func holds(w *ecs.World, inv *components.Inventory, weapon uint8) bool {
	if inv == nil {
		return weapon == components.WeaponPistol
	}
	id := w.Items.Weapon(weapon)
	return id != 0 && inv.Count(id) > 0
}

// drawn is the weapon in hand after a BtnWeapon press: the first gun held
// drawn from bare hands (or a grenade in hand), holstered otherwise.
func drawn(w *ecs.World, inv *components.Inventory, in uint8) uint8 {
	if in == components.WeaponPistol || in == components.WeaponSMG {
		return components.WeaponNone
	}
	for _, g := range [...]uint8{components.WeaponPistol, components.WeaponSMG} {
		if holds(w, inv, g) {
			return g
		}
	}
	return in
}

// Update draws and holsters the guns of the people on foot who pressed
// BtnWeapon, pulls and throws the grenades, and fires the rounds of the
// tick, shooters and throwers by wire id.
func (s *System) Update(w *ecs.World) {
	tick := w.Tick()
	s.shooters, s.throws, s.pulls = s.shooters[:0], s.throws[:0], s.pulls[:0]
	q := s.people.Query(w.Arche)
	for q.Next() {
		act, drive := q.Get()
		e := q.Entity()
		f := s.pinOf(e)
		if f == nil && act.Weapon == components.WeaponNone &&
			drive.Pressed&components.BtnWeapon == 0 && drive.Held&components.BtnPin == 0 {
			continue // most people: nothing in hand, nothing asked
		}
		id, hp, seated := s.person.Get(e)
		inv := s.inv.Get(e)
		onFoot := act.Act == components.ActOnFoot && hp.HP > 0 && seated.Vehicle.IsZero()
		if f != nil {
			s.pin(f, act, drive, id.WireID, onFoot, tick)
		} else if drive.Held&components.BtnPin != 0 && onFoot && inv != nil {
			s.pulls = append(s.pulls, e)
		}
		if drive.Pressed&components.BtnWeapon != 0 && onFoot {
			act.Weapon = drawn(w, inv, act.Weapon)
		}
		if act.Weapon != components.WeaponNone && !holds(w, inv, act.Weapon) && (inv != nil || act.Weapon != components.WeaponGrenade) {
			act.Weapon = components.WeaponNone // dropped, stored or thrown since it was in hand
		}
		if act.Weapon == components.WeaponNone || act.Weapon == components.WeaponGrenade || !onFoot {
			continue
		}
		act.AimYaw, act.AimPitch = drive.LookYaw, drive.LookPitch
		if drive.Held&components.BtnFire == 0 || int(act.Weapon) >= len(Guns) {
			continue
		}
		gun := Guns[act.Weapon]
		f = s.lastOf(e)
		if f.tick != 0 && tick+1-f.tick < gun.Every {
			continue
		}
		if inv != nil && inv.Remove(w.Items.Get(w.Items.Weapon(act.Weapon)).AmmoID, 1) == 0 {
			continue // no rounds left: the trigger clicks
		}
		f.tick = tick + 1
		s.shooters = append(s.shooters, shooter{e, id.WireID, act.Weapon})
	}
	s.fire(w)
	s.throw(w, tick)
}

// pinOf returns e's record when the system must look at its pin this tick
// (a pin out, or BtnPin held), nil otherwise, without growing the records
// for people who never touch a grenade.
func (s *System) pinOf(e ecs.Entity) *fired {
	if i := int(e.ID()); i < len(s.last) && s.last[i].e == e && s.last[i].pin != 0 {
		return &s.last[i]
	}
	return nil
}

// pin keeps the pin of f's person out while BtnPin is held and throws the
// grenade on its release.
func (s *System) pin(f *fired, act *components.PersonAction, drive *components.Drive, wid uint16, onFoot bool, tick uint64) {
	held := drive.Held&components.BtnPin != 0
	switch {
	case held && onFoot:
		return // the pin stays out
	case onFoot:
		held := float32(min(tick+1-f.pin, ChargeTicks)) / ChargeTicks
		s.throws = append(s.throws, throw{f.e, wid, ThrowMin + (ThrowMax-ThrowMin)*held})
	default: // dead, or in a car: the grenade falls live
		s.throws = append(s.throws, throw{f.e, wid, 0})
	}
	f.pin = 0
	if act.Weapon == components.WeaponGrenade {
		act.Weapon = f.prev
	}
}

// fire shoots the tick's rounds, by wire id.
func (s *System) fire(w *ecs.World) {
	slices.SortFunc(s.shooters, func(a, b shooter) int { return int(a.wid) - int(b.wid) })
	for _, sh := range s.shooters {
		pose, drive := s.aim.Get(sh.e)
		sn, co := math32.Sincos(drive.LookYaw)
		dir := components.Vec3{X: co, Y: sn}
		at := components.Vec3{X: pose.Pos.X + co*muzzle, Y: pose.Pos.Y + sn*muzzle, Z: pose.Pos.Z}
		w.Events = append(w.Events, components.Event{Kind: components.EventShot, Source: sh.e, Pos: at, Dir: dir, Amount: Guns[sh.gun].Harm,
			View: drive.View})
		if s.playerOf.Get(sh.e) != nil {
			w.Crimes = append(w.Crimes, components.Crime{Kind: components.CrimeShooting, Offender: sh.e, Pos: at})
		}
	}
}

// throw makes the tick's thrown grenades, by wire id, with the query
// closed, and pulls the pins of the people who began to hold BtnPin with a
// grenade.
func (s *System) throw(w *ecs.World, tick uint64) {
	slices.SortFunc(s.throws, func(a, b throw) int { return int(a.wid) - int(b.wid) })
	for _, th := range s.throws {
		inv := s.inv.Get(th.e)
		grenade := w.Items.Weapon(components.WeaponGrenade)
		if inv == nil || grenade == 0 || inv.Remove(grenade, 1) == 0 {
			continue // stored or dropped while the pin was out
		}
		pose, drive := s.aim.Get(th.e)
		sn, co := math32.Sincos(drive.LookYaw)
		up, out := math32.Sincos(ThrowAngle)
		h := th.speed * out
		at := components.Vec3{X: pose.Pos.X + co*muzzle, Y: pose.Pos.Y + sn*muzzle, Z: pose.Pos.Z}
		p := components.Projectile{By: th.e, Item: grenade, Blast: tick + FuseTicks, Height: ThrowHeight, Climb: th.speed * up,
			Radius: BlastRadius, Harm: BlastHarm}
		if th.speed == 0 {
			at, p.Height = pose.Pos, 0
		}
		s.build.Thrown(at, components.Vec3{X: co * h, Y: sn * h}, p) // no wire id left: no grenade
	}
	// Pins are pulled after the throws, so that a pin pulled this tick is
	// not thrown in it.
	for _, e := range s.pulls {
		if !holds(w, s.inv.Get(e), components.WeaponGrenade) {
			continue
		}
		act := s.actions.Get(e)
		f := s.lastOf(e)
		f.pin, f.prev = tick+1, act.Weapon
		act.Weapon = components.WeaponGrenade
	}
}

// lastOf returns e's firing record, new when e was not seen before.
func (s *System) lastOf(e ecs.Entity) *fired {
	i := int(e.ID())
	if i >= len(s.last) {
		s.last = append(s.last, make([]fired, i+1-len(s.last))...)
	}
	f := &s.last[i]
	if f.e != e {
		*f = fired{e: e}
	}
	return f
}
