package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fiveonit/engine/fleet/agones"
	"github.com/fiveonit/engine/rooms"
)

// The annotations of an allocation (a GameServerAllocation's
// metadata.annotations, which Agones copies onto the GameServer) that make
// a run room: its name, its mission, its roster as JSON (runs.Roster:
// {"seats":[{"account":"ada","team":0}]}), and optionally its game and
// level (the server's defaults otherwise).
const (
	AnnotationRunRoom    = "fiveonit.dev/run-room"
	AnnotationRunMission = "fiveonit.dev/run-mission"
	AnnotationRunRoster  = "fiveonit.dev/run-roster"
	AnnotationRunGame    = "fiveonit.dev/run-game"
	AnnotationRunLevel   = "fiveonit.dev/run-level"
)

// What the server keeps on its GameServer: the labels (agones.dev/sdk-
// rooms and players: how many are open and play), the beta counter
// "rooms" (its count the rooms open, its capacity -max-rooms) and the
// beta list "players" (who plays: an account, or room/session for a
// player with none), those two where the fleet declares them; and the
// annotations run-room (the room an allocation made) and run-error (why
// it made none).
const (
	LabelRooms         = "rooms"
	LabelPlayers       = "players"
	CounterRooms       = "rooms"
	ListPlayers        = "players"
	AnnotationRunMade  = "run-room"
	AnnotationRunError = "run-error"
)

// fleetSyncEvery is how often the labels, the counter and the list are
// brought up to date: the SDK server batches its updates to Kubernetes
// about once per second anyway.
const fleetSyncEvery = time.Second

// maxListCalls bounds the list values added or removed per sync.
const maxListCalls = 64

// maxHandled bounds the allocations remembered as handled.
const maxHandled = 1024

// feature is whether the GameServer has a beta counter or list: not yet
// known, on, or off (the fleet declares none, or CountsAndLists is off).
type feature int8

const (
	featureUnknown feature = iota
	featureOn
	featureOff
)

// fleetLink is the server's link to Agones, through the SDK server's REST
// API (package fleet/agones): Ready once the rooms take players, a
// health ping every Config.AgonesHealth while /healthz passes, the
// labels, counter and list kept, the GameServer watched for an
// allocation that names a run, and Shutdown once drained.
type fleetLink struct {
	s   *Server
	c   *agones.Client
	log *slog.Logger

	ctx         context.Context // ends at shutdown
	cancel      context.CancelFunc
	readyCancel context.CancelFunc
	wg          sync.WaitGroup

	mu       sync.Mutex
	state    string          // the GameServer's, as last seen
	handled  map[string]bool // allocations whose run was made or refused
	runRooms []string        // rooms made for an allocation, not yet back in the pool

	// The sync goroutine's.
	labels    map[string]string // as last set
	counter   feature
	count     int64 // as last set
	countSet  bool
	list      feature
	listed    map[string]bool // values this server added to the list
	idleSince time.Time       // allocated, its runs over and nobody playing, since
}

// newFleetLink makes the link to Agones when it is on (Config.agonesOn),
// nil when off; it starts nothing. An SDK server address that is not one
// is an error.
func (s *Server) newFleetLink() (*fleetLink, error) {
	if !s.c.agonesOn() {
		return nil, nil
	}
	c, err := agones.New(agones.Config{Log: s.log})
	if err != nil {
		return nil, fmt.Errorf("-agones: %w", err)
	}
	s.players = &playerBook{rooms: map[*rooms.Room][]playerRef{}}
	ctx, cancel := context.WithCancel(context.Background())
	return &fleetLink{s: s, c: c, log: s.log.With("agones", c.Address()), ctx: ctx, cancel: cancel,
		handled: map[string]bool{}, labels: map[string]string{}, listed: map[string]bool{}}, nil
}

// start starts the link's goroutines: Ready (retried with backoff until
// the SDK server takes it), the health pings, the watch, the sync.
func (l *fleetLink) start() {
	rctx, rcancel := context.WithCancel(l.ctx)
	l.readyCancel = rcancel
	l.wg.Add(4)
	go func() { defer l.wg.Done(); l.ready(rctx) }()
	go func() { defer l.wg.Done(); l.health() }()
	go func() { defer l.wg.Done(); l.c.Follow(l.ctx, l.onGameServer) }()
	go func() { defer l.wg.Done(); l.syncLoop() }()
}

// ready tells Agones the server takes players, trying until it answers or
// the drain begins.
func (l *fleetLink) ready(ctx context.Context) {
	err := l.c.Retry(ctx, func(ctx context.Context) error {
		err := l.c.Ready(ctx)
		if err != nil && !errors.Is(err, agones.ErrUnreachable) {
			l.c.Warn("ready", "agones: Ready refused; retrying", "err", err)
		}
		return err
	})
	if err == nil {
		l.log.Info("agones: ready")
	}
}

// stopReady gives up a Ready not yet taken: the server drains.
func (l *fleetLink) stopReady() {
	if l.readyCancel != nil {
		l.readyCancel()
	}
}

// health pings Agones every AgonesHealth while the server is healthy
// (/healthz): a process with a stuck room stops pinging, and Agones marks
// its GameServer Unhealthy.
func (l *fleetLink) health() {
	every := l.s.c.AgonesHealth
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if cs := l.s.liveness(); !passes(cs) {
			l.c.Warn("unhealthy", "agones: no health ping: the server is unhealthy", "failed", failures(cs))
		} else {
			ctx, cancel := context.WithTimeout(l.ctx, min(every, 5*time.Second))
			err := l.c.Health(ctx)
			cancel()
			if err != nil && !errors.Is(err, agones.ErrUnreachable) && l.ctx.Err() == nil {
				l.c.Warn("health", "agones: health ping refused", "err", err)
			}
		}
		select {
		case <-l.ctx.Done():
			return
		case <-t.C:
		}
	}
}

// onGameServer follows the GameServer: its state, and an allocation that
// names a run, which makes its run room (once per allocation: the watch
// sends the GameServer again on every change). The watch goroutine's.
func (l *fleetLink) onGameServer(gs *agones.GameServer) {
	state := gs.Status.State
	l.mu.Lock()
	prev := l.state
	l.state = state
	l.mu.Unlock()
	if prev != state {
		l.log.Info("agones: GameServer state", "state", state, "was", prev, "gameserver", gs.ObjectMeta.Name)
	}
	ann := gs.ObjectMeta.Annotations
	if state != agones.StateAllocated || !namesRun(ann) {
		return
	}
	key := ann["agones.dev/last-allocated"] + "\x00" + ann[AnnotationRunRoom]
	l.mu.Lock()
	if l.handled[key] {
		l.mu.Unlock()
		return
	}
	if len(l.handled) >= maxHandled {
		clear(l.handled) // an old allocation seen again is refused: its room name is taken
	}
	l.handled[key] = true
	l.mu.Unlock()
	l.makeRun(ann)
}

// namesRun reports whether an allocation's annotations name a run.
func namesRun(ann map[string]string) bool {
	for k := range ann {
		if strings.HasPrefix(k, "fiveonit.dev/run-") {
			return true
		}
	}
	return false
}

// makeRun makes the run room an allocation's annotations name, or logs
// why not; either way the GameServer's annotations say (run-room,
// run-error), for the matchmaker.
func (l *fleetLink) makeRun(ann map[string]string) {
	spec, err := runSpecOf(ann)
	if err == nil {
		var r *rooms.Room
		if r, err = l.s.rooms.MakeRun(spec); err == nil {
			l.mu.Lock()
			l.runRooms = append(l.runRooms, r.Name)
			l.mu.Unlock()
			l.log.Info("agones: allocation: run room made", "room", r.Name, "mission", spec.Mission, "game", r.Options.Game,
				"level", r.Options.Level, "seats", len(spec.Roster.Seats))
			l.annotate(AnnotationRunMade, r.Name)
			l.annotate(AnnotationRunError, "")
			return
		}
	}
	l.log.Warn("agones: allocation: run refused", "room", cutString(ann[AnnotationRunRoom], 64), "err", err)
	l.annotate(AnnotationRunError, cutString(err.Error(), 1024))
}

// annotate sets the GameServer's annotation key, trying a few times.
func (l *fleetLink) annotate(key, value string) {
	ctx, cancel := context.WithTimeout(l.ctx, 10*time.Second)
	defer cancel()
	if err := l.c.Retry(ctx, func(ctx context.Context) error { return l.c.SetAnnotation(ctx, key, value) }); err != nil && l.ctx.Err() == nil {
		l.c.Warn("annotation", "agones: annotation not set", "key", key, "err", err)
	}
}

// errAllocation is an allocation whose run annotations do not make a run.
var errAllocation = errors.New("bad run annotations")

// runSpecOf reads the run an allocation's annotations name: room,
// mission and roster are needed; the roster is one JSON object of
// runs.Roster's shape, at most rooms.MaxRunBody bytes. MakeRun checks
// the rest (the names, the mission, the seats).
func runSpecOf(ann map[string]string) (rooms.RunSpec, error) {
	spec := rooms.RunSpec{Room: ann[AnnotationRunRoom], Mission: ann[AnnotationRunMission],
		Game: ann[AnnotationRunGame], Level: ann[AnnotationRunLevel]}
	for _, k := range []string{AnnotationRunRoom, AnnotationRunMission, AnnotationRunRoster} {
		if ann[k] == "" {
			return spec, fmt.Errorf("%w: %s is missing", errAllocation, k)
		}
	}
	roster := ann[AnnotationRunRoster]
	if len(roster) > rooms.MaxRunBody {
		return spec, fmt.Errorf("%w: %s is %d bytes, past %d", errAllocation, AnnotationRunRoster, len(roster), rooms.MaxRunBody)
	}
	dec := json.NewDecoder(strings.NewReader(roster))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec.Roster); err != nil {
		return spec, fmt.Errorf("%w: %s is not a roster ({\"seats\":[{\"account\":...,\"team\":0}]}): %w", errAllocation, AnnotationRunRoster, err)
	}
	if dec.More() {
		return spec, fmt.Errorf("%w: %s holds more than one JSON value", errAllocation, AnnotationRunRoster)
	}
	if len(spec.Roster.Seats) == 0 {
		return spec, fmt.Errorf("%w: %s has no seat", errAllocation, AnnotationRunRoster)
	}
	return spec, nil
}

// cutString cuts s to n bytes, valid UTF-8, for a log or an annotation.
func cutString(s string, n int) string {
	s = strings.ToValidUTF8(s, "?")
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}

// syncLoop brings the labels, the counter and the list up to date every
// fleetSyncEvery, and returns an allocated server whose runs are over to
// the pool.
func (l *fleetLink) syncLoop() {
	t := time.NewTicker(fleetSyncEvery)
	defer t.Stop()
	for {
		l.sync()
		select {
		case <-l.ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sync is one round of syncLoop.
func (l *fleetLink) sync() {
	list := l.s.rooms.List()
	players := 0
	for _, r := range list {
		players += r.Players
	}
	l.label(LabelRooms, strconv.Itoa(len(list)))
	l.label(LabelPlayers, strconv.Itoa(players))
	l.syncCounter(int64(len(list)))
	l.syncList()
	l.backToPool(list, players)
}

// call runs f with a call's timeout, on the link's context.
func (l *fleetLink) call(f func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(l.ctx, 5*time.Second)
	defer cancel()
	return f(ctx)
}

// quiet reports whether err needs no record of its own: none, the SDK
// server unreachable (the client logs that), or the link shutting down.
func (l *fleetLink) quiet(err error) bool {
	return err == nil || errors.Is(err, agones.ErrUnreachable) || l.ctx.Err() != nil
}

// label sets the label key to value unless it has it already.
func (l *fleetLink) label(key, value string) {
	if v, ok := l.labels[key]; ok && v == value {
		return
	}
	err := l.call(func(ctx context.Context) error { return l.c.SetLabel(ctx, key, value) })
	if err == nil {
		l.labels[key] = value
	} else if !l.quiet(err) {
		l.c.Warn("label", "agones: label not set", "key", key, "err", err)
	}
}

// capacity is the rooms counter's capacity: -max-rooms.
func (l *fleetLink) capacity() int64 {
	if n := l.s.c.MaxRooms; n > 0 {
		return int64(n)
	}
	return 64
}

// syncCounter sets the counter rooms to n, where the GameServer has it:
// the first answer of the SDK server about it says whether it does.
func (l *fleetLink) syncCounter(n int64) {
	if l.counter == featureUnknown {
		err := l.call(func(ctx context.Context) error { _, err := l.c.Counter(ctx, CounterRooms); return err })
		switch {
		case err == nil:
			l.counter = featureOn
		case l.quiet(err):
			return
		default:
			l.counter = featureOff
			l.log.Info("agones: the GameServer has no counter "+CounterRooms+" (not in the fleet's spec, or CountsAndLists off): not kept", "err", err)
			return
		}
	}
	if l.counter != featureOn || (l.countSet && l.count == n) {
		return
	}
	capacity := int64(-1)
	if !l.countSet {
		capacity = l.capacity()
	}
	err := l.call(func(ctx context.Context) error { _, err := l.c.SetCounter(ctx, CounterRooms, n, capacity); return err })
	if err == nil {
		l.count, l.countSet = n, true
	} else if !l.quiet(err) {
		l.c.Warn("counter", "agones: counter not set", "counter", CounterRooms, "count", n, "err", err)
	}
}

// syncList adds the players to the list players and removes those gone,
// where the GameServer has it; it removes only values it added (a
// matchmaker may add its own), at most maxListCalls per round.
func (l *fleetLink) syncList() {
	if l.list == featureUnknown {
		err := l.call(func(ctx context.Context) error { _, err := l.c.List(ctx, ListPlayers); return err })
		switch {
		case err == nil:
			l.list = featureOn
		case l.quiet(err):
			return
		default:
			l.list = featureOff
			l.log.Info("agones: the GameServer has no list "+ListPlayers+" (not in the fleet's spec, or CountsAndLists off): not kept", "err", err)
			return
		}
	}
	if l.list != featureOn {
		return
	}
	want := l.s.players.ids()
	calls := 0
	for _, id := range want {
		if l.listed[id] || calls >= maxListCalls {
			continue
		}
		calls++
		err := l.call(func(ctx context.Context) error { _, err := l.c.AddListValue(ctx, ListPlayers, id); return err })
		switch {
		case err == nil, errors.Is(err, agones.ErrAlreadyExists):
			l.listed[id] = true
		case !l.quiet(err):
			l.c.Warn("list-add", "agones: player not added to the list", "list", ListPlayers, "value", id, "err", err)
		}
	}
	gone := make([]string, 0)
	for id := range l.listed {
		if _, found := slices.BinarySearch(want, id); !found {
			gone = append(gone, id)
		}
	}
	slices.Sort(gone)
	for _, id := range gone {
		if calls >= maxListCalls {
			break
		}
		calls++
		err := l.call(func(ctx context.Context) error { _, err := l.c.RemoveListValue(ctx, ListPlayers, id); return err })
		switch {
		case err == nil, errors.Is(err, agones.ErrNotFound):
			delete(l.listed, id)
		case !l.quiet(err):
			l.c.Warn("list-remove", "agones: player not removed from the list", "list", ListPlayers, "value", id, "err", err)
		}
	}
}

// backToPool tells Agones the server is Ready again once the runs an
// allocation made are over (their rooms closed) and nobody has played for
// -grace: an allocated GameServer is never scaled down, and this one has
// room for the next allocation. An allocation that named no run is left
// to its matchmaker.
func (l *fleetLink) backToPool(open []rooms.RoomInfo, players int) {
	l.mu.Lock()
	state, runs := l.state, slices.Clone(l.runRooms)
	l.mu.Unlock()
	busy := players > 0 || l.s.draining.Load()
	for _, r := range open {
		busy = busy || slices.Contains(runs, r.Name)
	}
	if state != agones.StateAllocated || len(runs) == 0 || busy {
		l.idleSince = time.Time{}
		return
	}
	if l.idleSince.IsZero() {
		l.idleSince = time.Now()
		return
	}
	if time.Since(l.idleSince) < l.s.c.Grace {
		return
	}
	if err := l.call(l.c.Ready); err != nil {
		if !l.quiet(err) {
			l.c.Warn("ready", "agones: Ready refused", "err", err)
		}
		return
	}
	l.mu.Lock()
	l.runRooms = nil
	l.mu.Unlock()
	l.idleSince = time.Time{}
	l.log.Info("agones: back in the pool: the allocation's runs are over and nobody plays", "rooms", runs)
}

// shutdown tells Agones the server is done (POST /shutdown), retrying
// within ctx (or a second, if ctx has less left), then stops the link.
func (l *fleetLink) shutdown(ctx context.Context) {
	l.stopReady()
	if d, ok := ctx.Deadline(); !ok || time.Until(d) < time.Second {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.Background(), time.Second)
		defer cancel()
	}
	if err := l.c.Retry(ctx, l.c.Shutdown); err != nil {
		l.log.Warn("agones: Shutdown not taken: Agones will see the process end", "err", err)
	} else {
		l.log.Info("agones: shutdown sent")
	}
	l.cancel()
	l.wg.Wait()
	l.c.CloseIdleConnections()
}

// playerBook is who plays in each room, as of its last note: what the
// list players is kept to.
type playerBook struct {
	mu    sync.Mutex
	rooms map[*rooms.Room][]playerRef
}

// playerRef is a player: their account, or their room and session for
// one with none.
type playerRef struct {
	account string
	session uint32
}

// note copies who plays in r (its players, their places held included;
// not its spectators), reusing r's slice. r's goroutine only.
func (b *playerBook) note(r *rooms.Room) {
	b.mu.Lock()
	defer b.mu.Unlock()
	refs := b.rooms[r][:0]
	for _, s := range r.Server().Sessions() {
		if who := s.Who(); !who.Spectate {
			refs = append(refs, playerRef{who.Account, s.ID()})
		}
	}
	b.rooms[r] = refs
}

// forget drops r: it closed.
func (b *playerBook) forget(r *rooms.Room) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.rooms, r)
}

// ids returns the players' list values, sorted: an account, or
// room/session.
func (b *playerBook) ids() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for r, refs := range b.rooms {
		for _, p := range refs {
			if p.account != "" {
				out = append(out, p.account)
			} else {
				out = append(out, r.Name+"/"+strconv.FormatUint(uint64(p.session), 10))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
