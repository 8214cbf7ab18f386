package server

import (
	"errors"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/systems"
	"github.com/fiveonit/engine/textframe"
)

// itemsFeature wires the items system to the sessions: the item commands,
// each player's inventory and open container as frames, and the catalog
// in the welcome.
type itemsFeature struct {
	noSession
	g       *GameServer
	sent    perSession[itemsSent]
	catalog []textframe.WelcomeItem // the catalog for the welcome, made once
}

func newItemsFeature(g *GameServer) *itemsFeature {
	f := &itemsFeature{g: g, sent: newPerSession[itemsSent](g.cfg.MaxPlayers)}
	f.catalog = f.welcomeItems()
	return f
}

func (f *itemsFeature) commands() []string {
	return []string{"pickup", "drop", "use", "move", "open", "take", "put", "close", "buy"}
}

func (f *itemsFeature) enter(s *Session)  { f.sent.reset(s) }
func (f *itemsFeature) resume(s *Session) { f.sent.reset(s) }

func (f *itemsFeature) welcome(_ *Session, w *textframe.Welcome) { w.Items = f.catalog }

// itemsSent is what a session last told its client of what it holds: its
// inventory frame and the container frame.
type itemsSent struct {
	inv   bool
	slots [components.InventorySlots]components.Stack
	hand  uint8
	cash  int64
	open  ecs.Entity
	box   [components.ContainerSlots]components.Stack
}

// errNeedsSlot and its kin are the replies to an item command without a
// field it needs.
var (
	errNeedsSlot   = errors.New(`"slot" is required`)
	errNeedsTo     = errors.New(`"to" is required`)
	errNeedsPlace  = errors.New(`"place" is required: a container's or shop's id of the level`)
	errNeedsItem   = errors.New(`"item" is required: an item's name`)
	errNeedsTarget = errors.New(`"target" is required: a loose item's wire id`)
)

// command does an item command of s's character through the items
// system; its error is the reply's reason.
func (f *itemsFeature) command(s *Session, c *textframe.Command) error {
	g := f.g
	c.Cmd = c.Type // the reply names the command
	it := systems.Items(g.w)
	switch {
	case it == nil:
		return errors.New("not available: this room has no items")
	case s.who.Spectate:
		return errors.New("a spectator holds nothing")
	}
	w, e := g.w, s.char
	switch c.Type {
	case "pickup":
		if c.Target == 0 {
			return errNeedsTarget
		}
		return it.Pickup(w, e, c.Target)
	case "drop", "use", "take", "put":
		if c.Slot == nil {
			return errNeedsSlot
		}
		switch c.Type {
		case "drop":
			return it.Drop(w, e, *c.Slot, c.Count)
		case "use":
			return it.Use(w, e, *c.Slot)
		case "take":
			return it.Take(w, e, *c.Slot, c.Count)
		}
		return it.Put(w, e, *c.Slot, c.Count)
	case "move":
		switch {
		case c.Slot == nil:
			return errNeedsSlot
		case c.To == nil:
			return errNeedsTo
		}
		return it.Move(w, e, *c.Slot, *c.To, c.Count)
	case "open":
		if c.Place == "" {
			return errNeedsPlace
		}
		return it.Open(w, e, c.Place)
	case "close":
		return it.Close(w, e)
	}
	switch { // buy
	case c.Place == "":
		return errNeedsPlace
	case c.Item == "":
		return errNeedsItem
	}
	return it.Buy(w, e, c.Place, c.Item, c.Count)
}

// notify sends s its inventory frame (with its Cash and the weapon in
// hand) and its container frame when they changed. It runs on s's
// snapshot ticks and allocates nothing.
func (f *itemsFeature) notify(s *Session) bool {
	g := f.g
	if !s.playing(g.w) || !s.snapshotDue(g.w.Tick()) {
		return true
	}
	inv := g.inv.Get(s.char)
	if inv == nil {
		return true
	}
	act, _, _ := g.persons.Get(s.char)
	_, cash := g.wanted.Get(s.char)
	st := f.sent.of(s)
	if !st.inv || inv.Slots != st.slots || act.Weapon != st.hand || cash.Amount != st.cash {
		st.inv, st.slots, st.hand, st.cash = true, inv.Slots, act.Weapon, cash.Amount
		fr := textframe.InventoryFrame{Type: "inventory", Hand: act.Weapon, Cash: cash.Amount}
		for i, sl := range inv.Slots {
			fr.Slots[i] = textframe.ItemSlot{Item: sl.Item, Count: sl.Count}
		}
		g.text = fr.AppendJSON(g.text[:0])
		if !g.sendTextBytes(s, g.text) {
			return false
		}
	}
	var box *components.Container
	if open := inv.Open; !open.IsZero() && g.w.Arche.Alive(open) {
		box = g.boxes.Get(open)
	}
	if inv.Open == st.open && (box == nil || box.Slots == st.box) {
		return true
	}
	st.open = inv.Open
	fr := textframe.ContainerFrame{Type: "container"}
	if box != nil {
		st.box = box.Slots
		lc := &g.cfg.Level.Containers[box.Level]
		fr.ID, fr.Kind = lc.ID, string(lc.Kind)
		for i, sl := range box.Slots {
			fr.Slots[i] = textframe.ItemSlot{Item: sl.Item, Count: sl.Count}
		}
	}
	g.text = fr.AppendJSON(g.text[:0])
	return g.sendTextBytes(s, g.text)
}

// welcomeItems lists the room's catalog for the welcome, with the game's
// prices.
func (f *itemsFeature) welcomeItems() []textframe.WelcomeItem {
	g := f.g
	items := g.w.Items.Items()
	out := make([]textframe.WelcomeItem, 0, len(items))
	for i := range items {
		it := &items[i]
		price, _ := g.cfg.Game.Price(it.ID)
		out = append(out, textframe.WelcomeItem{ID: it.ID, Name: it.Name, Label: it.Label, Kind: it.Kind.String(),
			Stack: it.Stack, Price: price, Weapon: it.Weapon, Ammo: it.Ammo, Key: it.Key, Persist: it.Persist, Mission: it.Mission})
	}
	return out
}
