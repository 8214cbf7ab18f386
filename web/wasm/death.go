package main

import (
	"encoding/json"
	"fmt"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/netsync/wire"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/city"
	"github.com/fiveonit/engine/systems/damage"
	"github.com/fiveonit/engine/textframe"
)

// What the HUD shows of the player's life and car, worked out from what
// the client holds: the death screen's cause and the time to the respawn,
// the car's health and the time until a wreck blows, and for a client
// watching another player, that player's health, Cash and stars.
//
// The cause of a death is the server's when its status frame says one
// ("cause", "by", "byPlayer"); else the page's: the last hit on you or on
// the car you sat in that the snapshots' events showed (Events notes it),
// named by what did it (a shot, a blast, a crash, a car that ran you
// over) and who (a guard, the police, a player by name). When the two
// agree, the page's words stand: they name a car's model and what
// wrecked your car, which the status frame does not.

// HarmWindow is how long before a death the last hit still counts as its
// cause: five seconds. Older, the death screen says only "Wasted".
const HarmWindow = 5 * ecs.TickRate

// harm is what last hurt you or your vehicle.
type harm struct {
	tick   uint32 // the server's tick of the snapshot that told it
	how    string // "shot", "blast", "crash", "run over" or "hit"
	by     uint8  // the kind of what did it (components.Kind), 0 for the level
	player uint16 // the player who did it, 0 none
	model  uint8  // the model of the vehicle that did it
	ownCar bool   // a blast of your own vehicle
	self   bool   // you did it yourself
}

// Death is the death screen: why and when you come back.
type Death struct {
	Cause string `json:"cause"`
	// Killer is the player who killed you, 0 for none.
	Killer uint16 `json:"killer,omitempty"`
	// RespawnIn is the seconds until you come back, -1 when the room's
	// rules bring nobody back.
	RespawnIn float64 `json:"respawnIn"`
	// Where says where you come back: "hospital", "spawn" or "".
	Where string `json:"where,omitempty"`
	// Server says the cause is the server's.
	Server bool `json:"server,omitempty"`
}

// VehicleHUD is the vehicle you sit in (or the watched player sits in).
type VehicleHUD struct {
	EID     uint16 `json:"eid"`
	Model   string `json:"model"` // its model's name (physics.CarModels)
	HP      uint16 `json:"hp"`
	MaxHP   uint16 `json:"maxHp"`
	Wrecked bool   `json:"wrecked,omitempty"`
	// BlastIn is the seconds until a wreck blows, -1 when it is no wreck.
	BlastIn float64 `json:"blastIn"`
	Driver  bool    `json:"driver"` // you drive it
}

// WatchHUD is what the HUD shows of the player a client watches.
type WatchHUD struct {
	Player uint16 `json:"player"`
	Name   string `json:"name"`
	HP     uint16 `json:"hp"`
	MaxHP  uint16 `json:"maxHp"`
	Cash   int64  `json:"cash"`
	Stars  uint8  `json:"stars"`
	Dead   bool   `json:"dead,omitempty"`
}

// noteHarm keeps hit ev on you (onCar: on your vehicle) as the last harm,
// named from the other events of its snapshot: a blast by the hit's
// source makes it a blast, a shot by it a shot.
func (p *Page) noteHarm(evs []wire.Event, ev *wire.Event, onCar bool) {
	st := p.c.Decoder().Store()
	h := harm{tick: p.c.Decoder().Tick()}
	me, car := p.me()
	src, known := entity(st, ev.Source)
	if known {
		h.by, h.model = src.Kind, src.Model
		h.player = src.Player
	}
	shot := false
	for i := range evs {
		if evs[i].Kind == wire.EventShot && evs[i].Source == ev.Source {
			shot = true
		}
	}
	switch k := components.Kind(h.by); {
	case blastBy(evs, ev.Source):
		h.how = "blast"
		h.ownCar = ev.Source == car || ev.Source == p.lastCar
		if k == components.KindProjectile {
			h.by = uint8(components.KindProjectile)
		}
	case shot:
		h.how = "shot"
	case ev.Source == 0 || !known:
		h.how = "crash"
	case k.IsVehicle():
		h.how = "run over"
		if onCar {
			h.how = "crash"
		}
		h.player = p.driverOf(ev.Source)
	case k.IsPerson() && src.Weapon != 0:
		h.how = "shot"
	default:
		h.how = "hit"
	}
	h.self = ev.Source == me || (ev.Source == car && car != 0)
	if onCar {
		p.carHarm = h
	} else {
		p.selfHarm = h
	}
}

// driverOf returns the player driving vehicle eid, 0 for none.
func (p *Page) driverOf(eid uint16) uint16 {
	st := p.c.Decoder().Store()
	var e wire.Entity
	for i := 0; i < st.Slots(); i++ {
		if st.Owner(i) == 0 {
			continue
		}
		h := st.At(i)
		if h.Rec[wire.KindAt] != wire.KindCharacter {
			continue
		}
		h.Rec.Decode(&e, h.PoseFull)
		if e.Vehicle == eid && e.Act == wire.ActDriving {
			return e.Player
		}
	}
	return 0
}

// watchLife follows your character and vehicle from snapshot to
// snapshot: when you died, which vehicle you sat in last, when it was
// wrecked. State calls it.
func (p *Page) watchLife() {
	me, car := p.me()
	st := p.c.Decoder().Store()
	tick := p.c.Decoder().Tick()
	if car != 0 {
		p.lastCar = car
	}
	if e, ok := entity(st, me); ok && e.Act == wire.ActDead {
		if p.deadTick == 0 {
			p.deadTick = tick
		}
	} else {
		p.deadTick = 0
	}
	if e, ok := entity(st, car); ok && e.Flags&wire.FlagWrecked != 0 {
		if p.wreckCar != car {
			p.wreckTick, p.wreckCar = tick, car
		}
	} else {
		p.wreckTick, p.wreckCar = 0, 0
	}
}

// death returns the death screen while you lie dead, nil else.
func (p *Page) death(w *textframe.Welcome) *Death {
	if p.deadTick == 0 {
		return nil
	}
	tick := p.c.Decoder().Tick()
	d := &Death{Cause: "Wasted", RespawnIn: -1, Where: p.respawn}
	if p.respawn == city.RespawnHospital || p.respawn == city.RespawnSpawn {
		d.RespawnIn = max(0, float64(int64(city.RespawnTicks)-int64(tick-p.deadTick))/ecs.TickRate)
	}
	h := p.selfHarm
	own := h.how != "" && int64(p.deadTick)-int64(h.tick) <= HarmWindow
	if s := p.serverStatus(); s.Dead {
		// The server's cause stands; the page's own words for it, which
		// name a car's model or what wrecked your car, when they agree.
		if cause := p.serverCause(s, w.Player); cause != "" {
			d.Server = true
			if own && agrees(h, s, w.Player) {
				d.Cause = p.causeText(h)
			} else {
				d.Cause = cause
			}
			if s.By == "player" && s.ByPlayer != 0 && s.ByPlayer != w.Player {
				d.Killer = s.ByPlayer
			}
			return d
		}
	}
	if !own {
		return d
	}
	d.Cause = p.causeText(h)
	if !h.self && !h.ownCar && h.player != 0 && h.player != w.Player {
		d.Killer = h.player
	}
	return d
}

// agrees reports whether the page's harm h is the death the server's
// status s tells player me of: the same way to die, by the same player
// when a player did it.
func agrees(h harm, s status, me uint16) bool {
	how := h.how
	switch {
	case h.how == "run over":
		how = "run-over"
	case h.how == "blast" && h.ownCar:
		how = "wreck"
	case h.how == "blast":
		how = "explosion"
	}
	if how == "" || how != s.Cause {
		return false
	}
	switch {
	case s.By == "player" && (s.ByPlayer == me || s.ByPlayer == 0):
		return h.self || h.player == me
	case s.By == "player":
		return !h.self && h.player == s.ByPlayer
	case s.Cause == "wreck":
		return true // what wrecked the car: the page's carHarm says it
	}
	return h.player == 0
}

// status is what the page reads of the last status frame: whether you
// are dead, and what killed you (textframe.StatusFrame).
type status struct {
	Dead     bool   `json:"dead"`
	Cause    string `json:"cause"`
	By       string `json:"by"`
	ByPlayer uint16 `json:"byPlayer"`
}

// serverStatus returns the last status frame, with the cause of a death
// when the server sends one.
func (p *Page) serverStatus() (s status) {
	if b := p.c.Text("status"); len(b) > 0 {
		json.Unmarshal(b, &s) // a frame the client already took; a bad one leaves s empty
	}
	return s
}

// serverCause says the server's cause of death s, as the death screen
// puts it, for player me; "" when s names none the page knows.
func (p *Page) serverCause(s status, me uint16) string {
	by := p.serverWho(s, me)
	switch s.Cause {
	case "shot":
		if by == "" {
			return "Shot"
		}
		return "Shot by " + by
	case "run-over":
		if by == "" {
			return "Run over"
		}
		return "Run over by " + by
	case "crash":
		if by == "" || by == "yourself" {
			return "Killed in a crash"
		}
		return "Killed in a crash with " + by
	case "explosion":
		if by == "" {
			return "Caught in a blast"
		}
		return "Blown up by " + by
	case "wreck":
		if by == "" || by == "yourself" {
			return "Your car blew up"
		}
		return "Your car blew up, wrecked by " + by
	}
	return ""
}

// serverWho names who the server says killed you: a player by name, else
// by kind; "" for nothing but yourself.
func (p *Page) serverWho(s status, me uint16) string {
	switch s.By {
	case "player":
		if s.ByPlayer == me || s.ByPlayer == 0 {
			return "yourself"
		}
		return p.playerName(s.ByPlayer)
	case "police":
		return "the police"
	case "guard":
		return "a guard"
	case "car":
		return "a car"
	case "pedestrian":
		return "a stranger"
	}
	return ""
}

// causeText says what harm h was, as the death screen puts it.
func (p *Page) causeText(h harm) string {
	switch h.how {
	case "shot":
		return "Shot by " + p.who(h)
	case "blast":
		switch {
		case h.ownCar:
			if c := p.carHarm; c.how != "" && c.tick <= h.tick {
				return "Your car blew up after " + p.carCause(c)
			}
			return "Your car blew up"
		case components.Kind(h.by) == components.KindProjectile:
			return "Blown up by a grenade"
		case components.Kind(h.by).IsVehicle():
			return "Caught in a car's explosion"
		}
		return "Caught in a blast"
	case "run over":
		return "Run over by " + p.who(h)
	case "crash":
		return "Killed in a crash"
	}
	return "Killed by " + p.who(h)
}

// carCause says what wrecked your car, after "Your car blew up after".
func (p *Page) carCause(c harm) string {
	switch c.how {
	case "shot":
		return "gunfire from " + p.who(c)
	case "crash":
		if c.by != 0 {
			return "a crash with " + p.who(c)
		}
		return "a crash"
	case "blast":
		return "a blast"
	}
	return "a hit from " + p.who(c)
}

// who names what did harm h: a player by name, else by kind.
func (p *Page) who(h harm) string {
	if h.self {
		return "yourself"
	}
	if h.player != 0 {
		name := p.playerName(h.player)
		if components.Kind(h.by).IsVehicle() {
			return name + "'s " + modelName(h.model)
		}
		return name
	}
	switch k := components.Kind(h.by); k {
	case components.KindGuard:
		return "a guard"
	case components.KindOfficer:
		return "the police"
	case components.KindPoliceCar:
		return "a police car"
	case components.KindPedestrian:
		return "a stranger"
	case components.KindCharacter:
		return "a player"
	case components.KindCar, components.KindTrailer:
		return "a " + modelName(h.model)
	}
	return "something"
}

// modelName returns the name of car model m.
func modelName(m uint8) string { return phys.CarModel(m).Name }

// playerName returns the name the roster gives player n, or "player N".
func (p *Page) playerName(n uint16) string {
	for _, r := range p.roster {
		if r.Player == n && r.Name != "" {
			return r.Name
		}
	}
	return fmt.Sprintf("player %d", n)
}

// onRoster applies a roster frame to the names the page keeps.
func (p *Page) onRoster(frame []byte) error {
	var f textframe.RosterFrame
	if err := json.Unmarshal(frame, &f); err != nil {
		return fmt.Errorf("page: roster frame: %w", err)
	}
	if f.Full {
		p.roster = p.roster[:0]
	}
	keep := p.roster[:0]
	for _, r := range p.roster {
		gone := false
		for _, s := range f.Gone {
			gone = gone || s == r.Session
		}
		for _, n := range f.Players {
			gone = gone || n.Session == r.Session
		}
		if !gone {
			keep = append(keep, r)
		}
	}
	p.roster = append(keep, f.Players...)
	return nil
}

// vehicleHUD returns the vehicle you sit in, nil for none.
func (p *Page) vehicleHUD() *VehicleHUD {
	me, car := p.me()
	e, ok := entity(p.c.Decoder().Store(), car)
	if !ok {
		return nil
	}
	v := &VehicleHUD{EID: car, Model: modelName(e.Model), HP: e.HP, MaxHP: e.MaxHP, BlastIn: -1,
		Wrecked: e.Flags&wire.FlagWrecked != 0}
	if d, ok := entity(p.c.Decoder().Store(), me); ok {
		v.Driver = d.Act == wire.ActDriving
	}
	if v.Wrecked && p.wreckTick != 0 {
		v.BlastIn = max(0, float64(int64(damage.BlastDelay)-int64(p.c.Decoder().Tick()-p.wreckTick))/ecs.TickRate)
	}
	return v
}

// watchHUD returns what the HUD shows of the player this client watches,
// nil for a player who plays: health from the snapshots, Cash and stars
// from the server's watched frame.
func (p *Page) watchHUD(w *textframe.Welcome) *WatchHUD {
	if !w.Spectate && !p.spectOK {
		return nil
	}
	eid := p.watched(w)
	e, ok := entity(p.c.Decoder().Store(), eid)
	if !ok {
		return nil
	}
	h := &WatchHUD{Player: e.Player, Name: p.playerName(e.Player), HP: e.HP, MaxHP: e.MaxHP, Dead: e.Act == wire.ActDead}
	if p.spectOK && p.spect.Name != "" && p.spect.Player == e.Player {
		h.Name = p.spect.Name
	}
	if p.hud.Player == e.Player {
		h.Cash, h.Stars = p.hud.Cash, p.hud.Stars
	}
	return h
}
