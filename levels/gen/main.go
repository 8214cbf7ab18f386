// Command gen writes the main-city level: a deterministic grid city of 8 x 8
// blocks with its hospital, police station, garage, shops, gated yard,
// park, pavements, spawn points and spawners.
//
// Run it from the levels directory (go generate ./levels runs it there):
//
//	go run ./gen -o data/main-city.json
//
// The output depends on nothing but this code: the random choices come from
// a fixed-seed generator, and every coordinate is a multiple of 0.25 m
// computed exactly, so two runs on any machine write the same bytes. The
// levels tests fail when the committed file differs from this output.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/fiveonit/engine/levels"
)

func main() {
	out := flag.String("o", "data/main-city.json", "file to write")
	flag.Parse()
	data, err := generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// generate builds main-city, validates it and returns its file.
func generate() ([]byte, error) {
	l := city()
	if err := l.Validate(l.Name + ".json"); err != nil {
		return nil, err
	}
	return levels.Marshal(l)
}
