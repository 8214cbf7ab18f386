package prefab_test

import (
	"go/doc/comment"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/fiveonit/engine/catalog"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/prefab"
	arche "github.com/mlange-42/arche/ecs"
)

// names returns the type names of ids in w, sorted.
func names(w *ecs.World, ids []arche.ID) []string {
	var out []string
	for _, id := range ids {
		info, _ := arche.ComponentInfo(w.Arche, id)
		out = append(out, info.Type.Name())
	}
	slices.Sort(out)
	return out
}

// TestArchetypes: every builder makes its entities of its archetype's
// Components, and its variants add to that list only what they say they
// add, so that a component added to a kind's list reaches every entity of
// the kind, whichever builder made it.
func TestArchetypes(t *testing.T) {
	items, err := catalog.New([]catalog.Item{{Name: "phone", Kind: catalog.KindPhone, Stack: 1}})
	if err != nil {
		t.Fatal(err)
	}
	w, err := ecs.New(ecs.Config{Seed: 1, Items: items, Rules: ecs.Rules{Phone: true}})
	if err != nil {
		t.Fatal(err)
	}
	b := prefab.New(w)
	must := func(e ecs.Entity, err error) ecs.Entity {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	must2 := func(a, _ ecs.Entity, err error) ecs.Entity {
		t.Helper()
		return must(a, err)
	}
	driverOf := func(_, d ecs.Entity, err error) ecs.Entity {
		t.Helper()
		return must(d, err)
	}
	at := components.Vec3{X: 3}
	for _, c := range []struct {
		name  string
		e     ecs.Entity
		a     prefab.Archetype
		extra []string
	}{
		{"vehicle", must(b.Vehicle(components.KindCar, physics.ModelSedan, at, 0, ecs.Entity{})), prefab.Vehicle, nil},
		{"parked car", must(b.ParkedCar(physics.ModelVan, at, 0, true)), prefab.Vehicle, nil},
		{"trailer", must(b.Vehicle(components.KindTrailer, physics.ModelTrailer, at, 0, ecs.Entity{})), prefab.Vehicle, []string{"TrailerLink"}},
		{"gate", must(b.Gate(at, 0, 6, false)), prefab.Vehicle, nil},
		{"traffic car", must2(b.TrafficCar(physics.ModelVan, 1, at, 0, 3)), prefab.Vehicle, []string{"NPC"}},
		{"traffic driver", driverOf(b.TrafficCar(physics.ModelVan, 1, at, 0, 3)), prefab.Person, []string{"NPC"}},
		{"spawner's car", must2(b.NPCCar(components.RoleDriver, 0, physics.ModelSedan, at, 0)), prefab.Vehicle, []string{"NPC"}},
		{"spawner's driver", driverOf(b.NPCCar(components.RoleDriver, 0, physics.ModelSedan, at, 0)), prefab.Person, []string{"NPC"}},
		{"police car", must2(b.PoliceCar(at, 0, ecs.Entity{}, 0)), prefab.Vehicle, []string{"NPC", "Chaser"}},
		{"chaser car", must2(b.ChaserCar(physics.ModelSedan, at, 0, ecs.Entity{}, 0)), prefab.Vehicle, []string{"NPC", "Chaser"}},
		{"person", must(b.Person(components.KindPedestrian, 0, at, 0)), prefab.Person, nil},
		{"pedestrian", must(b.Pedestrian(components.RoleWalker, 0, at, 0, -1, 0)), prefab.Person, []string{"NPC"}},
		{"guard", must(b.NPCPerson(components.KindGuard, components.RoleGuard, 0, at, 0)), prefab.Person, []string{"NPC", "Sentry", "Chaser"}},
		{"character", must(b.Character(1, 0, 0, at, 0)), prefab.Character, nil},
		{"item", must(b.Item(1, 1, -1, at)), prefab.Item, nil},
		{"container", b.Container(0, at, 0, false, [components.ContainerSlots]components.Stack{}), prefab.Container, nil},
		{"thrown", must(b.Thrown(at, components.Vec3{}, components.Projectile{Item: 1})), prefab.Thrown, nil},
		{"camera", must(b.Camera(0, at, 0)), prefab.Camera, nil},
	} {
		want := append(names(w, prefab.Components(w, c.a)), c.extra...)
		slices.Sort(want)
		if got := names(w, w.Arche.Ids(c.e)); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", c.name, got, want)
		}
	}
}

// TestDocArchetypes: the package doc's list of archetypes is Components'.
func TestDocArchetypes(t *testing.T) {
	w, err := ecs.New(ecs.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("prefab.go")
	if err != nil {
		t.Fatal(err)
	}
	// The package doc: the comment lines before "package prefab".
	var text []string
	for _, line := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(line, "package ") {
			break
		}
		text = append(text, strings.TrimPrefix(strings.TrimPrefix(line, "//"), " "))
	}
	var listed map[string][]string
	for _, blk := range new(comment.Parser).Parse(strings.Join(text, "\n")).Content {
		if code, ok := blk.(*comment.Code); ok && strings.Contains(code.Text, "vehicle:") {
			listed = map[string][]string{}
			for _, line := range strings.Split(strings.TrimSpace(code.Text), "\n") {
				name, comps, _ := strings.Cut(line, ":")
				comps, _, _ = strings.Cut(comps, "(")
				f := strings.Fields(comps)
				if len(f) > 2 && f[0] == "the" && f[2] == "and" {
					f = append(slices.Clone(listed[strings.TrimSuffix(f[1], "'s")]), f[3:]...)
				}
				listed[name] = f
			}
		}
	}
	for _, c := range []struct {
		name string
		a    prefab.Archetype
	}{
		{"vehicle", prefab.Vehicle}, {"person", prefab.Person}, {"character", prefab.Character},
		{"item", prefab.Item}, {"container", prefab.Container}, {"thrown", prefab.Thrown}, {"camera", prefab.Camera},
	} {
		got := slices.Sorted(slices.Values(listed[c.name]))
		if want := names(w, prefab.Components(w, c.a)); !slices.Equal(got, want) {
			t.Errorf("the package doc's %s: %v, Components: %v", c.name, got, want)
		}
	}
}
