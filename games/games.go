// Package games holds the games a room may play. A game is data plus code:
// its rules (ecs.Rules: police, who hurts whom, respawn, the clock, the
// safe zones, the phone, the garages' prices), its item catalog (the common
// items and its own, each mission's among them), its shop prices, its
// missions and run missions, and the places and spawn areas it adds to the
// levels it plays (places.go). The data of each built-in game is a JSON
// file embedded from data/ (FORMAT.md describes it); Lookup returns a game
// by name.
//
// Built in: free-roam (police, players hurt each other, no phone, no
// missions) and city-jobs (a phone in every pocket, the missions of
// package missions/cityjobs and the run missions of missions/cityruns with
// their places on main-city, rivals rule, the police car park safe).
package games

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/fiveonit/engine/catalog"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
)

// Default is the game a room plays when its join names none.
const Default = "free-roam"

// ErrUnknownGame is returned by Lookup for a name no game has.
var ErrUnknownGame = errors.New("games: unknown game")

// ErrInvalid is wrapped by the errors of Parse and of Game.Check.
var ErrInvalid = errors.New("games: invalid")

// MaxPrice is the highest price of an item: a billion.
const MaxPrice = 1_000_000_000

//go:embed data/*.json
var data embed.FS

// Game is one game: read only once made, shared by the rooms that play it.
type Game struct {
	// Name is the game's name (the game= of a join).
	Name string
	// Label and Description are for the lobby.
	Label, Description string
	// Rules are the game's rules; Rules.Name is the game's name.
	Rules ecs.Rules
	// Items is the game's catalog: the common items, then the game's own.
	Items *catalog.Catalog
	// Prices are what the shops ask, by item, in cash.
	Prices []Price
	// Missions are the game's missions (package missions), registered in
	// Go by the game (missions.go): none for free roam.
	Missions []missions.Def
	// Runs are the game's run missions (missions.RunDef), played in run
	// rooms, registered in Go like its Missions; Run finds one by name.
	Runs []missions.RunDef
	// Levels are what the game adds to the levels it plays: places and
	// spawn areas, by level name (places.go).
	Levels []LevelPlaces
	price  []int64 // by item id; 0: not sold
}

// Price is what a shop asks for one of an item.
type Price struct {
	Item  string `json:"item"`
	Price int64  `json:"price"`
}

// Price returns what one of item costs in a shop, and false when the game
// sells none.
func (g *Game) Price(item components.ItemID) (int64, bool) {
	if int(item) >= len(g.price) || g.price[item] == 0 {
		return 0, false
	}
	return g.price[item], true
}

// Check reports whether the game can be played on level l: every item the
// level's shops, containers, pickups and NPC spawners name must be in the
// catalog, and the places and spawn areas the game adds to l must fit it
// (Level).
func (g *Game) Check(l *levels.Level) error {
	if _, err := g.Level(l); err != nil {
		return err
	}
	bad := func(where, item string) error {
		return fmt.Errorf("%w: level %s: %s names item %q, which game %s does not have", ErrInvalid, l.Name, where, item, g.Name)
	}
	for i, s := range l.Shops {
		for k, it := range s.Items {
			if _, ok := g.Items.ByName(it); !ok {
				return bad(fmt.Sprintf("shops[%d].items[%d]", i, k), it)
			}
		}
	}
	for i, c := range l.Containers {
		if len(c.Items) > components.ContainerSlots {
			return fmt.Errorf("%w: level %s: containers[%d] holds %d stacks, more than a container's %d slots", ErrInvalid, l.Name, i, len(c.Items), components.ContainerSlots)
		}
		for k, st := range c.Items {
			if _, ok := g.Items.ByName(st.Item); !ok {
				return bad(fmt.Sprintf("containers[%d].items[%d]", i, k), st.Item)
			}
		}
	}
	for i, p := range l.Pickups {
		if _, ok := g.Items.ByName(p.Item); !ok {
			return bad(fmt.Sprintf("pickups[%d]", i), p.Item)
		}
	}
	for i, n := range l.NPCSpawners {
		for k, st := range n.Items {
			if _, ok := g.Items.ByName(st.Item); !ok {
				return bad(fmt.Sprintf("npcSpawners[%d].items[%d]", i, k), st.Item)
			}
		}
	}
	return nil
}

// ForLevel returns the rules a room of the game plays on l: the game's,
// made a quiet sandbox on a test-* level (no police, the clock stopped)
// so that tests there are not disturbed.
func (g *Game) ForLevel(l *levels.Level) ecs.Rules {
	r := g.Rules
	if strings.HasPrefix(l.Name, "test-") {
		r.Police, r.ClockPace = false, 0
	}
	return r
}

// load parses the embedded games once. A failure returns the games parsed
// before it with the error, every call.
var load = sync.OnceValues(func() ([]*Game, error) {
	var all []*Game
	common, err := data.ReadFile("data/items.json")
	if err != nil {
		return all, err
	}
	entries, err := data.ReadDir("data")
	if err != nil {
		return all, err
	}
	for _, e := range entries {
		if e.Name() == "items.json" {
			continue
		}
		b, err := data.ReadFile(path.Join("data", e.Name()))
		if err != nil {
			return all, err
		}
		g, err := Parse(e.Name(), common, b)
		if err != nil {
			return all, err
		}
		if err := g.setRuns(builtinRuns(g.Name)); err != nil {
			return all, err
		}
		if err := g.setMissions(builtinMissions(g.Name)); err != nil {
			return all, err
		}
		if g.Name+".json" != e.Name() {
			return all, fmt.Errorf("%w: %s: the game is named %q", ErrInvalid, e.Name(), g.Name)
		}
		all = append(all, g)
	}
	return all, nil
})

// Lookup returns the built-in game named name; ErrUnknownGame (with the
// names there are) for any other.
func Lookup(name string) (*Game, error) {
	all, err := load()
	if err != nil {
		return nil, err
	}
	for _, g := range all {
		if g.Name == name {
			return g, nil
		}
	}
	return nil, fmt.Errorf("%w %q (games: %s)", ErrUnknownGame, name, strings.Join(Names(), ", "))
}

// Names returns the built-in games' names, sorted.
func Names() []string {
	all, _ := load()
	out := make([]string, 0, len(all))
	for _, g := range all {
		out = append(out, g.Name)
	}
	slices.Sort(out)
	return out
}

// All returns the built-in games, by name.
func All() []*Game {
	all, _ := load()
	return all
}

// file is a game's JSON file; itemsFile the common items'.
type file struct {
	Name        string          `json:"name"`
	Label       string          `json:"label"`
	Description string          `json:"description"`
	Rules       json.RawMessage `json:"rules"`
	Items       []ItemDef       `json:"items"`
	Prices      []Price         `json:"prices"`
	Levels      []LevelPlaces   `json:"levels"`
}

type itemsFile struct {
	Items []ItemDef `json:"items"`
}

// ItemDef is an item as the game format writes it (FORMAT.md).
type ItemDef struct {
	Name    string `json:"name"`
	Label   string `json:"label"`
	Kind    string `json:"kind"`
	Stack   uint16 `json:"stack"`
	Weapon  string `json:"weapon,omitempty"`
	Ammo    string `json:"ammo,omitempty"`
	Heal    uint16 `json:"heal,omitempty"`
	Key     string `json:"key,omitempty"`
	Persist bool   `json:"persist,omitempty"`
	Mission string `json:"mission,omitempty"`
}

// weaponNames are the weapons an item may put in hand, by components.Weapon*.
var weaponNames = [...]string{components.WeaponPistol: "pistol", components.WeaponSMG: "smg", components.WeaponGrenade: "grenade"}

// strict decodes b into v, refusing unknown fields and anything after.
func strict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}

// Parse reads a game from its file (named name, for the errors) with the
// common items of items (data/items.json's format) first in its catalog.
func Parse(name string, items, game []byte) (*Game, error) {
	wrap := func(err error) error { return fmt.Errorf("%w: %s: %w", ErrInvalid, name, err) }
	var cf itemsFile
	if err := strict(items, &cf); err != nil {
		return nil, wrap(fmt.Errorf("common items: %w", err))
	}
	var f file
	if err := strict(game, &f); err != nil {
		return nil, wrap(err)
	}
	if !levels.ValidName(f.Name) {
		return nil, wrap(fmt.Errorf("name %q is not a valid name", f.Name))
	}
	g := &Game{Name: f.Name, Label: f.Label, Description: f.Description, Prices: f.Prices, Levels: f.Levels}
	if g.Label == "" {
		g.Label = g.Name
	}
	if len(f.Rules) == 0 {
		return nil, wrap(errors.New("rules: required"))
	}
	if err := strict(f.Rules, &g.Rules); err != nil {
		return nil, wrap(fmt.Errorf("rules: %w", err))
	}
	if g.Rules.Name != "" && g.Rules.Name != g.Name {
		return nil, wrap(fmt.Errorf("rules.name %q is not the game's name", g.Rules.Name))
	}
	g.Rules.Name = g.Name
	if err := checkRules(&g.Rules); err != nil {
		return nil, wrap(fmt.Errorf("rules.%w", err))
	}
	var list []catalog.Item
	for i, d := range append(append([]ItemDef(nil), cf.Items...), f.Items...) {
		it, err := d.item()
		if err != nil {
			return nil, wrap(fmt.Errorf("items[%d]: %w", i, err))
		}
		list = append(list, it)
	}
	cat, err := catalog.New(list)
	if err != nil {
		return nil, wrap(err)
	}
	if err := checkPlaces(f.Levels); err != nil {
		return nil, wrap(err)
	}
	g.Items = cat
	g.price = make([]int64, cat.Len()+1)
	for i, p := range f.Prices {
		id, ok := cat.ByName(p.Item)
		switch {
		case !ok:
			return nil, wrap(fmt.Errorf("prices[%d]: item %q is not in the catalog", i, p.Item))
		case p.Price <= 0 || p.Price > MaxPrice:
			return nil, wrap(fmt.Errorf("prices[%d]: price %d is not within 1..%d", i, p.Price, MaxPrice))
		case g.price[id] != 0:
			return nil, wrap(fmt.Errorf("prices[%d]: item %q priced twice", i, p.Item))
		}
		g.price[id] = p.Price
	}
	return g, nil
}

// checkRules checks the values of a game's rules.
func checkRules(r *ecs.Rules) error {
	switch r.PlayersHurt {
	case "on", "rivals", "off":
	default:
		return fmt.Errorf("playersHurt: %q is not on, rivals or off", r.PlayersHurt)
	}
	switch r.Respawn {
	case "hospital", "spawn", "":
	default:
		return fmt.Errorf("respawn: %q is not hospital, spawn or empty", r.Respawn)
	}
	switch {
	case r.Traffic < -1 || r.Traffic > 10_000:
		return fmt.Errorf("traffic: %d is not within -1..10000", r.Traffic)
	case r.Pedestrians < -1 || r.Pedestrians > 10_000:
		return fmt.Errorf("pedestrians: %d is not within -1..10000", r.Pedestrians)
	case !(r.GhostSeconds >= 0 && r.GhostSeconds <= 60):
		return fmt.Errorf("ghostSeconds: %v is not within 0..60", r.GhostSeconds)
	case !(r.ClockStart >= 0 && r.ClockStart < ecs.MinutesPerDay):
		return fmt.Errorf("clockStart: %v is not within 0..1440", r.ClockStart)
	case !(r.ClockPace >= 0 && r.ClockPace <= 1440):
		return fmt.Errorf("clockPace: %v is not within 0..1440", r.ClockPace)
	}
	for i, z := range r.SafeZones {
		if !levels.ValidName(z) {
			return fmt.Errorf("safeZones[%d]: %q is not a valid id", i, z)
		}
	}
	for i, gp := range r.Garages {
		if !levels.ValidName(gp.Garage) || gp.Price < 0 || gp.Price > MaxPrice {
			return fmt.Errorf("garages[%d]: a garage id and a price within 0..%d", i, MaxPrice)
		}
	}
	return nil
}

// item returns d as a catalog item.
func (d ItemDef) item() (catalog.Item, error) {
	k, ok := catalog.KindByName(d.Kind)
	if !ok {
		return catalog.Item{}, fmt.Errorf("item %q: kind %q is not one of %s", d.Name, d.Kind, strings.Join(catalog.KindNames(), ", "))
	}
	it := catalog.Item{Name: d.Name, Label: d.Label, Kind: k, Stack: d.Stack, Ammo: d.Ammo, Heal: d.Heal, Key: d.Key, Persist: d.Persist, Mission: d.Mission}
	if d.Weapon != "" {
		w := slices.Index(weaponNames[:], d.Weapon)
		if w <= 0 {
			return catalog.Item{}, fmt.Errorf("item %q: weapon %q is not pistol, smg or grenade", d.Name, d.Weapon)
		}
		it.Weapon = uint8(w)
	}
	return it, nil
}
