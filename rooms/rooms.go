// Package rooms hosts many rooms in one process: each room is a
// server.GameServer with its own World and its own tick goroutine, 60 ticks
// a second on the manager's clock. It serves the HTTP routes: GET
// /rooms/{name} (a WebSocket upgrade that joins the room, creating it with
// the options of its query), GET /rooms (the rooms and their players) and
// GET /levels/{name} (a level's JSON, for the web page).
package rooms

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fiveonit/engine/clock"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/games"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/store"
	"github.com/fiveonit/engine/systems/ai"
	"github.com/fiveonit/engine/systems/motion"
)

// TickPeriod is the time between two ticks: 1/60 s.
const TickPeriod = time.Second / ecs.TickRate

// MaxCatchUp is the most ticks a room runs at once to catch up after a
// stall: 5 (83 ms). Further behind, it skips ahead and counts the ticks it
// skipped as overruns, rather than running the world fast.
const MaxCatchUp = 5

// MaxEncodeWorkers bounds the goroutines a room encodes its snapshots on:
// one per CPU, at most 4 (rooms share the CPUs, and the encoding of one
// tick's clients does not split usefully further).
const MaxEncodeWorkers = 4

// Option limits.
const (
	MaxTraffic     = 200
	MaxPedestrians = 500
)

// ErrBadRoomName is returned for a room name that is not 1 to 32 of a-z,
// 0-9 and '-'.
var ErrBadRoomName = errors.New("rooms: a room name is 1 to 32 of a-z, 0-9 and '-'")

var roomName = regexp.MustCompile(`^[a-z0-9-]{1,32}$`)

// ErrRoomsFrom is returned for a join that would make a room when the rooms
// made by joins from its address, still open, are Config.MaxRoomsFrom. It is
// wrapped with the count and the address: "rooms: too many rooms made from
// one address: 8 open from 10.0.0.1".
var ErrRoomsFrom = errors.New("rooms: too many rooms made from one address")

// ErrMaxRooms is returned for a join that would make a room when
// Config.MaxRooms are open or being made. It is wrapped with the most:
// "rooms: too many rooms open: this server runs at most 64".
var ErrMaxRooms = errors.New("rooms: too many rooms open")

// ErrShuttingDown is returned for a join once the manager shuts down.
var ErrShuttingDown = errors.New("rooms: shutting down")

// ErrPlayersFrom is returned for a join from an address whose players, in
// all the rooms together, are Config.MaxPlayersFrom. It is wrapped with the
// count and the address: "rooms: too many players joined from one address:
// 64 from 10.0.0.1".
var ErrPlayersFrom = errors.New("rooms: too many players joined from one address")

// ErrAccount is a join refused for its account: playing already, here or
// on another server, or an id the store does not take. It is wrapped with
// the reason.
var ErrAccount = errors.New("rooms: account refused")

// ErrAccountStore is a join refused because the account store did not
// load the account: it did not answer within its claim timeout, or failed.
// It is wrapped with the reason; the join may be tried again.
var ErrAccountStore = errors.New("rooms: cannot load your account")

// Options are a room's options, from the query of the request that made it.
type Options struct {
	Level       string // an embedded level's name
	Game        string // a built-in game's name (package games); "": the manager's default
	Traffic     int    // ambient cars; -1: the rules' or the level's
	Pedestrians int    // pedestrians kept around the players; -1: the default
	// Run, if set, makes the room a run room (server.RunConfig): only
	// MakeRun sets it, never a join's query.
	Run *server.RunConfig
	// From is the address (host) of the client whose join makes the room,
	// if any: the rooms made from one address count against
	// Config.MaxRoomsFrom while they are open, and the players joined
	// from one address against Config.MaxPlayersFrom while they play.
	From string
}

// ParseOptions reads a room's options from a query: level, game, traffic
// and pedestrians. Missing ones are the defaults (level def, the manager's
// game). An unknown level or game is an error that names the known ones.
func ParseOptions(q url.Values, def string) (Options, error) {
	o := Options{Level: def, Traffic: -1, Pedestrians: -1}
	if l := q.Get("level"); l != "" {
		if !slices.Contains(levels.Names(), l) {
			return o, fmt.Errorf("rooms: unknown level %q (levels: %s)", l, strings.Join(levels.Names(), ", "))
		}
		o.Level = l
	}
	if g := q.Get("game"); g != "" {
		if _, err := games.Lookup(g); err != nil {
			return o, fmt.Errorf("rooms: %w", err)
		}
		o.Game = g
	}
	var err error
	if o.Traffic, err = count(q, "traffic", MaxTraffic); err != nil {
		return o, err
	}
	if o.Pedestrians, err = count(q, "pedestrians", MaxPedestrians); err != nil {
		return o, err
	}
	return o, nil
}

func count(q url.Values, key string, limit int) (int, error) {
	s := q.Get(key)
	if s == "" {
		return -1, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > limit {
		return -1, fmt.Errorf("rooms: %s must be a whole number from 0 to %d, not %q", key, limit, s)
	}
	return n, nil
}

// Config sets up a Manager.
type Config struct {
	// DefaultRoom is the room that runs from start and never closes.
	DefaultRoom string
	// DefaultLevel is the default room's level, and any new room's when its
	// request names none.
	DefaultLevel string
	// DefaultGame is the default room's game, and any new room's when its
	// request names none ("": games.Default).
	DefaultGame string
	// Grace is how long a room other than the default stays open empty.
	Grace time.Duration
	// Debug honours every client's debug commands (FOI_DEBUG=1).
	Debug bool
	// DebugAccounts are the accounts whose debug commands are honoured in
	// every room (FOI_DEBUG_ACCOUNTS), beside a join token with debug.
	DebugAccounts []string
	// Social sets up every room's chat: its moderation, its words, its
	// quick-chat lines.
	Social server.SocialConfig
	// MaxRooms bounds the rooms (0: 64).
	MaxRooms int
	// MaxPlayers bounds the players of each room, at most
	// server.MaxPlayers (0: server.DefaultMaxPlayers).
	MaxPlayers int
	// ClientKbps is each client's downstream budget in kilobits per
	// second, server.MinClientKbps to server.MaxClientKbps (0:
	// server.DefaultClientKbps).
	ClientKbps int
	// MaxRoomsFrom bounds the rooms open that joins from one address
	// (Options.From) made (0: 8), so that one client cannot take every
	// room MaxRooms allows; the players behind one NAT share it.
	MaxRoomsFrom int
	// MaxPlayersFrom bounds the players joined from one address
	// (Options.From) in all the rooms together (0:
	// server.DefaultMaxPlayers), so that one client cannot take the places
	// of every room; the players behind one NAT share it.
	MaxPlayersFrom int
	// Log is the logger (nil: slog.Default()).
	Log *slog.Logger
	// RejoinWindow is how long each room holds the place of a player
	// whose connection dropped (server.Config.RejoinWindow): 0 holds
	// none. A run room holds its players' places a minute whatever it
	// says.
	RejoinWindow time.Duration
	// Accounts, if set, keeps what accounts own (package store): a join
	// with a token's account claims it before its character comes in
	// (waiting at most the store's claim timeout, on the joining
	// goroutine, never the room's), and a join of an account already
	// playing, here or on another server, is refused. nil: nothing is
	// kept.
	Accounts *store.Accounts
	// Clock is the rooms' clock (nil: clock.Real): their ticks fall due
	// on its time and its timers wake them, the time a tick takes is
	// measured on it, and an empty room's grace runs on it. A test's fake
	// clock runs the rooms tick by tick.
	Clock clock.Clock
	// Directory, if set, is the fleet's room directory: a room name is
	// claimed there before the room is made here, and released when it
	// closes; List lists the fleet's rooms; Elsewhere says where another
	// process's room lives. The default room is left out: it is each
	// process's own. nil: this process's rooms alone.
	Directory Directory
	// Observe, if set, is called in a room's goroutine as the room
	// starts; the observer it returns (nil: none) is told of each of the
	// room's ticks and of its end, in that goroutine, where it may read
	// the room's game server (metrics, tests).
	Observe func(r *Room) RoomObserver
}

// RoomObserver watches one room from the room's goroutine, where it may
// read the room's game server (Room.Server).
type RoomObserver interface {
	// Ticked is called after each tick (Room.LastTick says how long
	// it took).
	Ticked(r *Room)
	// Closed is called once, when the room has stopped.
	Closed(r *Room)
}

// Manager owns the rooms.
type Manager struct {
	cfg   Config
	log   *slog.Logger
	mu    sync.Mutex
	rooms map[string]*Room
	// making are the rooms being made, outside mu (a city room takes
	// ~20 ms to make: the joins, lists and closes of the other rooms do
	// not wait for it).
	making map[string]making
	// players are the players joined from each address (Options.From)
	// whose connections have not closed (playerConn).
	players map[string]int
	wg      sync.WaitGroup
	closed  bool

	// drain is the drain under way (Drain), nil before one: read by the
	// joins and each room's goroutine.
	drain atomic.Pointer[drain]

	bakeMu sync.Mutex
	static map[string]*phys.Static // baked once per level, shared by rooms; bakeMu
}

// making is a room being made: done is closed when it is made or failed;
// from is its Options.From.
type making struct {
	done chan struct{}
	from string
}

// NewManager starts the default room.
func NewManager(cfg Config) (*Manager, error) {
	if cfg.DefaultRoom == "" {
		cfg.DefaultRoom = "default"
	}
	if cfg.DefaultLevel == "" {
		cfg.DefaultLevel = "main-city"
	}
	if cfg.DefaultGame == "" {
		cfg.DefaultGame = games.Default
	}
	if _, err := games.Lookup(cfg.DefaultGame); err != nil {
		return nil, fmt.Errorf("rooms: default game: %w", err)
	}
	if cfg.Grace <= 0 {
		cfg.Grace = 30 * time.Second
	}
	if cfg.MaxRooms <= 0 {
		cfg.MaxRooms = 64
	}
	if cfg.MaxRoomsFrom <= 0 {
		cfg.MaxRoomsFrom = 8
	}
	if cfg.MaxPlayersFrom <= 0 {
		cfg.MaxPlayersFrom = server.DefaultMaxPlayers
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	cfg.Clock = clock.Or(cfg.Clock)
	m := &Manager{cfg: cfg, log: cfg.Log, rooms: map[string]*Room{}, making: map[string]making{}, players: map[string]int{}, static: map[string]*phys.Static{}}
	if err := m.make(cfg.DefaultRoom, Options{Level: cfg.DefaultLevel, Traffic: -1, Pedestrians: -1}); err != nil {
		return nil, err
	}
	return m, nil
}

// CanJoin returns the error Join(name, o, conn, who) would fail with now,
// or nil, without joining or making the room: a WebRTC join checks before
// it answers, and joins once the client's data channels are open.
func (m *Manager) CanJoin(name string, o Options, who server.Who) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r := m.rooms[name]; r != nil {
		who.Addr = o.From
		if err := r.gs.Refused(who); err != nil {
			return err
		}
		if r.gs.Resumable(who) {
			return nil // a held place: no room needed, no account claimed
		}
		if who.Rejoin != "" {
			return server.ErrRejoinUnknown
		}
		if err := m.draining(); err != nil {
			return err // a new player; a held place was taken back above
		}
		if r.gs.Full() {
			return server.ErrRoomFull
		}
		return m.canPlay(o.From)
	}
	if who.Rejoin != "" {
		return server.ErrRejoinUnknown // the room is gone, and the place with it
	}
	if _, ok := m.making[name]; !ok { // else a join waits for it
		if err := m.canMake(name, o.From); err != nil {
			return err
		}
	}
	return m.canPlay(o.From)
}

// Join joins conn as who to room name, creating the room with o if it does
// not exist (an existing room keeps its own options). With
// Config.Accounts, who's account is claimed first (see claim), but for a
// join that takes a held place back (server.GameServer.Resumable): that
// place holds the account still. A join with a reconnect token
// (who.Rejoin) never makes a room.
func (m *Manager) Join(name string, o Options, conn server.Conn, who server.Who) (*Room, *server.Session, error) {
	if who.Rejoin != "" || m.resumable(name, who, o.From) {
		return m.rejoin(name, o, conn, who)
	}
	if m.cfg.Accounts == nil || who.Account == "" || who.Spectate {
		return m.joinRoom(name, o, conn, who)
	}
	// A join refused anyway claims nothing.
	if err := m.CanJoin(name, o, who); err != nil {
		return nil, nil, err
	}
	h, err := m.claim(name, who.Account)
	if err != nil {
		return nil, nil, err
	}
	who.Keep = h
	r, s, err := m.joinRoom(name, o, conn, who)
	if err != nil {
		h.Leave(nil)
	}
	return r, s, err
}

// resumable reports whether room name holds who's place.
func (m *Manager) resumable(name string, who server.Who, from string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	who.Addr = from
	r := m.rooms[name]
	return r != nil && r.gs.Resumable(who)
}

// rejoin takes a held place of room name back, on conn.
func (m *Manager) rejoin(name string, o Options, conn server.Conn, who server.Who) (*Room, *server.Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.rooms[name]
	if r == nil {
		return nil, nil, server.ErrRejoinUnknown
	}
	s, err := m.join(r, o.From, conn, who)
	if err != nil {
		return nil, nil, err
	}
	return r, s, nil
}

// claim claims account for a join to room name, on the joining goroutine:
// the store's load, at most its claim timeout, happens before the
// character comes in, and no room waits for it. The error, for the
// player, wraps ErrAccount (the account refused) or ErrAccountStore (the
// store did not load it; its detail is logged, not shown).
func (m *Manager) claim(name, account string) (*store.Held, error) {
	h, err := m.cfg.Accounts.Claim(context.Background(), account, name)
	switch {
	case err == nil:
		return h, nil
	case errors.Is(err, store.ErrPlaying):
		return nil, fmt.Errorf("%w: %w", ErrAccount, err)
	case errors.Is(err, store.ErrLeased):
		return nil, fmt.Errorf("%w: your account is playing on another server", ErrAccount)
	case errors.Is(err, store.ErrInvalid):
		return nil, fmt.Errorf("%w: the account id is not one the store takes", ErrAccount)
	}
	m.log.Warn("account store: claim failed", "room", name, "account", account, "err", err)
	if errors.Is(err, store.ErrTimeout) {
		return nil, fmt.Errorf("%w: the account store did not answer in time; join again later", ErrAccountStore)
	}
	return nil, fmt.Errorf("%w: the account store is unavailable; join again later", ErrAccountStore)
}

// joinRoom is Join once the account is claimed.
func (m *Manager) joinRoom(name string, o Options, conn server.Conn, who server.Who) (*Room, *server.Session, error) {
	for {
		// The join itself under m.mu: closeIfEmpty holds it too, so no
		// join slips in between its check and the close.
		m.mu.Lock()
		if r := m.rooms[name]; r != nil {
			s, err := m.join(r, o.From, conn, who)
			m.mu.Unlock()
			if err != nil {
				return nil, nil, err
			}
			return r, s, nil
		}
		if err := m.canPlay(o.From); err != nil {
			m.mu.Unlock()
			return nil, nil, err // no room made for a player refused
		}
		m.mu.Unlock()
		// Made, or being made by another join: then joined (unless it
		// closed meanwhile, empty: then made again).
		if err := m.make(name, o); err != nil {
			return nil, nil, err
		}
	}
}

// join joins conn as who to the open room r, counting the player against
// its address from until its connection closes. A player the room voted
// out is refused first, then a full room, so that a client sees "room
// full" whatever its address holds. m.mu is held.
func (m *Manager) join(r *Room, from string, conn server.Conn, who server.Who) (*server.Session, error) {
	who.Addr = from
	if err := r.gs.Refused(who); err != nil {
		return nil, err
	}
	resume := r.gs.Resumable(who)
	if err := m.draining(); err != nil && !resume {
		return nil, err
	}
	if r.gs.Full() && !resume {
		return nil, server.ErrRoomFull
	}
	if err := m.canPlay(from); err != nil {
		return nil, err
	}
	var pc *playerConn
	if from != "" {
		// Counted before the room has it: the room may close it at
		// once (a shutdown), and its Close must find it counted.
		pc = &playerConn{Conn: conn, m: m, from: from}
		pc.counted.Store(true)
		m.players[from]++
		conn = pc
	}
	s, err := r.gs.Join(conn, who)
	if err != nil {
		if pc != nil && pc.counted.Swap(false) {
			m.dropPlayer(from)
		}
		return nil, err
	}
	r.empty.Store(0)
	return s, nil
}

// canPlay returns ErrPlayersFrom if the players joined from address from
// are MaxPlayersFrom, or nil. m.mu is held.
func (m *Manager) canPlay(from string) error {
	if n := m.players[from]; from != "" && n >= m.cfg.MaxPlayersFrom {
		return fmt.Errorf("%w: %d from %s", ErrPlayersFrom, n, from)
	}
	return nil
}

// dropPlayer counts one player fewer from address from. m.mu is held.
func (m *Manager) dropPlayer(from string) {
	if m.players[from]--; m.players[from] <= 0 {
		delete(m.players, from)
	}
}

// playerConn is the connection of a player joined from an address (Join):
// it counts against the address in Manager.players until it closes. The
// room closes every session's connection as the session leaves (the
// client went, was disconnected, or the room closed), so the count
// follows the players.
type playerConn struct {
	server.Conn
	m       *Manager
	from    string
	counted atomic.Bool
}

// Close closes the connection, and the player no longer counts.
func (c *playerConn) Close(reason string) {
	c.Conn.Close(reason)
	if c.counted.Swap(false) {
		c.m.mu.Lock()
		c.m.dropPlayer(c.from)
		c.m.mu.Unlock()
	}
}

// make makes room name with o and starts it, unless it is open already; if
// another caller is making it, make waits for that. The room is built
// without m.mu held.
func (m *Manager) make(name string, o Options) error {
	m.mu.Lock()
	for {
		if m.rooms[name] != nil {
			m.mu.Unlock()
			return nil
		}
		mk, ok := m.making[name]
		if !ok {
			break
		}
		m.mu.Unlock()
		<-mk.done
		m.mu.Lock()
	}
	if err := m.canMake(name, o.From); err != nil {
		m.mu.Unlock()
		return err
	}
	done := make(chan struct{})
	m.making[name] = making{done, o.From}
	m.wg.Add(1) // Shutdown waits for the room being made too
	m.mu.Unlock()

	// The fleet's name first: of two processes making it at once, the
	// one that lost it makes nothing.
	if err := m.claimName(name, o); err != nil {
		m.mu.Lock()
		delete(m.making, name)
		close(done)
		m.wg.Done()
		m.mu.Unlock()
		return err
	}
	r, err := m.build(name, o)
	if buildHook != nil {
		buildHook(name)
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.making, name)
	close(done)
	switch {
	case err != nil:
		m.releaseName(name)
		m.wg.Done()
		return err
	case m.closed:
		m.releaseName(name)
		r.gs.Close("server shutting down")
		m.wg.Done()
		return ErrShuttingDown
	}
	m.rooms[name] = r
	// The room's clock starts here, not in its goroutine, so that a
	// test's fake clock has its timer as soon as the room is open.
	r.next = m.cfg.Clock.Now()
	r.tickedAt.Store(r.next.UnixNano())
	r.timer = m.cfg.Clock.NewTimer(TickPeriod)
	go r.run() // its wg.Done is run's
	r.log.Info("room opened", "level", o.Level, "game", r.Options.Game, "traffic", r.traffic, "pedestrians", r.pedestrians, "from", o.From)
	return nil
}

// buildHook, if set (by tests), is called as a room is made, after it is
// built and before it opens, without m.mu held.
var buildHook func(name string)

// build builds room name with o, not started.
func (m *Manager) build(name string, o Options) (*Room, error) {
	l, err := levels.Load(o.Level)
	if err != nil {
		return nil, err
	}
	st, err := m.baked(l)
	if err != nil {
		return nil, err
	}
	if o.Game == "" {
		o.Game = m.cfg.DefaultGame
	}
	game, err := games.Lookup(o.Game)
	if err != nil {
		return nil, fmt.Errorf("rooms: %w", err)
	}
	if err := game.Check(l); err != nil {
		return nil, fmt.Errorf("rooms: %w", err)
	}
	rules := game.ForLevel(l)
	if o.Traffic >= 0 {
		rules.Traffic = o.Traffic
	}
	if o.Pedestrians >= 0 {
		rules.Pedestrians = o.Pedestrians
	}
	gs, err := server.New(server.Config{Room: name, Level: l, Static: st, Game: game, Rules: rules, Seed: seedOf(name), Debug: m.cfg.Debug,
		DebugAccounts: m.cfg.DebugAccounts, Social: m.cfg.Social,
		MaxPlayers: m.cfg.MaxPlayers, ClientKbps: m.cfg.ClientKbps, EncodeWorkers: min(runtime.GOMAXPROCS(0), MaxEncodeWorkers), Log: m.log.With("room", name),
		RejoinWindow: m.cfg.RejoinWindow, Run: o.Run})
	if err != nil {
		return nil, err
	}
	return &Room{Name: name, Options: o, gs: gs, m: m, traffic: ai.TrafficWant(&rules, l), pedestrians: ai.PedestriansWant(&rules, l), stop: make(chan string, 1), done: make(chan struct{}), log: m.log.With("room", name)}, nil
}

// baked returns level l's static world, baked at its first room and shared
// by the rooms after.
func (m *Manager) baked(l *levels.Level) (*phys.Static, error) {
	m.bakeMu.Lock()
	defer m.bakeMu.Unlock()
	if st := m.static[l.Name]; st != nil {
		return st, nil
	}
	st, err := motion.BakeLevel(l)
	if err != nil {
		return nil, fmt.Errorf("rooms: level %s: %w", l.Name, err)
	}
	m.static[l.Name] = st
	return st, nil
}

// canMake returns why a room of that name cannot be made now for a join
// from address from, or nil: the rooms being made count against MaxRooms
// and MaxRoomsFrom. m.mu is held.
func (m *Manager) canMake(name, from string) error {
	switch n := len(m.rooms) + len(m.making); {
	case m.closed:
		return ErrShuttingDown
	case m.draining() != nil:
		return m.draining()
	case !roomName.MatchString(name):
		return ErrBadRoomName
	case n >= m.cfg.MaxRooms:
		return fmt.Errorf("%w: this server runs at most %d", ErrMaxRooms, m.cfg.MaxRooms)
	}
	if from == "" {
		return nil
	}
	n := 0
	for _, r := range m.rooms {
		if r.Options.From == from {
			n++
		}
	}
	for _, mk := range m.making {
		if mk.from == from {
			n++
		}
	}
	if n >= m.cfg.MaxRoomsFrom {
		return fmt.Errorf("%w: %d open from %s", ErrRoomsFrom, n, from)
	}
	return nil
}

// seedOf gives each room name its own seed, the same on every run.
func seedOf(name string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h = (h ^ uint64(name[i])) * 1099511628211
	}
	return h
}

// RoomInfo describes a room for the room list.
type RoomInfo struct {
	Name        string `json:"name"`
	Level       string `json:"level"`
	Game        string `json:"game"`
	Players     int    `json:"players"`
	Capacity    int    `json:"capacity"`    // the most players it takes
	Traffic     int    `json:"traffic"`     // ambient cars the room keeps: its option, else its level's
	Pedestrians int    `json:"pedestrians"` // pedestrians it keeps around the players: likewise
	Ticks       uint64 `json:"ticks"`
	Overruns    uint64 `json:"overruns"`
	// Addr is the public address of the process that holds the room,
	// for a room of another process of the fleet (Config.Directory):
	// join it there. Such a room's traffic, pedestrians and counters are
	// 0 (unknown). Empty for a room of this process.
	Addr string `json:"addr,omitempty"`
}

// local returns this process's rooms, by name.
func (m *Manager) local() []RoomInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]RoomInfo, 0, len(m.rooms))
	for _, r := range m.rooms {
		out = append(out, r.Info())
	}
	slices.SortFunc(out, func(a, b RoomInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Rooms returns the open rooms, by name.
func (m *Manager) Rooms() []*Room {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Room, 0, len(m.rooms))
	for _, r := range m.rooms {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *Room) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Shutdown stops every room (their clients get reason) and waits for their
// goroutines, or for ctx.
func (m *Manager) Shutdown(ctx context.Context, reason string) error {
	m.mu.Lock()
	m.closed = true
	for _, r := range m.rooms {
		r.Stop(reason)
	}
	m.mu.Unlock()
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// closeIfEmpty removes r if it has been empty for the grace period. It
// holds m.mu, so no join can slip in between the check and the close.
func (m *Manager) closeIfEmpty(r *Room, now time.Time) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r.Name == m.cfg.DefaultRoom || r.gs.Players() > 0 || r.Options.Run != nil {
		// A run room waits for its roster, holds its players' places
		// and closes when its run is over.
		r.empty.Store(0)
		return false
	}
	since := r.empty.Load()
	if since == 0 {
		r.empty.Store(now.UnixNano())
		return false
	}
	if now.Sub(time.Unix(0, since)) < m.cfg.Grace {
		return false
	}
	delete(m.rooms, r.Name)
	m.releaseName(r.Name)
	return true
}

// forget takes r out of the room list: it closes.
func (m *Manager) forget(r *Room) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rooms[r.Name] == r {
		delete(m.rooms, r.Name)
		m.releaseName(r.Name)
	}
}

// Room is one running room.
type Room struct {
	Name    string
	Options Options

	gs    *server.GameServer
	m     *Manager
	stop  chan string
	done  chan struct{}
	log   *slog.Logger
	empty atomic.Int64 // UnixNano the room was first seen empty, 0 if not

	// What the room keeps: its options resolved against its level (the
	// room list shows these, not -1 for "the default").
	traffic, pedestrians int

	ticks    atomic.Uint64
	overruns atomic.Uint64
	// tickedAt is when the room's goroutine last ran its ticks due, on
	// the manager's clock (UnixNano): Stalled reads it.
	tickedAt atomic.Int64

	// Room goroutine only (set before it starts).
	obs      RoomObserver
	timer    clock.Timer // wakes the room when its next tick falls due
	next     time.Time   // when its next tick falls due
	lastTick time.Duration
	lastWarn time.Time
	drained  drained // what it did of a drain under way
}

// Server returns the room's game server. Use it only from a RoomObserver
// (the room's goroutine).
func (r *Room) Server() *server.GameServer { return r.gs }

// Info returns the room's description.
func (r *Room) Info() RoomInfo {
	return RoomInfo{Name: r.Name, Level: r.Options.Level, Game: r.Options.Game, Players: r.gs.Players(), Capacity: r.m.capacity(), Traffic: r.traffic,
		Pedestrians: r.pedestrians, Ticks: r.ticks.Load(), Overruns: r.overruns.Load()}
}

// Overruns returns the ticks skipped or run late.
func (r *Room) Overruns() uint64 { return r.overruns.Load() }

// LastTick returns how long the last tick took (the game server's whole
// Tick). Room goroutine only (a RoomObserver).
func (r *Room) LastTick() time.Duration { return r.lastTick }

// OverrunWarnEvery is the least time between two warnings that a room
// skipped ticks: a room that cannot keep up would otherwise log 60 a
// second.
const OverrunWarnEvery = 10 * time.Second

// Stop ends the room: its clients get reason. It does not wait.
func (r *Room) Stop(reason string) {
	select {
	case r.stop <- reason:
	default:
	}
}

// Done is closed when the room's goroutine has ended.
func (r *Room) Done() <-chan struct{} { return r.done }

// run is the room's goroutine: a tick every TickPeriod, catching up at
// most MaxCatchUp ticks at once.
func (r *Room) run() {
	defer r.m.wg.Done()
	defer close(r.done)
	defer r.timer.Stop()
	if r.m.cfg.Observe != nil {
		r.obs = r.m.cfg.Observe(r)
	}
	if r.obs != nil {
		defer r.obs.Closed(r)
	}
	clk := r.m.cfg.Clock
	lastCheck := r.next
	for {
		select {
		case reason := <-r.stop:
			r.gs.Close(reason)
			st := r.gs.Stats()
			r.log.Info("room closed", "reason", reason, "ticks", st.Ticks, "joins", st.Joins, "kicked", st.Kicked,
				"input_guesses", st.Guesses, "input_late", st.Late, "input_dropped", st.Dropped, "keyframes", st.Keyframes, "overruns", r.overruns.Load())
			return
		case <-r.timer.C():
			now := clk.Now()
			r.catchUp(now, &r.next)
			r.tickedAt.Store(now.UnixNano())
			if d := r.m.drain.Load(); d != nil {
				r.drainStep(d, clk.Now()) // not now: the drain may have begun since
			}
			if r.gs.Over() {
				r.m.forget(r)
				r.gs.Close(ErrRunOver.Error())
				r.log.Info("room closed", "reason", "run over")
				return
			}
			if now.Sub(lastCheck) >= time.Second {
				lastCheck = now
				if r.m.closeIfEmpty(r, now) {
					r.gs.Close("room closed")
					r.log.Info("room closed", "reason", "empty")
					return
				}
			}
			// Wake when the next tick falls due: at once if this one's
			// ticks ran past it.
			r.timer.Reset(r.next.Sub(clk.Now()))
		}
	}
}

// catchUp runs the ticks due by now.
func (r *Room) catchUp(now time.Time, next *time.Time) {
	for n := 0; !now.Before(*next); n++ {
		if n == MaxCatchUp {
			behind := uint64(now.Sub(*next)/TickPeriod) + 1
			r.overruns.Add(behind)
			*next = now.Add(TickPeriod)
			if now.Sub(r.lastWarn) >= OverrunWarnEvery {
				r.lastWarn = now
				r.log.Warn("room fell behind: ticks skipped", "skipped", behind, "overruns", r.overruns.Load(), "last_tick", r.lastTick)
			}
			return
		}
		start := r.m.cfg.Clock.Now()
		r.gs.Tick()
		r.lastTick = r.m.cfg.Clock.Now().Sub(start)
		if r.lastTick > TickPeriod {
			r.overruns.Add(1)
		}
		r.ticks.Add(1)
		if r.obs != nil {
			r.obs.Ticked(r)
		}
		*next = next.Add(TickPeriod)
	}
}
