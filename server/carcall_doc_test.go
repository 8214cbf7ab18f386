package server

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fiveonit/engine/ecs"
)

// TestCarCallDocNumbers: the numbers textframe/carcall.go gives in words
// for the car call, each followed by the constant it names, are the
// constants' values: 4 s (server.CarCallTicks), 50 cash
// (server.CarCallFee) and the others.
func TestCarCallDocNumbers(t *testing.T) {
	b, err := os.ReadFile("../textframe/carcall.go")
	if err != nil {
		t.Fatal(err)
	}
	var doc strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		if c, ok := strings.CutPrefix(line, "//"); ok {
			doc.WriteString(strings.TrimSpace(c) + " ")
		}
	}
	want := map[string]float64{
		"CarCallTicks": CarCallTicks / ecs.TickRate, // in seconds
		"CarCallEvery": CarCallEvery / ecs.TickRate,
		"CarCallRoad":  CarCallRoad,
		"CarCallNear":  CarCallNear,
		"CarCallFee":   CarCallFee,
	}
	// A number, its unit, then within the sentence the constant's name.
	re := regexp.MustCompile(`(\d+) (?:s|m|cash)\b[^.;]*?\(server\.(CarCall\w+)\)`)
	seen := map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(doc.String(), -1) {
		n, _ := strconv.ParseFloat(m[1], 64)
		w, ok := want[m[2]]
		if !ok {
			t.Errorf("the doc names server.%s, which this test does not know", m[2])
			continue
		}
		seen[m[2]] = true
		if n != w {
			t.Errorf("the doc says %s for server.%s, which is %v", m[1], m[2], w)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("the doc gives no number for server.%s", name)
		}
	}
}
