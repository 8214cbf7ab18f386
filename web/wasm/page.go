package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/client"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/nav"
	"github.com/fiveonit/engine/netsync/wire"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/motion"
	"github.com/fiveonit/engine/textframe"
)

// Key bits: what the page's keyboard holds this tick, as JS hands them to
// Page.Tick. The page reads them from Constants (foi.constants.key).
const (
	KeyUp        = 1 << iota // W, up arrow
	KeyDown                  // S, down arrow
	KeyLeft                  // A, left arrow
	KeyRight                 // D, right arrow
	KeyHandbrake             // Space
	KeySprint                // Shift
	KeyUse                   // E or F: a one-shot press (set for one tick)
	KeyHorn                  // H
	KeyAim                   // a mouse button held: LookYaw follows the mouse; on foot, the trigger too
	KeyWeapon                // Q: a one-shot press: draw or holster the pistol
	KeyPin                   // G held: a grenade's pin out; its release throws
)

// SteerRate is how far keyboard steering moves per tick toward the key's
// full lock: 1/12, so full lock takes 0.2 s. A key is all or nothing; a
// car whose wheels snapped to full lock in one tick would twitch at speed.
const SteerRate = 1.0 / 12

// Draw list. Every visible entity is DrawStride float32s, little endian, in
// this order; the page reads them as a Float32Array, at the places
// Constants gives it (foi.constants.draw). Floats hold the u16 ids and
// flags exactly.
const (
	DrawEID     = iota // wire id
	DrawKind           // wire.Kind*
	DrawModel          // model (car model, skin)
	DrawX              // metres, east
	DrawY              // metres, north
	DrawYaw            // radians, 0 east, counter-clockwise
	DrawHalfX          // half length (vehicles) or radius (people), metres
	DrawHalfY          // half width, metres
	DrawFlags          // wire.Flag* bits
	DrawAct            // wire.Act*
	DrawPlayer         // player number of a character, 0 otherwise
	DrawVehicle        // wire id of the vehicle a person sits in
	DrawOwn            // DrawOwn* bits
	DrawHP             // health
	DrawMaxHP          // full health
	DrawSpeed          // metres per second
	DrawWeapon         // the weapon a person holds (components.Weapon*)
	DrawStride         // floats per entity
)

// DrawOwn bits.
const (
	OwnPredicted = 1 << iota // the own body, predicted
	OwnCharacter             // the own character (driving or not)
	OwnWatched               // the watched player's character or vehicle (spectating)
)

// RTTWindow is the round trips the ping shown is the median of: the last
// 30 (half a second of inputs).
const RTTWindow = 30

// The page's backoff as it redials after its connection dropped (the
// page reads them from Constants, foi.constants.reconnect): at most
// ReconnectTries dials, the first ReconnectFirst after the drop, each wait
// twice the one before up to ReconnectMax, each jittered by the page.
// They are Colyseus's client's: about 50 s of tries in all, within a
// room's rejoin window.
const (
	ReconnectTries = 15
	ReconnectFirst = 100 * time.Millisecond
	ReconnectMax   = 5 * time.Second
)

// Page is the browser's game client: the project's client.Client, the
// player's controls, and what the page reads back (the draw list, the
// HUD's state). It has no syscall/js: main_js.go binds it to the page, and
// the tests drive it directly.
type Page struct {
	c       *client.Client
	send    func(frame []byte, text bool) error
	lossy   bool
	level   string
	levelOK bool
	steer   float32
	yaw     float32 // the heading on foot when no key says one
	vis     []client.Visible
	drivers []driver
	draw    []byte
	rtt     []time.Duration
	lastRTT time.Duration
	frameIn []byte
	period  time.Duration // the last tick's period
	signals []signal      // the level's traffic signals
	lights  []byte        // Lights' answer, by lane
	// spect is the last spectate frame: whom the server says this client
	// watches (a spectator, or a player a run took out of the world).
	// Until one comes, a spectator watches the welcome's Watch.
	spect   textframe.SpectateFrame
	spectOK bool
	// hud is the last watched frame: the watched player's Cash and stars.
	hud textframe.WatchedFrame
	// The level as the welcome named it: its buildings for the shots'
	// ends, its roads for the routes (field: the last target's
	// distances), its places for the labels (PlacesJSON, made once).
	lvl    *levels.Level
	static *phys.Static
	nav    *nav.Map
	field  nav.Field
	route  []float32
	places string
	// What the HUD works out of your life (death.go): the rules' respawn,
	// the roster's names, the last harm to you and to your car, the ticks
	// you died and your car was wrecked at, the vehicle you sat in last.
	respawn           string
	roster            []textframe.RosterPlayer
	selfHarm, carHarm harm
	deadTick          uint32
	wreckTick         uint32
	wreckCar, lastCar uint16
	used              []bool // Events' scratch: the hits a shot took
	// Err is the last error of a frame (for the page's console).
	Err error
}

// NewPage returns a page client sending through send (text frames as
// JSON, others binary); lossy for a WebRTC data channel.
func NewPage(send func(frame []byte, text bool) error, lossy bool) *Page {
	p := &Page{lossy: lossy, send: send}
	p.c = client.New(client.Config{Send: send, Lossy: lossy, Now: time.Now})
	p.c.OnText = p.onText
	return p
}

// Client returns the client.
func (p *Page) Client() *client.Client { return p.c }

// onText bakes the level's buildings into the prediction's world and
// plans its signals as soon as the welcome names the level: the client's
// own embedded copy of the levels, the same bytes the server loaded (the
// stale-build test keeps them so). A signals frame says which signals are
// held by hand.
func (p *Page) onText(typ string, frame []byte) {
	switch typ {
	case "signals":
		if err := p.onSignals(frame); err != nil {
			p.Err = err
		}
		return
	case "spectate":
		var f textframe.SpectateFrame
		if err := json.Unmarshal(frame, &f); err != nil {
			p.Err = fmt.Errorf("page: spectate frame: %w", err)
			return
		}
		p.spect, p.spectOK = f, true
		return
	case "watched":
		var f textframe.WatchedFrame
		if err := json.Unmarshal(frame, &f); err != nil {
			p.Err = fmt.Errorf("page: watched frame: %w", err)
			return
		}
		p.hud = f
		return
	case "roster":
		if err := p.onRoster(frame); err != nil {
			p.Err = err
		}
		return
	case "welcome":
	default:
		return
	}
	w, _ := p.c.Welcome()
	var rules struct {
		Respawn string `json:"respawn"`
	}
	if len(w.Rules) > 0 {
		if err := json.Unmarshal(w.Rules, &rules); err != nil {
			p.Err = fmt.Errorf("page: welcome rules: %w", err)
		}
	}
	p.respawn = rules.Respawn
	if w.Level == p.level && p.levelOK {
		return
	}
	p.level, p.levelOK = w.Level, false
	l, err := levels.Load(w.Level)
	if err != nil {
		p.Err = fmt.Errorf("page: level %q: %w", w.Level, err)
		return
	}
	st, err := motion.BakeLevel(l)
	if err != nil {
		p.Err = fmt.Errorf("page: bake %q: %w", w.Level, err)
		return
	}
	p.c.SetStatic(st)
	p.planSignals(l)
	p.lvl, p.static, p.nav, p.places = l, st, nav.New(l), ""
	p.field = nav.Field{}
	p.levelOK = true
}

// Frame hands a frame from the server to the client. A binary frame is
// copied by the caller into FrameBuffer(n) first; the client keeps no
// reference to it.
func (p *Page) Frame(data []byte, text bool) error {
	err := p.c.HandleFrame(data, text)
	if err != nil {
		p.Err = err
	}
	return err
}

// Command sends a text frame the page (or a person at its console) wrote:
// a debug or phone command (textframe.Command), as JSON. It must be a JSON
// object with a type; the server judges the rest.
func (p *Page) Command(frame string) error {
	if textframe.Type([]byte(frame)) == "" {
		return errors.New("page: a command is a JSON object with a \"type\"")
	}
	return p.send([]byte(frame), true)
}

// FrameBuffer returns a buffer of n bytes for the next binary frame,
// reused from frame to frame.
func (p *Page) FrameBuffer(n int) []byte {
	if cap(p.frameIn) < n {
		p.frameIn = make([]byte, n, max(n, 2*cap(p.frameIn)))
	}
	return p.frameIn[:n]
}

// Controls turns the keys held (Key* bits) into this tick's Drive. In a
// car: up is throttle, down brakes (and reverses at rest), left and right
// steer, ramped by SteerRate. On foot: the keys give a direction on the
// map (up is north: the view never turns); the person faces it, or the
// mouse (mouseYaw, radians) while KeyAim is held, and walks toward it;
// KeyAim on foot also holds the trigger (a drawn pistol fires), KeyWeapon
// draws or holsters the pistol.
func (p *Page) Controls(keys uint32, mouseYaw float32) components.Drive {
	var d components.Drive
	if keys&KeyHandbrake != 0 {
		d.Held |= components.BtnHandbrake
	}
	if keys&KeySprint != 0 {
		d.Held |= components.BtnSprint
	}
	if keys&KeyHorn != 0 {
		d.Held |= components.BtnHorn
	}
	if keys&KeyUse != 0 {
		d.Pressed |= components.BtnUse
	}
	if keys&KeyWeapon != 0 {
		d.Pressed |= components.BtnWeapon
	}
	if keys&KeyPin != 0 {
		d.Held |= components.BtnPin
	}
	var dx, dy float32
	if keys&KeyUp != 0 {
		dy++
	}
	if keys&KeyDown != 0 {
		dy--
	}
	if keys&KeyLeft != 0 {
		dx--
	}
	if keys&KeyRight != 0 {
		dx++
	}
	target := -dx // left (-x) steers left (+)
	switch {
	case p.steer < target:
		p.steer = min(p.steer+SteerRate, target)
	case p.steer > target:
		p.steer = max(p.steer-SteerRate, target)
	}
	if _, car, _ := p.c.Controlled(); car {
		d.Throttle = max(dy, 0)
		d.Brake = max(-dy, 0)
		d.Steer = p.steer
		return d
	}
	if keys&KeyAim != 0 {
		d.Held |= components.BtnFire // fires only with the pistol drawn
	}
	if keys&KeyAim != 0 && !math32.IsNaN(mouseYaw) && !math32.IsInf(mouseYaw, 0) {
		p.yaw = mouseYaw
	} else if dx != 0 || dy != 0 {
		p.yaw = math32.Atan2(dy, dx)
	}
	d.LookYaw = p.yaw
	if dx != 0 || dy != 0 {
		n := 1 / math32.Sqrt(dx*dx+dy*dy)
		dx, dy = dx*n, dy*n
		s, c := math32.Sincos(p.yaw)
		d.MoveY = dx*c + dy*s // forward is (cos, sin)
		d.MoveX = dx*s - dy*c // right is (sin, -cos)
	}
	return d
}

// Tick runs one client tick with the keys held and returns how long until
// the next one, in milliseconds (the client's TickPeriod: it keeps its
// inputs a tick or two ahead of the server).
func (p *Page) Tick(keys uint32, mouseYaw float32) (float64, error) {
	var err error
	if _, ok := p.c.Welcome(); ok {
		err = p.c.Tick(p.Controls(keys, mouseYaw))
	}
	p.period = p.c.TickPeriod(time.Second / 60)
	return float64(p.period) / float64(time.Millisecond), err
}

// View writes the draw list (DrawStride little-endian float32s per
// entity) into a buffer reused by the next call and returns it with the
// number of entities. Seated people ride their vehicle and are left out.
func (p *Page) View() ([]byte, int) {
	p.vis = p.c.View(p.vis[:0])
	w, _ := p.c.Welcome()
	own := w.Character
	watchedVehicle := uint16(0)
	watched := p.watched(&w)
	var n int
	p.draw = p.draw[:0]
	p.drivers = p.drivers[:0]
	for i := range p.vis {
		v := &p.vis[i]
		if v.Kind != wire.KindCharacter || (v.Act != wire.ActDriving && v.Act != wire.ActPassenger) {
			continue
		}
		if v.EID == watched {
			watchedVehicle = v.Vehicle
		}
		if v.Act == wire.ActDriving && v.Player != 0 {
			p.drivers = append(p.drivers, driver{v.Vehicle, v.Player})
		}
	}
	for i := range p.vis {
		v := &p.vis[i]
		if components.Kind(v.Kind).IsPerson() && (v.Act == wire.ActDriving || v.Act == wire.ActPassenger) {
			continue
		}
		var rec [DrawStride]float32
		rec[DrawEID] = float32(v.EID)
		rec[DrawKind] = float32(v.Kind)
		rec[DrawModel] = float32(v.Model)
		rec[DrawX], rec[DrawY] = v.Pos.X, v.Pos.Y
		rec[DrawYaw] = yawOf(v.Rot)
		rec[DrawHalfX], rec[DrawHalfY] = extent(v.Kind, v.Model)
		rec[DrawFlags] = float32(v.Flags)
		rec[DrawAct] = float32(v.Act)
		rec[DrawPlayer] = float32(p.playerOf(v))
		rec[DrawVehicle] = float32(v.Vehicle)
		var o float32
		if v.Predicted {
			o += OwnPredicted
		}
		if v.EID == own && own != 0 {
			o += OwnCharacter
		}
		if watched != 0 && (v.EID == watched || v.EID == watchedVehicle) {
			o += OwnWatched
		}
		rec[DrawOwn] = o
		rec[DrawHP], rec[DrawMaxHP] = float32(v.HP), float32(v.MaxHP)
		rec[DrawSpeed] = math32.Sqrt(v.Lin.X*v.Lin.X + v.Lin.Y*v.Lin.Y)
		rec[DrawWeapon] = float32(v.Weapon)
		for _, f := range rec {
			p.draw = binary.LittleEndian.AppendUint32(p.draw, math.Float32bits(f))
		}
		n++
	}
	return p.draw, n
}

// driver is a vehicle a player drives.
type driver struct {
	vehicle uint16
	player  uint16
}

// playerOf returns the player number of a character, or of the player
// driving a vehicle; 0 for anything else.
func (p *Page) playerOf(v *client.Visible) uint16 {
	if v.Kind == wire.KindCharacter {
		return v.Player
	}
	for _, d := range p.drivers {
		if d.vehicle == v.EID {
			return d.player
		}
	}
	return 0
}

// watched returns the wire id of the character this client watches: the
// player of the last spectate frame (a spectator, or a player a run took
// out of the world), else a spectator's player Watch, or the first player
// when Watch is 0; 0 for a player who plays, or for nobody to watch.
func (p *Page) watched(w *textframe.Welcome) uint16 {
	if p.spectOK {
		return p.characterOf(p.spect.Player)
	}
	if !w.Spectate {
		return 0
	}
	st := p.c.Decoder().Store()
	best, bestPlayer := uint16(0), uint16(0)
	var e wire.Entity
	for i := 0; i < st.Slots(); i++ {
		eid := st.Owner(i)
		if eid == 0 {
			continue
		}
		h := st.At(i)
		if h.Rec[wire.KindAt] != wire.KindCharacter {
			continue
		}
		h.Rec.Decode(&e, h.PoseFull)
		if w.Watch != 0 && e.Player == w.Watch {
			return eid
		}
		if e.Player != 0 && (best == 0 || e.Player < bestPlayer) {
			best, bestPlayer = eid, e.Player
		}
	}
	return best
}

// characterOf returns the wire id of player's character, 0 for none held.
func (p *Page) characterOf(player uint16) uint16 {
	if player == 0 {
		return 0
	}
	st := p.c.Decoder().Store()
	var e wire.Entity
	for i := 0; i < st.Slots(); i++ {
		eid := st.Owner(i)
		if eid == 0 {
			continue
		}
		h := st.At(i)
		if h.Rec[wire.KindAt] != wire.KindCharacter {
			continue
		}
		h.Rec.Decode(&e, h.PoseFull)
		if e.Player == player {
			return eid
		}
	}
	return 0
}

// yawOf returns the heading of a rotation about Z, in radians.
func yawOf(q wire.Quat) float32 {
	return math32.Atan2(2*(q.W*q.Z+q.X*q.Y), 1-2*(q.Y*q.Y+q.Z*q.Z))
}

// extent returns the half length and half width of a vehicle of model m,
// or a person's radius twice.
func extent(kind uint8, m uint8) (float32, float32) {
	k := components.Kind(kind)
	switch {
	case k.IsVehicle():
		s := phys.CarModel(m)
		return s.HalfX, s.HalfY
	case k.IsPerson():
		return phys.DefaultWalker.Radius, phys.DefaultWalker.Radius
	}
	return 0.3, 0.3
}

// State is what the HUD's network panel and the tests read: the welcome,
// the counters, the ping, what the client holds per tier, and the own
// body.
type State struct {
	Joined      bool               `json:"joined"`
	Welcome     *textframe.Welcome `json:"welcome,omitempty"`
	Lossy       bool               `json:"lossy"`
	Tick        uint32             `json:"tick"`
	Seq         uint32             `json:"seq"`
	Snapshots   uint64             `json:"snapshots"`
	Keyframes   uint64             `json:"keyframes"`
	BytesIn     uint64             `json:"bytesIn"`
	Resyncs     uint64             `json:"resyncs"`
	Corrections uint64             `json:"corrections"`
	Reconciles  uint64             `json:"reconciles"`
	BigCorr     uint64             `json:"bigCorrections"`
	LastCorr    float32            `json:"lastCorrection"`
	PingMs      float64            `json:"pingMs"` // median of the last RTTWindow round trips
	// Pace says how the server's queue of this client's inputs stands, by
	// the client's tick period: "low" (below the band's low,
	// client.BufferLow: the client ticks faster, 3 % and more), "ok", or
	// "high" (above client.BufferHigh: slower).
	Pace     string              `json:"pace"`
	Entities int                 `json:"entities"`
	Tiers    [wire.TierCount]int `json:"tiers"`
	Kinds    map[string]int      `json:"kinds"`
	Players  []PlayerInfo        `json:"players"`
	// Party is your party's number (the watched player's, watching), 0
	// for none: the players of the same are your party mates.
	Party uint16   `json:"party,omitempty"`
	Own   *OwnBody `json:"own,omitempty"`
	// Watched is the watched player's body (its vehicle while it drives)
	// as the last snapshot placed it, for a client that watches another
	// (a spectator, or a player a run took out).
	Watched *OwnBody `json:"watched,omitempty"`
	// Watch is what the HUD shows of the watched player: their health,
	// Cash and stars (a client that watches another).
	Watch *WatchHUD `json:"watch,omitempty"`
	// Vehicle is the vehicle you (or the watched player) sit in, nil on
	// foot.
	Vehicle *VehicleHUD `json:"vehicle,omitempty"`
	// Death is the death screen while you (or the watched player) lie
	// dead, nil else.
	Death *Death `json:"death,omitempty"`
	Err   string `json:"err,omitempty"`
}

// PlayerInfo is a player character the client holds (every player's is
// always sent), for the spectator's pick.
type PlayerInfo struct {
	Player uint16 `json:"player"`
	EID    uint16 `json:"eid"`
	Act    uint8  `json:"act"`
	Party  uint16 `json:"party,omitempty"` // the player's party's number, 0 none
	Name   string `json:"name"`            // as the roster has it, else "player N"
}

// OwnBody is the body the client controls, as predicted and drawn (the
// error of a correction easing out).
type OwnBody struct {
	EID   uint16  `json:"eid"`
	Car   bool    `json:"car"`
	X     float32 `json:"x"`
	Y     float32 `json:"y"`
	Yaw   float32 `json:"yaw"`
	Speed float32 `json:"speed"`
}

// State returns the page's state. It is called a few times per second (the
// HUD), not every frame: it allocates.
func (p *Page) State() State {
	st := p.c.Stats()
	s := State{
		Lossy: p.lossy, Tick: p.c.Decoder().Tick(), Seq: p.c.Seq(),
		Snapshots: st.Snapshots, Keyframes: st.Keyframes, BytesIn: st.BytesIn, Resyncs: st.Resyncs,
		Corrections: st.Corrections, Reconciles: st.Reconciles, BigCorr: st.BigCorrections,
		LastCorr: st.LastCorrection, Kinds: map[string]int{},
	}
	if w, ok := p.c.Welcome(); ok {
		w.Rules = nil // the server's whole rules: not the HUD's business
		s.Joined, s.Welcome = true, &w
	}
	s.PingMs = p.ping(st.RTT)
	switch nominal := time.Second / 60; {
	case p.period == 0:
	case p.period < nominal:
		s.Pace = "low"
	case p.period > nominal:
		s.Pace = "high"
	default:
		s.Pace = "ok"
	}
	store := p.c.Decoder().Store()
	var e wire.Entity
	for i := 0; i < store.Slots(); i++ {
		eid := store.Owner(i)
		if eid == 0 {
			continue
		}
		h := store.At(i)
		s.Entities++
		s.Tiers[h.Tier&(wire.TierCount-1)]++
		h.Rec.Decode(&e, h.PoseFull)
		s.Kinds[components.Kind(e.Kind).String()]++
		if e.Kind == wire.KindCharacter && e.Player != 0 {
			s.Players = append(s.Players, PlayerInfo{Player: e.Player, EID: eid, Act: e.Act, Party: e.Party, Name: p.playerName(e.Player)})
		}
	}
	slices.SortFunc(s.Players, func(a, b PlayerInfo) int { return int(a.Player) - int(b.Player) })
	if wid, _, vel, ok := p.c.Predicted(); ok {
		_, car, _ := p.c.Controlled()
		_, pose, _ := p.c.Drawn()
		s.Own = &OwnBody{EID: wid, Car: car, X: pose.Pos.X, Y: pose.Pos.Y, Yaw: yawOf(wire.Quat(pose.Rot)),
			Speed: math32.Sqrt(vel.Lin.X*vel.Lin.X + vel.Lin.Y*vel.Lin.Y)}
	}
	if s.Welcome != nil {
		p.watchLife()
		if me, _ := p.me(); me != 0 {
			if e, ok := entity(store, me); ok {
				s.Party = e.Party
			}
		}
		s.Watched = p.watchedBody(s.Welcome)
		s.Watch = p.watchHUD(s.Welcome)
		s.Vehicle = p.vehicleHUD()
		s.Death = p.death(s.Welcome)
	}
	if p.Err != nil {
		s.Err = p.Err.Error()
	}
	return s
}

// watchedBody returns where the watched player's character, or the vehicle
// it drives, is; nil for a player, or when the client holds neither.
func (p *Page) watchedBody(w *textframe.Welcome) *OwnBody {
	eid := p.watched(w)
	if eid == 0 {
		return nil
	}
	st := p.c.Decoder().Store()
	var e wire.Entity
	h := st.Get(eid)
	h.Rec.Decode(&e, h.PoseFull)
	if e.Act == wire.ActDriving || e.Act == wire.ActPassenger {
		if v := st.Get(e.Vehicle); v != nil {
			eid = e.Vehicle
			v.Rec.Decode(&e, v.PoseFull)
		}
	}
	return &OwnBody{EID: eid, Car: components.Kind(e.Kind).IsVehicle(), X: e.Pos.X, Y: e.Pos.Y, Yaw: yawOf(e.Rot),
		Speed: math32.Sqrt(e.Lin.X*e.Lin.X + e.Lin.Y*e.Lin.Y)}
}

// StateJSON returns State as JSON.
func (p *Page) StateJSON() string {
	b, err := json.Marshal(p.State())
	if err != nil {
		return `{"err":` + fmt.Sprintf("%q", err.Error()) + `}`
	}
	return string(b)
}

// ping returns the median of the last RTTWindow round trips measured since
// the last call, in milliseconds (the last median when none came), and
// empties the client's list of samples so that it stays short.
func (p *Page) ping(all []time.Duration) float64 {
	if len(all) > 0 {
		p.rtt = append(p.rtt[:0], all[max(0, len(all)-RTTWindow):]...)
		p.c.ClearRTT()
		slices.Sort(p.rtt)
		p.lastRTT = p.rtt[len(p.rtt)/2]
	}
	return float64(p.lastRTT) / float64(time.Millisecond)
}
