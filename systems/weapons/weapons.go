// Package weapons is the system that fires the weapons people hold: a
// person on foot, alive, with the pistol in hand (PersonAction.Weapon) and
// the trigger held (BtnFire) fires a round every PistolEvery ticks toward
// where they look (Drive.LookYaw, which also becomes their aim). A round is
// an EventShot in the tick's events (Source the shooter, Pos the muzzle,
// Dir the direction, Amount the harm it does); the damage system, after
// the step, finds what it hits and does the harm (so the safe zones, the
// ghosts and the players-hurt rule apply to shots as to crashes). A shot by
// a player is a CrimeShooting.
//
// It is a minimal hitscan pistol: no ammunition, no reloading, no spread.
// It runs in the input phase after the seats (a person who just got out
// may shoot) and before anything reads the tick's events.
package weapons

import (
	"slices"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/mlange-42/arche/generic"
)

// Name is the system's name in the schedule.
const Name = "weapons"

// Pistol is the PersonAction.Weapon of the pistol (0 is bare hands).
const Pistol uint8 = 1

// The pistol: a round every PistolEvery ticks (four a second) doing
// PistolHarm (four rounds kill a person).
const (
	PistolEvery = 15
	PistolHarm  = 25
)

// muzzle (m) is how far in front of the shooter's centre a round starts:
// beyond their own body.
const muzzle = 0.5

// System is the weapons system. Make it with New.
type System struct {
	people   *generic.Filter2[components.PersonAction, components.Drive]
	person   generic.Map3[components.Identity, components.Health, components.SeatedIn]
	isPlayer generic.Map1[components.Player]
	aim      generic.Map2[components.Pose, components.Drive]
	last     []fired // by entity index: the last round of each shooter
	shooters []shooter
}

type fired struct {
	e    ecs.Entity
	tick uint64 // the tick of the last round, +1 (0: none yet)
}

type shooter struct {
	e   ecs.Entity
	wid uint16
}

// New returns the weapons system of w.
func New(w *ecs.World) *System {
	s := &System{
		people:   generic.NewFilter2[components.PersonAction, components.Drive](),
		person:   generic.NewMap3[components.Identity, components.Health, components.SeatedIn](w.Arche),
		isPlayer: generic.NewMap1[components.Player](w.Arche),
		aim:      generic.NewMap2[components.Pose, components.Drive](w.Arche),
	}
	s.people.Register(w.Arche)
	return s
}

// drawn is the weapon in hand after a BtnWeapon press: the pistol drawn
// from bare hands, holstered otherwise.
func drawn(w uint8) uint8 {
	if w == Pistol {
		return 0
	}
	return Pistol
}

// Update draws and holsters the pistols of the people on foot who pressed
// BtnWeapon, and fires the rounds of the tick, shooters by wire id.
func (s *System) Update(w *ecs.World) {
	tick := w.Tick()
	s.shooters = s.shooters[:0]
	q := s.people.Query(w.Arche)
	for q.Next() {
		act, drive := q.Get()
		if drive.Pressed&components.BtnWeapon != 0 && act.Act == components.ActOnFoot {
			act.Weapon = drawn(act.Weapon)
		}
		if act.Weapon != Pistol || act.Act != components.ActOnFoot {
			continue
		}
		id, hp, seated := s.person.Get(q.Entity())
		if hp.HP == 0 || !seated.Vehicle.IsZero() {
			continue
		}
		act.AimYaw, act.AimPitch = drive.LookYaw, drive.LookPitch
		if drive.Held&components.BtnFire == 0 {
			continue
		}
		f := s.lastOf(q.Entity())
		if f.tick != 0 && tick+1-f.tick < PistolEvery {
			continue
		}
		f.tick = tick + 1
		s.shooters = append(s.shooters, shooter{q.Entity(), id.WireID})
	}
	slices.SortFunc(s.shooters, func(a, b shooter) int { return int(a.wid) - int(b.wid) })
	for _, sh := range s.shooters {
		pose, drive := s.aim.Get(sh.e)
		sn, co := math32.Sincos(drive.LookYaw)
		dir := components.Vec3{X: co, Y: sn}
		at := components.Vec3{X: pose.Pos.X + co*muzzle, Y: pose.Pos.Y + sn*muzzle, Z: pose.Pos.Z}
		w.Events = append(w.Events, components.Event{Kind: components.EventShot, Source: sh.e, Pos: at, Dir: dir, Amount: PistolHarm})
		if s.isPlayer.Get(sh.e) != nil {
			w.Crimes = append(w.Crimes, components.Crime{Kind: components.CrimeShooting, Offender: sh.e, Pos: at})
		}
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
