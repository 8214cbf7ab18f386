package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/fiveonit/engine/levels"
)

// TestGenerateDeterministic: two runs give the same bytes, and they are the
// committed data/main-city.json: a change to the generator without
// `go generate ./levels` fails here.
func TestGenerateDeterministic(t *testing.T) {
	a, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	b, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("two runs of the generator differ")
	}
	committed, err := os.ReadFile("../data/main-city.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, committed) {
		t.Fatal("levels/data/main-city.json is stale: run `go generate ./levels` (go run ./gen -o data/main-city.json in levels/)")
	}
	embedded, err := levels.Raw("main-city")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, embedded) {
		t.Fatal("the embedded main-city differs from the generator's output")
	}
	if _, err := levels.Parse("main-city.json", a); err != nil {
		t.Fatal(err)
	}
}

// TestBlocksVary: the generator's random choices reach the city: blocks
// differ in their lot counts and building heights.
func TestBlocksVary(t *testing.T) {
	l := city()
	heights := map[float32]bool{}
	uses := map[levels.BuildingUse]bool{}
	ells := 0
	for _, b := range l.Buildings {
		heights[b.Height] = true
		uses[b.Use] = true
		if len(b.Footprint) == 6 {
			ells++
		}
	}
	if len(heights) < 10 || len(uses) < 8 || ells == 0 {
		t.Errorf("%d heights, %d uses, %d L-shaped buildings: the city is too uniform", len(heights), len(uses), ells)
	}
}
