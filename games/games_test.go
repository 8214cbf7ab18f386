package games

import (
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fiveonit/engine/catalog"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/prefab"
)

func TestBuiltInGames(t *testing.T) {
	if got := strings.Join(Names(), ","); got != "city-jobs,free-roam" {
		t.Fatalf("names %q", got)
	}
	city, err := levels.Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range Names() {
		g, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if g.Rules.Name != name {
			t.Fatalf("%s: rules named %q", name, g.Rules.Name)
		}
		if err := g.Check(city); err != nil {
			t.Fatalf("%s on main-city: %v", name, err)
		}
		// The common items are in every catalog.
		for _, it := range []string{"cash", "phone", "pistol", "pistol-ammo", "grenade", "crowbar", "medkit", "water", "police-key", "yard-key"} {
			if _, ok := g.Items.ByName(it); !ok {
				t.Fatalf("%s: no %s", name, it)
			}
		}
		// Every item the corner shop lists has a price.
		for _, it := range city.Shops[0].Items {
			id, _ := g.Items.ByName(it)
			if _, ok := g.Price(id); !ok {
				t.Fatalf("%s: the corner shop's %s has no price", name, it)
			}
		}
	}
	fr, _ := Lookup("free-roam")
	cj, _ := Lookup("city-jobs")
	if fr.Rules.Phone || !cj.Rules.Phone || fr.Rules.PlayersHurt != "on" {
		t.Fatal("free-roam has no phone and players hurt each other; city-jobs has phones")
	}
	if id, ok := cj.Items.ByName("parcel"); !ok || cj.Items.Get(id).Kind != catalog.KindMission || cj.Items.Get(id).Mission == "" {
		t.Fatal("city-jobs has a mission parcel")
	}
	if _, ok := fr.Items.ByName("parcel"); ok {
		t.Fatal("free-roam has no missions, so no parcel")
	}
	if len(cj.Rules.SafeZones) == 0 || len(cj.Rules.Garages) == 0 {
		t.Fatal("city-jobs names safe zones and garage prices")
	}
	flat, _ := levels.Load("test-flat")
	if r := fr.ForLevel(flat); r.Police || r.ClockPace != 0 || r.Name != "free-roam" {
		t.Fatalf("a test level's rules are a quiet sandbox: %+v", r)
	}
}

func TestLookupUnknown(t *testing.T) {
	_, err := Lookup("deathmatch")
	if !errors.Is(err, ErrUnknownGame) || !strings.Contains(err.Error(), "free-roam") {
		t.Fatalf("got %v: want ErrUnknownGame naming the games there are", err)
	}
}

func TestParseRefuses(t *testing.T) {
	items := []byte(`{"items":[{"name":"water","kind":"consumable","stack":5,"heal":5}]}`)
	ok := `{"name":"g","rules":{"playersHurt":"on"},"prices":[{"item":"water","price":2}]}`
	if _, err := Parse("g.json", items, []byte(ok)); err != nil {
		t.Fatalf("the good one: %v", err)
	}
	for _, c := range []struct{ name, items, game string }{
		{"unknown field", "", `{"name":"g","rules":{"playersHurt":"on"},"colour":1}`},
		{"unknown rule", "", `{"name":"g","rules":{"playersHurt":"on","gravity":1}}`},
		{"no rules", "", `{"name":"g"}`},
		{"bad name", "", `{"name":"G G","rules":{"playersHurt":"on"}}`},
		{"bad hurt", "", `{"name":"g","rules":{"playersHurt":"sometimes"}}`},
		{"bad respawn", "", `{"name":"g","rules":{"playersHurt":"on","respawn":"heaven"}}`},
		{"bad clock", "", `{"name":"g","rules":{"playersHurt":"on","clockStart":2000}}`},
		{"bad zone", "", `{"name":"g","rules":{"playersHurt":"on","safeZones":["A B"]}}`},
		{"rules named otherwise", "", `{"name":"g","rules":{"name":"h","playersHurt":"on"}}`},
		{"price unknown item", "", `{"name":"g","rules":{"playersHurt":"on"},"prices":[{"item":"gold","price":2}]}`},
		{"price 0", "", `{"name":"g","rules":{"playersHurt":"on"},"prices":[{"item":"water","price":0}]}`},
		{"price twice", "", `{"name":"g","rules":{"playersHurt":"on"},"prices":[{"item":"water","price":1},{"item":"water","price":2}]}`},
		{"item kind", "", `{"name":"g","rules":{"playersHurt":"on"},"items":[{"name":"x","kind":"magic","stack":1}]}`},
		{"item weapon", "", `{"name":"g","rules":{"playersHurt":"on"},"items":[{"name":"x","kind":"weapon","stack":1,"weapon":"laser"}]}`},
		{"item twice", "", `{"name":"g","rules":{"playersHurt":"on"},"items":[{"name":"water","kind":"tool","stack":1}]}`},
		{"common items bad", `{"items":[{"name":"w","kind":"tool"}]}`, ok},
		{"trailing", "", ok + `{}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			it := items
			if c.items != "" {
				it = []byte(c.items)
			}
			if _, err := Parse("g.json", it, []byte(c.game)); !errors.Is(err, ErrInvalid) {
				t.Fatalf("got %v, want ErrInvalid", err)
			}
		})
	}
}

func TestCheckRefusesAnItemTheCatalogLacks(t *testing.T) {
	for _, c := range []struct{ field, where string }{
		{`"pickups":[{"item":"unobtainium","count":1,"pos":[0,0]}]`, "pickups[0]"},
		{`"npcSpawners":[{"id":"g","role":"guard","pos":[0,0],"yaw":0,"count":1,"items":[{"item":"yard-key","count":1},{"item":"unobtainium","count":1}]}]`, "npcSpawners[0].items[1]"},
	} {
		l, err := levels.Parse("x.json", []byte(`{"name":"test-x","version":1,"ground":{"min":[-50,-50],"max":[50,50]},"rules":{},"roads":{},`+c.field+`}`))
		if err != nil {
			t.Fatal(err)
		}
		g, _ := Lookup(Default)
		if err := g.Check(l); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.where) {
			t.Fatalf("%s: got %v", c.where, err)
		}
	}
}

// TestFormatNamesEveryKind: FORMAT.md's item kind field names every kind
// of the catalog (catalog.KindNames), each in backquotes outside the
// parentheses that say what it does, and no other; a new kind is a line
// there too.
func TestFormatNamesEveryKind(t *testing.T) {
	b, err := os.ReadFile("FORMAT.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "| `kind` |") {
			row = line
		}
	}
	cols := strings.Split(row, "|")
	if len(cols) < 4 {
		t.Fatalf("no kind row in FORMAT.md's Item table: %q", row)
	}
	meaning := regexp.MustCompile(`\([^)]*\)`).ReplaceAllString(cols[3], "")
	var got []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(meaning, -1) {
		got = append(got, m[1])
	}
	if want := catalog.KindNames(); !slices.Equal(got, want) {
		t.Fatalf("FORMAT.md names the kinds %q, the catalog %q", got, want)
	}
}

// TestFreeRoamShopsAndGarage: what free roam sells in main-city's shops
// has a use there (nothing of no use of its own, no phone's), and a new
// player who buys any one of it can still keep a car in the garage.
func TestFreeRoamShopsAndGarage(t *testing.T) {
	fr, err := Lookup("free-roam")
	if err != nil {
		t.Fatal(err)
	}
	city, err := levels.Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	var dearest int64
	sold := 0
	for _, sh := range city.Shops {
		for _, name := range sh.Items {
			id, _ := fr.Items.ByName(name)
			price, ok := fr.Price(id)
			if !ok {
				continue
			}
			sold++
			if it := fr.Items.Get(id); it.Kind == catalog.KindMisc || it.Kind == catalog.KindPhone {
				t.Errorf("%s sells %s in free roam: of no use there", sh.ID, name)
			}
			dearest = max(dearest, price)
		}
	}
	if sold < 6 {
		t.Fatalf("free roam sells %d things in main-city: the test proves little", sold)
	}
	garage := int64(-1)
	for _, gp := range fr.Rules.Garages {
		if gp.Garage == "garage" {
			garage = gp.Price
		}
	}
	if garage < 0 {
		t.Fatal("free roam prices no garage of main-city: the level's price stands")
	}
	if dearest+garage > prefab.StartCash {
		t.Fatalf("the dearest thing (%d) and the garage (%d) cost more than a new player holds (%d)", dearest, garage, prefab.StartCash)
	}
}
