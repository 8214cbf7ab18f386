package server

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/textframe"
	"github.com/mlange-42/arche/generic"
)

// ticks runs n ticks and reads what p got.
func ticks(g *GameServer, p *probe, n int) {
	for i := 0; i < n; i++ {
		g.Tick()
	}
	p.read()
}

// reply sends cmd and returns its reply.
func reply(t *testing.T, g *GameServer, p *probe, cmd string) textframe.ReplyFrame {
	t.Helper()
	p.command(cmd)
	ticks(g, p, 1)
	m := p.lastText("reply")
	if m == nil {
		t.Fatalf("%s: no reply", cmd)
	}
	b, _ := json.Marshal(m)
	var r textframe.ReplyFrame
	json.Unmarshal(b, &r)
	return r
}

// inventory returns the last inventory frame p got.
func inventory(t *testing.T, p *probe) textframe.InventoryFrame {
	t.Helper()
	m := p.lastText("inventory")
	if m == nil {
		t.Fatal("no inventory frame")
	}
	b, _ := json.Marshal(m)
	var f textframe.InventoryFrame
	json.Unmarshal(b, &f)
	return f
}

// TestItemCommandsAndFrames: the welcome lists the catalog; the inventory
// frame comes on join and again only when the inventory, the hand or the
// cash changes; each item command is answered, a bad one with the reason
// and no change.
func TestItemCommandsAndFrames(t *testing.T) {
	g := newGame(t, "test-flat", "city-jobs")
	p := join(t, g, Who{})
	ticks(g, p, 3)
	if len(p.welcome.Items) != g.w.Items.Len() || p.welcome.Items[0].Name != "cash" || p.welcome.Items[0].ID != 1 {
		t.Fatalf("welcome items %+v", p.welcome.Items)
	}
	var water textframe.WelcomeItem
	for _, it := range p.welcome.Items {
		if it.Name == "water" {
			water = it
		}
	}
	if water.Price == 0 || water.Kind != "consumable" {
		t.Fatalf("water %+v: priced, a consumable", water)
	}
	inv := inventory(t, p)
	phone, _ := g.w.Items.ByName("phone")
	if inv.Slots[components.InventorySlots-1].Item != phone || inv.Cash == 0 {
		t.Fatalf("first inventory %+v", inv)
	}
	count := func() int {
		n := 0
		for _, m := range p.texts {
			if m["type"] == "inventory" {
				n++
			}
		}
		return n
	}
	n := count()
	ticks(g, p, 6)
	if count() != n {
		t.Fatal("an inventory frame with nothing changed")
	}
	if r := reply(t, g, p, `{"type":"debug","cmd":"give-item","item":"medkit","count":2}`); !r.OK {
		t.Fatalf("give-item: %+v", r)
	}
	ticks(g, p, 3)
	medkit, _ := g.w.Items.ByName("medkit")
	if inv := inventory(t, p); inv.Slots[0].Item != medkit || inv.Slots[0].Count != 2 || count() != n+1 {
		t.Fatalf("after give-item: %+v", inv)
	}
	if r := reply(t, g, p, `{"type":"drop","slot":0}`); r.OK || r.Error != "get out of the car first" {
		t.Fatalf("drop in a car: %+v", r)
	}
	getOut(g, p.s)
	for _, c := range []struct{ cmd, want string }{
		{`{"type":"use"}`, `"slot" is required`},
		{`{"type":"use","slot":99}`, "no such slot 99: slots are 0 to 9"},
		{`{"type":"use","slot":0}`, "you are not hurt"},
		{`{"type":"move","slot":0}`, `"to" is required`},
		{`{"type":"move","slot":0,"to":9}`, "the phone stays in its slot"},
		{`{"type":"move","slot":0,"to":3,"count":3}`, "bad count 3: there are 2"},
		{`{"type":"pickup"}`, `"target" is required: a loose item's wire id`},
		{`{"type":"pickup","target":4000}`, "no such thing: no item 4000 lies about"},
		{`{"type":"open"}`, `"place" is required: a container's or shop's id of the level`},
		{`{"type":"open","place":"nowhere"}`, `no such thing: no container "nowhere" here`},
		{`{"type":"take","slot":0}`, "no container open"},
		{`{"type":"close"}`, "no container open"},
		{`{"type":"buy","place":"corner-shop"}`, `"item" is required: an item's name`},
		{`{"type":"buy","place":"corner-shop","item":"water"}`, `no such thing: no shop "corner-shop" here`},
	} {
		r := reply(t, g, p, c.cmd)
		if r.OK || r.Error != c.want {
			t.Fatalf("%s: reply %+v, want %q", c.cmd, r, c.want)
		}
	}
	ticks(g, p, 3)
	if count() != n+1 {
		t.Fatal("a refused command changed the inventory")
	}
	// A drop and a pickup through the commands.
	if r := reply(t, g, p, `{"type":"drop","slot":0,"count":1}`); !r.OK || r.Cmd != "drop" {
		t.Fatalf("drop: %+v", r)
	}
	wid := looseWire(g, medkit)
	if wid == 0 {
		t.Fatal("the dropped medkit does not lie about")
	}
	if r := reply(t, g, p, fmt.Sprintf(`{"type":"pickup","target":%d}`, wid)); !r.OK {
		t.Fatalf("pickup: %+v", r)
	}
	ticks(g, p, 3)
	if inv := inventory(t, p); inv.Slots[0].Count != 2 || looseWire(g, medkit) != 0 {
		t.Fatalf("after the pickup: %+v", inv)
	}
}

// getOut takes s's character out of its car at once, on foot where it is.
func getOut(g *GameServer, s *Session) {
	act, in, _ := g.persons.Get(s.char)
	if v := in.Vehicle; !v.IsZero() {
		g.seats.Get(v).Occupant[in.Seat] = ecs.Entity{}
	}
	in.Vehicle, act.Act = ecs.Entity{}, components.ActOnFoot
}

// looseWire returns the wire id of a loose item of item, 0 for none.
func looseWire(g *GameServer, item components.ItemID) uint16 {
	f := generic.NewFilter2[components.Loose, components.Identity]()
	q := f.Query(g.w.Arche)
	for q.Next() {
		l, id := q.Get()
		if l.Stack.Item == item {
			wid := id.WireID
			q.Close()
			return wid
		}
	}
	return 0
}
