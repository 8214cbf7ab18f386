package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/fiveonit/engine/components"
)

// TestConstants: every group of Constants names each value once; the kinds
// are every kind but none; the draw list's fields are 0 up to its stride,
// once each; the object goes to JSON as it goes to the page.
func TestConstants(t *testing.T) {
	c := Constants()
	for group, v := range c {
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		seen := map[float64]string{}
		for name, x := range m {
			f, ok := number(x)
			if !ok {
				t.Errorf("%s.%s is %T, not a number", group, name, x)
				continue
			}
			if other, dup := seen[f]; dup && group != "items" && group != "cars" && group != "grenade" {
				t.Errorf("%s.%s and %s.%s are both %v", group, name, group, other, f)
			}
			seen[f] = name
		}
	}
	kinds := c["kind"].(map[string]any)
	if len(kinds) != int(components.KindCount)-1 || kinds["policeCar"] != int(components.KindPoliceCar) || kinds["camera"] != int(components.KindCamera) {
		t.Errorf("kinds %v", kinds)
	}
	draw := c["draw"].(map[string]any)
	var idx []int
	for name, v := range draw {
		if name != "stride" {
			idx = append(idx, v.(int))
		}
	}
	slices.Sort(idx)
	if len(idx) != DrawStride || idx[0] != 0 || idx[len(idx)-1] != DrawStride-1 || draw["stride"] != DrawStride {
		t.Errorf("draw fields %v, stride %v", idx, draw["stride"])
	}
	if vk := fmt.Sprint(c["vehicleKinds"]); vk != fmt.Sprint([]any{int(components.KindCar), int(components.KindTrailer), int(components.KindPoliceCar)}) {
		t.Errorf("vehicle kinds %s", vk)
	}
	if _, err := json.Marshal(c); err != nil {
		t.Error(err)
	}
}

func number(x any) (float64, bool) {
	switch v := x.(type) {
	case int:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}
