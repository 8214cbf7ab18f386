// Package server is the authoritative game server core, independent of
// sockets and timers: one World, a Session per connected client and their
// input queues. Tick runs one 1/60 s tick; every third tick a snapshot goes
// to every client. The rooms package calls Tick from a 60 Hz ticker; tests
// call it directly, with in-memory connections (servertest.MemConn).
package server

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fiveonit/engine/textframe"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/games"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/netsync"
	"github.com/fiveonit/engine/netsync/wire"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/prefab"
	"github.com/fiveonit/engine/runs"
	"github.com/fiveonit/engine/social"
	"github.com/fiveonit/engine/systems"
	"github.com/fiveonit/engine/systems/city"
	"github.com/fiveonit/engine/systems/motion"
	"github.com/mlange-42/arche/generic"
)

// SlowTicks is how long a client's send queue may stay full before it is
// cut off: 5 s. Until then each dropped frame is made good by a keyframe.
const SlowTicks = 5 * ecs.TickRate

// MaxPlayers is the most players a room may be made for
// (Config.MaxPlayers): its player slots are its setting, sized once.
const MaxPlayers = ecs.MaxPlayers

// DefaultMaxPlayers is the players a room takes when its Config names
// none.
const DefaultMaxPlayers = ecs.DefaultPlayers

// ErrMaxPlayers is returned by New for a Config.MaxPlayers that is
// negative or above MaxPlayers.
var ErrMaxPlayers = fmt.Errorf("server: a room takes from 1 to %d players", MaxPlayers)

// tickEvents is the room made once for a tick's events and for its
// crimes: more than a busy city tick has seen.
const tickEvents = 256

// Config makes a GameServer.
type Config struct {
	// Room is the room's name, for the welcome and the logs.
	Room string
	// Level is the level the room plays (levels.Load), as loaded: the room
	// adds the game's places and spawn areas to a copy (games.Game.Level).
	Level *levels.Level
	// Static is the level's baked geometry; nil bakes it (rooms share one
	// per level: systems/motion.BakeLevel).
	Static *phys.Static
	// Game is the game the room plays: its catalog and prices (nil: the
	// default game, games.Default). New refuses a level that names an
	// item the game's catalog lacks.
	Game *games.Game
	// Rules are the room's rules: usually the game's (Game.ForLevel) with
	// the room's options (ecs.FreeRoam for free roam). Their safe zones
	// reach the damage system and the welcome.
	Rules ecs.Rules
	// Seed seeds the world's random source.
	Seed uint64
	// Debug honours every client's debug commands (FOI_DEBUG=1). A test-*
	// level honours them whatever Debug says.
	Debug bool
	// DebugAccounts are the accounts whose debug commands are honoured
	// (FOI_DEBUG_ACCOUNTS), beside a join token that carries debug.
	DebugAccounts []string
	// Social sets up the room's chat, its moderation and its quick-chat
	// lines.
	Social SocialConfig
	// MaxPlayers bounds the players, spectators among them, at most
	// MaxPlayers; 0 means DefaultMaxPlayers. Every per-player list of the
	// room, its systems' included, is sized by it once.
	MaxPlayers int
	// EncodeWorkers is how many goroutines encode a tick's snapshots
	// (the room's own included); 0 or 1 encodes on the room goroutine
	// alone. More than 1 starts goroutines that Close stops.
	EncodeWorkers int
	// Log is the room's logger: what a join drops of an account's kept
	// state is logged to it (nil: slog.Default()).
	Log *slog.Logger
	// Run, if set, makes the room a run room (runs.go): one run mission
	// played by a roster. Its rules are the game's with the mission's
	// friendly fire, it holds places for runs.HoldTicks whatever
	// RejoinWindow says, and its game's phone missions are not offered.
	Run *RunConfig
	// ClientKbps is each client's downstream budget, in kilobits per
	// second (budget.go): MinClientKbps to MaxClientKbps; 0 means
	// DefaultClientKbps.
	ClientKbps int
	// RejoinWindow is how long the room holds the place of a player whose
	// connection dropped (not one who said they leave): their character
	// and car stay in the world, input held, for a join that takes the
	// place back (rejoin.go). 0 holds no place: a drop is a leave.
	RejoinWindow time.Duration
}

// Stats counts what the server did, for metrics.
type Stats struct {
	Ticks     uint64
	Joins     uint64
	Leaves    uint64
	Kicked    uint64 // sessions closed for a bad frame, a flood or slowness
	Guesses   uint64 // input ticks run on a guess
	Late      uint64 // inputs that came after their tick
	Dropped   uint64 // inputs dropped by a full queue
	Keyframes uint64
	// KeyframesBy counts the keyframes by reason (KeyframeReason).
	KeyframesBy [KeyframeReasons]uint64
	Resyncs     uint64 // clients' refusals of a frame, each honoured with a keyframe
	Stale       uint64 // inputs older than the queue's history, ignored
	Snapshots   uint64
	SnapBytes   uint64
}

// GameServer is one room's authoritative simulation and its clients: the
// core (sessions, input queues, join and leave, snapshots and keyframes,
// round trips) and the features wired to it (feature.go).
type GameServer struct {
	cfg    Config
	w      *ecs.World
	pf     *prefab.Builder
	static *phys.Static
	arena  *netsync.Arena
	debug  bool

	mu      sync.Mutex
	joining []*Session
	nextID  uint32
	count   int    // sessions joined or joining
	slots   []int  // the free session slots (Session.slot), the next last
	numbers []bool // scratch of freePlayerNumber: one per player number, 0 to MaxPlayers

	sessions []*Session // by id
	places   places     // the places of dropped players (rejoin.go)
	stats    Stats
	lastSnap time.Duration // the last tick's snapshot encoding and sending
	due      []*Session    // the sessions whose snapshot is due this tick
	enc      *encoders
	text     []byte // the text frame being sent, reused: see sendTextBytes

	// The features, in the order their frames go out (features), the
	// ones that run each tick (tickers), the welcome's (welcomers) and
	// the table of the commands they answer.
	features  []feature
	tickers   []ticker
	welcomers []welcomer
	commands  commandTable
	social    *socialFeature
	watch     *watchFeature
	runs      *runsFeature // nil but in a run room
	missions  *missionsFeature
	stealth   *stealthFeature
	cars      *carsFeature

	bodies   bodies // the players' characters and cars in the world (bodies.go)
	poses    generic.Map2[components.Pose, components.Velocity]
	persons  generic.Map3[components.PersonAction, components.SeatedIn, components.Drive]
	seats    generic.Map1[components.Seats]
	ids      generic.Map1[components.Identity]
	health   generic.Map1[components.Health]
	wanted   generic.Map2[components.Wanted, components.Cash]
	inv      generic.Map1[components.Inventory]
	boxes    generic.Map1[components.Container]
	trailers *generic.Filter1[components.TrailerLink]
}

// New makes a room's game server on cfg.Level. It fails with ErrMaxPlayers
// for a cfg.MaxPlayers out of its range.
func New(cfg Config) (*GameServer, error) {
	if cfg.Level == nil {
		return nil, fmt.Errorf("server: no level")
	}
	switch {
	case cfg.MaxPlayers < 0 || cfg.MaxPlayers > MaxPlayers:
		return nil, fmt.Errorf("%w, not %d", ErrMaxPlayers, cfg.MaxPlayers)
	case cfg.MaxPlayers == 0:
		cfg.MaxPlayers = DefaultMaxPlayers
	}
	kbps, err := checkClientKbps(cfg.ClientKbps)
	if err != nil {
		return nil, err
	}
	cfg.ClientKbps = kbps
	st := cfg.Static
	if st == nil {
		var err error
		if st, err = motion.BakeLevel(cfg.Level); err != nil {
			return nil, fmt.Errorf("server: level %s: %w", cfg.Level.Name, err)
		}
	}
	if cfg.Game == nil {
		g, err := games.Lookup(games.Default)
		if err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
		cfg.Game = g
	}
	if err := cfg.Game.Check(cfg.Level); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	// The room plays the level with the game's places and spawn areas: a
	// copy, so that the level given stays as it was.
	l, err := cfg.Game.Level(cfg.Level)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	cfg.Level = l
	phone := cfg.Game.Missions
	if cfg.Run != nil {
		if cfg.Run.Mission == nil {
			return nil, fmt.Errorf("%w: no run mission", ErrRunRoster)
		}
		cfg.Rules = runRules(cfg.Rules, cfg.Run.Mission)
		cfg.RejoinWindow = runs.HoldTicks * time.Second / ecs.TickRate
		phone = nil
	}
	w, err := ecs.New(ecs.Config{Seed: cfg.Seed, Level: cfg.Level, Rules: cfg.Rules, Items: cfg.Game.Items, Players: cfg.MaxPlayers})
	if err != nil {
		return nil, err
	}
	// Room for a busy tick's events and crimes, made once: the systems
	// append to them, and a tick with more than any before would
	// otherwise allocate.
	w.Events = make([]components.Event, 0, tickEvents)
	w.Crimes = make([]components.Crime, 0, tickEvents)
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	g := &GameServer{
		cfg: cfg, w: w, pf: prefab.New(w), static: st, arena: netsync.NewArena(), enc: newEncoders(cfg.EncodeWorkers),
		debug:    cfg.Debug || strings.HasPrefix(cfg.Level.Name, "test-"),
		poses:    generic.NewMap2[components.Pose, components.Velocity](w.Arche),
		persons:  generic.NewMap3[components.PersonAction, components.SeatedIn, components.Drive](w.Arche),
		seats:    generic.NewMap1[components.Seats](w.Arche),
		ids:      generic.NewMap1[components.Identity](w.Arche),
		health:   generic.NewMap1[components.Health](w.Arche),
		wanted:   generic.NewMap2[components.Wanted, components.Cash](w.Arche),
		inv:      generic.NewMap1[components.Inventory](w.Arche),
		boxes:    generic.NewMap1[components.Container](w.Arche),
		trailers: generic.NewFilter1[components.TrailerLink](),
		text:     make([]byte, 0, 1<<10), // more than a text frame the tick sends
	}
	g.trailers.Register(w.Arche)
	g.bodies = bodies{g: g}
	g.places = newPlaces(g, cfg.RejoinWindow)
	g.slots = make([]int, cfg.MaxPlayers)
	g.numbers = make([]bool, cfg.MaxPlayers+1)
	for i := range g.slots {
		g.slots[i] = cfg.MaxPlayers - 1 - i // slot 0 is taken first
	}
	entries := systems.Entries(w, systems.Options{
		Level:     cfg.Level,
		Static:    st,
		SafeZones: cfg.Rules.SafeZones,
		Prices:    cfg.Game.Price,
		Missions:  phone,
		Run:       cfg.Run != nil,
		Input:     ecs.SystemFunc(g.applyInputs),
		Arena:     g.arena,
	})
	if err := w.SetSchedule(entries); err != nil {
		return nil, err
	}
	systems.Warm(w) // the archetypes of play made now, not mid-tick
	if err := g.wire(cfg.Social); err != nil {
		return nil, err
	}
	return g, nil
}

// wire makes the room's features, in the order their frames go out to a
// session, and the table of the commands they answer. A new feature is
// one line here.
func (g *GameServer) wire(sc SocialConfig) error {
	var err error
	if g.social, err = newSocialFeature(g, sc); err != nil {
		return err
	}
	g.missions, g.stealth, g.cars = newMissionsFeature(g), newStealthFeature(g), newCarsFeature(g)
	g.watch = newWatchFeature(g)
	fs := []feature{
		&debugFeature{g: g},
		newCityFeature(g),
		g.missions,
		newInputsFeature(g),
		newPoliceFeature(g),
		g.stealth,
		newStatusFeature(g),
		newItemsFeature(g),
		g.cars,
		newCarCallFeature(g),  // after cars: it calls the car the cars feature says is yours
		newAccountsFeature(g), // after cars: it loads the cars an account keeps
		g.social,
		g.watch,
	}
	if g.cfg.Run != nil {
		if g.runs, err = newRunsFeature(g, g.cfg.Run); err != nil {
			return err
		}
		fs = append(fs, g.runs) // after social: a team is a player's party
	}
	return g.use(fs...)
}

// use makes fs the room's features, in the order their frames go out: the
// ones among them that run each tick (ticker) or add to the welcome
// (welcomer), and the table of the commands they answer. Before the first
// join only.
func (g *GameServer) use(fs ...feature) error {
	g.features, g.tickers, g.welcomers = fs, nil, nil
	for _, f := range fs {
		if t, ok := f.(ticker); ok {
			g.tickers = append(g.tickers, t)
		}
		if w, ok := f.(welcomer); ok {
			g.welcomers = append(g.welcomers, w)
		}
	}
	var err error
	g.commands, err = newCommandTable(fs, "mode", "leave")
	return err
}

// World returns the simulation. Room goroutine only.
func (g *GameServer) World() *ecs.World { return g.w }

// Arena returns the netsync arena (the last tick's records).
func (g *GameServer) Arena() *netsync.Arena { return g.arena }

// Level returns the room's level.
func (g *GameServer) Level() *levels.Level { return g.cfg.Level }

// snapshotDue reports whether s gets its snapshot at tick: every
// wire.SnapshotEvery ticks, on the ticks of its phase.
func (s *Session) snapshotDue(tick uint64) bool {
	return (tick+uint64(s.id))%wire.SnapshotEvery == 0
}

// SnapshotTime returns how long the last tick took to encode and send its
// snapshots. Room goroutine only.
func (g *GameServer) SnapshotTime() time.Duration { return g.lastSnap }

// Stats returns the server's counters. Room goroutine only.
func (g *GameServer) Stats() Stats { return g.stats }

// Sessions returns the joined sessions, by id. Room goroutine only; the
// slice is the server's own.
func (g *GameServer) Sessions() []*Session { return g.sessions }

// Players returns how many clients are joined or joining. Safe from any
// goroutine.
func (g *GameServer) Players() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.count
}

// Full reports whether a Join now would fail with ErrRoomFull. Safe from
// any goroutine.
func (g *GameServer) Full() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.count >= g.cfg.MaxPlayers
}

// Join admits a client on conn as who: it returns its session at once (the
// transport hands the client's frames to Session.Receive from then on), and
// the client's character and car come into the world at the next tick, with
// the welcome. A join that takes a held place back (Resumable) gets that
// place's character and car instead (rejoin.go). It fails with ErrBanned
// for a player voted out of the room, ErrRoomFull, a feature's refusal
// (a run room's account with no seat), and for a reconnect token the room
// does not hold (ErrRejoinUnknown) or holds for another account
// (ErrRejoinAccount). Safe from any goroutine.
func (g *GameServer) Join(conn Conn, who Who) (*Session, error) {
	if err := g.Refused(who); err != nil {
		return nil, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	old, err := g.places.find(who)
	if err != nil {
		return nil, err
	}
	if old != nil {
		s := resumeSession(old, conn, who)
		g.joining = append(g.joining, s)
		return s, nil
	}
	if g.count >= g.cfg.MaxPlayers {
		return nil, ErrRoomFull
	}
	g.nextID++
	g.count++
	slot := g.slots[len(g.slots)-1]
	g.slots = g.slots[:len(g.slots)-1]
	s := &Session{id: g.nextID, slot: slot, conn: conn, who: who, tokens: TextBurst, bucket: FrameBurst}
	g.joining = append(g.joining, s)
	return s, nil
}

// Tick runs one tick: joins and leaves, the clients' frames, the world's
// step, then the snapshots due and the text frames that changed. Room
// goroutine only.
//
// Every client gets a snapshot every wire.SnapshotEvery ticks, but not all
// on the same tick: a session's snapshots go on the ticks of its phase (its
// id modulo wire.SnapshotEvery), so each tick encodes a third of the
// clients rather than every third tick all of them, and the tick's worst
// case is a third of what it would be.
func (g *GameServer) Tick() {
	g.admit()
	for _, s := range g.sessions {
		g.drain(s)
	}
	g.places.expire()
	for _, t := range g.tickers {
		t.tick()
	}
	g.sessions = slices.DeleteFunc(g.sessions, func(s *Session) bool { return s.closed })
	g.w.Step()
	g.stats.Ticks++
	start := time.Now()
	g.due = g.due[:0]
	share, most := budgetOf(g.cfg.ClientKbps)
	frameTick := g.arena.Tick()
	for _, s := range g.sessions {
		if !s.detached && s.snapshotDue(g.w.Tick()) && s.encodes(frameTick) && (s.afford(share, most) || s.baseExpires(frameTick)) {
			s.view = g.view(s)
			g.due = append(g.due, s)
		}
	}
	g.enc.run(g.due)
	for _, s := range g.due {
		g.snapshot(s)
	}
	g.lastSnap = time.Since(start)
	for _, s := range g.sessions {
		if !s.detached {
			g.notify(s)
		}
	}
	g.sessions = slices.DeleteFunc(g.sessions, func(s *Session) bool { return s.closed })
}

// Close closes every session with reason (a server shutting down) and
// stops the encoding workers. The server must not tick after it.
func (g *GameServer) Close(reason string) {
	g.admit()
	for _, s := range g.sessions {
		g.leave(s, reason)
	}
	g.sessions = g.sessions[:0]
	g.enc.stop()
}

// admit brings the sessions that joined since the last tick into the world.
func (g *GameServer) admit() {
	g.mu.Lock()
	joining := g.joining
	g.joining = nil
	g.mu.Unlock()
	for _, s := range joining {
		if s.resumeOf != nil {
			if err := g.places.resume(s); err != nil {
				s.conn.Close(err.Error())
			}
			continue
		}
		if err := g.enter(s); err != nil {
			for _, f := range g.features {
				f.leave(s)
			}
			s.conn.Close(err.Error())
			g.release(s)
			continue
		}
		g.sessions = append(g.sessions, s)
		g.stats.Joins++
	}
}

// enter makes s's character and car at a player spawn, seats it at the
// wheel and sends the welcome.
func (g *GameServer) enter(s *Session) error {
	s.debug = g.debug || s.who.Debug || s.who.Account != "" && slices.Contains(g.cfg.DebugAccounts, s.who.Account)
	s.acked = s.conn.Lossy() || s.who.Acked
	s.newSnapshotter(g)
	g.places.add(s)
	if s.who.Spectate {
		for _, f := range g.features {
			f.enter(s)
		}
		s.joined = true
		g.sendWelcome(s, 0)
		return nil
	}
	for _, f := range g.features {
		if a, ok := f.(admitter); ok {
			if err := a.admit(s.who); err != nil {
				return err // it changed since Join (a run's seat gone)
			}
		}
	}
	s.player = freePlayerNumber(g.sessions, g.numbers)
	pos, yaw := g.spawnPoint(s)
	car, err := g.pf.Vehicle(components.KindCar, carModel(s.player), pos, yaw, ecs.Entity{})
	if err != nil {
		return fmt.Errorf("no room for your car: %w", err)
	}
	char, err := g.pf.Character(s.player, 0, s.id, pos, yaw)
	if err != nil {
		g.w.Despawn(car)
		return fmt.Errorf("no room for you: %w", err)
	}
	g.pf.Seat(char, car, 0)
	s.char, s.car = char, car
	s.charWire = g.ids.Get(char).WireID
	for _, f := range g.features {
		f.enter(s)
	}
	s.joined = true
	g.sendWelcome(s, g.ids.Get(car).WireID)
	return nil
}

// newSnapshotter gives s its snapshots anew: its client holds nothing, so
// the first frame is a keyframe.
func (s *Session) newSnapshotter(g *GameServer) {
	s.snap = netsync.NewSnapshotter(g.arena, s.acked)
	// Each its own frames for the check: clients that joined together
	// do not all hash what they hold in the same tick.
	s.snap.SetCheckPhase(uint32(s.id))
	share, most := budgetOf(g.cfg.ClientKbps)
	s.snap.SetBudget(share * 9 / 10) // the rest for the header, the events, the check
	s.credit = most
	s.keyWanted, s.keyWhy = true, KeyframeFirst
}

// sendWelcome sends s its welcome: who it is, the level, the rules and the
// constants its client needs.
func (g *GameServer) sendWelcome(s *Session, car uint16) {
	s.rtt.welcome = g.w.Tick()
	inputs := wire.InputsOrdered
	if s.conn.Lossy() {
		inputs = wire.InputsLossy
	}
	f := textframe.Welcome{
		Type: "welcome", Session: s.id, Player: s.player, Name: s.who.Name,
		Character: s.charWire, Car: car, Spectate: s.who.Spectate, Watch: s.who.Watch, Room: g.cfg.Room, Level: g.cfg.Level.Name,
		Game: g.cfg.Game.Name, Rules: textframe.Marshal(g.w.Rules), Debug: s.debug, Acked: s.acked, Tick: g.w.Tick(),
		Rejoin: s.token, RejoinSeconds: g.cfg.RejoinWindow.Seconds(),
		Consts: textframe.WelcomeConsts{
			TickRate: ecs.TickRate, SnapshotEvery: wire.SnapshotEvery, InputsPerFrame: inputs,
			AOIRadius: wire.AOIRadius, CheckEvery: wire.CheckEvery,
		},
	}
	for _, w := range g.welcomers {
		w.welcome(s, &f)
	}
	g.sendText(s, f)
}

// carModel gives players a mix of cars (never the police's or a trailer).
func carModel(player uint16) uint8 {
	return [...]uint8{phys.ModelSedan, phys.ModelCompact, phys.ModelSports, phys.ModelVan}[player%4]
}

// freePlayerNumber returns the lowest player number none of sessions has
// (a spectator has none): from 1 to the room's size, into used, a scratch
// of one flag per number that it clears.
func freePlayerNumber(sessions []*Session, used []bool) uint16 {
	clear(used)
	for _, s := range sessions {
		if !s.who.Spectate && int(s.player) < len(used) {
			used[s.player] = true
		}
	}
	for n := 1; n < len(used); n++ {
		if !used[n] {
			return uint16(n)
		}
	}
	return uint16(len(used) - 1)
}

func (g *GameServer) posOf(e ecs.Entity) *components.Pose {
	p, _ := g.poses.Get(e)
	return p
}

// spawnPoint returns where s's player comes in: where a run places its
// team, or where the city system says (a free player spawn, or a row
// behind one); without one, the level's centre.
func (g *GameServer) spawnPoint(s *Session) (components.Vec3, float32) {
	if g.runs != nil {
		if pos, yaw, ok := g.runs.spawnAt(s); ok {
			return pos, yaw
		}
	}
	if c, ok := g.w.Sched.System(city.Name).(*city.System); ok {
		pos, yaw, _ := c.PlayerSpawn(g.w, s.player)
		return pos, yaw
	}
	l := g.cfg.Level
	m := l.Ground.Min.Add(l.Ground.Max).Scale(0.5)
	return components.Vec3{X: m.X, Y: m.Y, Z: l.Ground.Height}, 0
}

// leave takes s out of the room: its character goes, and its car too unless
// someone else sits in it.
func (g *GameServer) leave(s *Session, reason string) {
	if s.closed {
		return
	}
	s.closed = true
	g.places.remove(s)
	for _, f := range g.features {
		f.leave(s)
	}
	s.conn.Close(reason)
	g.stats.Leaves++
	g.release(s)
	if s.joined {
		g.bodies.remove(s)
	}
}

// Over reports whether the room is done: a run room whose run ended and
// whose result was shown long enough (runs.CloseTicks). The rooms close
// it then. Room goroutine only.
func (g *GameServer) Over() bool { return g.runs != nil && g.runs.over }

// AddSeat adds a seat to a run room's run under way (or still waiting)
// and returns its number: its account's player then joins as any seat's
// does, and comes in where the run stands (in versus at their team's
// place, in co-op at the last checkpoint or the start). It refuses a room
// that plays no run, a team the run lacks, an account with a seat
// already, a run at its size and a run that is over, with ErrRunRoster
// and the reason. Safe from any goroutine.
func (g *GameServer) AddSeat(seat runs.Seat) (int, error) {
	if g.runs == nil {
		return -1, fmt.Errorf("%w: this room plays no run", ErrRunRoster)
	}
	f := g.runs
	f.mu.Lock()
	defer f.mu.Unlock()
	i, err := f.run.AddSeat(seat)
	if err != nil {
		return -1, fmt.Errorf("%w: %w", ErrRunRoster, err)
	}
	return i, nil
}

// release gives s's place in the room, and its slot, to the next join.
func (g *GameServer) release(s *Session) {
	g.mu.Lock()
	g.count--
	g.slots = append(g.slots, s.slot)
	g.mu.Unlock()
}

// playing reports whether s is a player whose character is in w (not a
// spectator): the features that tell a player of its character send
// nothing otherwise.
func (s *Session) playing(w *ecs.World) bool {
	return !s.who.Spectate && w.Arche.Alive(s.char)
}

// notify sends s, feature by feature, the text frames whose content
// changed, until one finds s gone.
func (g *GameServer) notify(s *Session) {
	if s.closed || !s.joined {
		return
	}
	for _, f := range g.features {
		if !f.notify(s) {
			return
		}
	}
}

// applyInputs is the schedule's input system: each session's queue yields
// exactly one input (or a guess), onto its character's Drive.
func (g *GameServer) applyInputs(w *ecs.World) {
	for _, s := range g.sessions {
		if !s.joined {
			continue
		}
		if s.who.Spectate || s.out || s.detached || s.hold || !w.Arche.Alive(s.char) {
			// Its inputs steer nothing (a spectator, a player out of the
			// run, one held), but its ticks run like anyone's: its queue
			// drains and its lastSeq moves on.
			if seq, _, _, ok := s.queue.Take(); ok {
				s.lastSeq = seq
			}
			g.places.brake(s) // a body still in the world stands braked
			continue
		}
		seq, d, guessed, ok := s.queue.Take()
		d.View = s.rtt.view(w.Tick(), d.View) // never trusted: lagcomp.go
		act, _, drive := g.persons.Get(s.char)
		social.Step(act, &d) // an emote plays on, or the input ends it
		if !ok || act.Act == components.ActDead {
			*drive = components.Drive{LookYaw: drive.LookYaw}
			if ok {
				s.lastSeq = seq
			}
			continue
		}
		*drive = d
		s.countPresses(&d)
		s.lastSeq = seq
		if guessed {
			g.stats.Guesses++
		}
	}
}
