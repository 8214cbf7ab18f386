package server

import (
	"errors"
	"slices"

	"github.com/fiveonit/engine/catalog"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/prefab"
	"github.com/fiveonit/engine/store"
)

// PersistEvery is the most often a player's account state is posted to the
// account store while it changes: once per second (staggered by session),
// and on leave. A process killed outright loses at most the changes of
// this last second, and the store's write behind it (store.Accounts
// writes every 100 ms).
const PersistEvery = ecs.TickRate

// ErrAccountLost closes the session of an account whose lease another
// server took (this one could not reach the store for longer than the
// lease): its changes could no longer be kept.
var ErrAccountLost = errors.New("your account is playing on another server now: its changes here could not be kept")

// accountsFeature keeps each player's account (Who.Keep): it loads what
// the account kept into the character as it comes in, posts its changes
// to the store once per PersistEvery while it plays, and its last state
// as it leaves.
type accountsFeature struct {
	noCommands
	g    *GameServer
	sess perSession[accountSession]
}

// accountSession is what the accounts feature keeps of a session.
type accountSession struct {
	// kept is the account state last posted to the store (Who.Keep), the
	// buffer each post copies from.
	kept store.Account
	// slots are the stacks of persisting items, slot by slot, as
	// kept.Items last listed them (an empty stack where a slot holds
	// nothing kept).
	slots [components.InventorySlots]components.Stack
	// dirty is set when the join changed what the account had kept (an
	// item dropped or moved): the next post writes it.
	dirty bool
}

func newAccountsFeature(g *GameServer) *accountsFeature {
	return &accountsFeature{g: g, sess: newPerSession[accountSession](g.cfg.MaxPlayers)}
}

// enter gives s's character the state of its account: what the store
// kept, or the starting state of an account never saved. A player without
// one (anonymous, or no store) keeps nothing and starts anew.
func (f *accountsFeature) enter(s *Session) {
	g, as := f.g, f.sess.of(s)
	items := as.kept.Items[:0] // the slot's buffer is reused
	*as = accountSession{}
	as.kept.Items = items
	if s.who.Keep == nil || s.who.Spectate {
		return
	}
	char := s.char
	a := s.who.Keep.Account()
	if s.who.Keep.New() {
		a.Cash = prefab.StartCash
	}
	if _, cash := g.wanted.Get(char); cash != nil {
		cash.Amount = a.Cash
	}
	as.kept.Cash = a.Cash
	as.kept.Cars = append(as.kept.Cars[:0], a.Cars...)
	g.cars.load(s, a.Cars)
	if as.kept.Items == nil {
		as.kept.Items = make([]store.Item, 0, components.InventorySlots)
	}
	if inv := g.inv.Get(char); inv != nil {
		f.loadItems(s, inv, a.Items)
		f.keptItemsOf(as, inv)
		as.dirty = !slices.Equal(as.kept.Items, a.Items)
	}
	if s.who.Keep.New() {
		s.who.Keep.Save(&as.kept) // a new account is kept from its start
	}
}

// loadItems puts the items account kept into inv, each into its own slot
// while that slot is free. The phone's slot (the last, when the rules give
// a phone) stays the phone's. A stack that finds its slot taken, or that is
// larger than the catalog now stacks, goes where the pickup would put it.
// What the catalog no longer has, what no longer persists, and what finds
// no room is dropped, with a log line each.
func (f *accountsFeature) loadItems(s *Session, inv *components.Inventory, kept []store.Item) {
	g := f.g
	cat := g.w.Items
	phone := g.w.Rules.Phone && cat.Phone() != 0
	drop := func(it store.Item, why string) {
		g.cfg.Log.Warn("account: a kept item is dropped", "account", s.who.Account, "item", it.Item, "count", it.Count, "slot", it.Slot, "why", why)
	}
	type rest struct {
		it store.Item
		id components.ItemID
		n  int
	}
	var later []rest
	for _, it := range kept {
		id, ok := cat.ByName(it.Item)
		if !ok {
			drop(it, "not in this room's catalog")
			continue
		}
		switch c := cat.Get(id); {
		case c.Kind == catalog.KindCash:
			drop(it, "cash is kept as the account's Cash, not as an item")
			continue
		case !persists(c):
			drop(it, "it does not persist")
			continue
		}
		n := int(it.Count)
		i := int(it.Slot)
		if i < len(inv.Slots) && !(phone && i == len(inv.Slots)-1) && inv.Slots[i].Item == 0 {
			k := min(n, int(cat.StackOf(id)))
			inv.Slots[i] = components.Stack{Item: id, Count: uint16(k)}
			n -= k
		}
		if n > 0 {
			later = append(later, rest{it, id, n})
		}
	}
	for _, r := range later {
		if put := cat.Add(inv, r.id, r.n, phone); put < r.n {
			r.it.Count = uint32(r.n - put)
			drop(r.it, "no room in the inventory")
		}
	}
}

// persists reports whether it is an item the account keeps in its
// inventory slots: one the catalog says persists, but not cash (Cash is
// kept as the account's Cash, never as an item).
func persists(it *catalog.Item) bool {
	return it != nil && it.Persist && it.Kind != catalog.KindCash
}

// keptItemsOf fills as.kept.Items with the persisting stacks of inv, slot
// by slot, and reports whether they changed since it last did. Each is named
// by its catalog item's Name, not its ID: the ids number a room's catalog
// (the game's items and its missions'), so one item's id differs between
// games and changes when a catalog does, while its name is the item's
// id in every catalog (store.Item.Item). It reuses as.kept.Items: it
// allocates nothing once that has room for every slot.
func (f *accountsFeature) keptItemsOf(as *accountSession, inv *components.Inventory) bool {
	g := f.g
	var now [components.InventorySlots]components.Stack
	for i, st := range inv.Slots {
		if st.Item != 0 && st.Count > 0 && persists(g.w.Items.Get(st.Item)) {
			now[i] = st
		}
	}
	if now == as.slots {
		return false
	}
	as.slots = now
	as.kept.Items = as.kept.Items[:0]
	for i, st := range now {
		if st.Item != 0 {
			as.kept.Items = append(as.kept.Items, store.Item{Slot: uint8(i), Item: g.w.Items.Get(st.Item).Name, Count: uint32(st.Count)})
		}
	}
	return true
}

// resume keeps all: the account's state is the character's, which the
// new connection takes back.
func (f *accountsFeature) resume(*Session) {}

// state reads s's character into as.kept, the buffer posted to the
// store, and reports whether it differs from what was posted last: the
// Cash, the cars kept in garages (the cars feature's, changed by the car
// commands) and the persisting items of its inventory (as.kept.Items,
// reused: no allocation).
func (f *accountsFeature) state(s *Session, as *accountSession) bool {
	g := f.g
	changed := as.dirty
	as.dirty = false
	if cars, dirty := g.cars.takeKept(s); dirty {
		as.kept.Cars = append(as.kept.Cars[:0], cars...)
		changed = true
	}
	if !g.w.Arche.Alive(s.char) {
		return changed
	}
	if _, cash := g.wanted.Get(s.char); cash != nil && cash.Amount != as.kept.Cash {
		as.kept.Cash = cash.Amount
		changed = true
	}
	if inv := g.inv.Get(s.char); inv != nil && f.keptItemsOf(as, inv) {
		changed = true
	}
	return changed
}

// notify posts s's account state to the store when it changed, once per
// PersistEvery on s's own tick of it, and closes s if its account's lease
// was lost. The post copies under a mutex and allocates nothing: the
// store's writer does the writing, off the room goroutine.
func (f *accountsFeature) notify(s *Session) bool {
	g := f.g
	k := s.who.Keep
	if k == nil || (g.w.Tick()+uint64(s.id))%PersistEvery != 0 {
		return true
	}
	if k.Lost() {
		g.kick(s, ErrAccountLost)
		return false
	}
	if as := f.sess.of(s); f.state(s, as) {
		k.Save(&as.kept)
	}
	return true
}

// leave posts s's last account state and lets the account go: the
// store's writer releases it once that is written. A session that never
// came in lets it go unchanged.
func (f *accountsFeature) leave(s *Session) {
	k := s.who.Keep
	if k == nil {
		return
	}
	if as := f.sess.of(s); s.joined && f.state(s, as) {
		k.Leave(&as.kept)
		return
	}
	k.Leave(nil)
}
