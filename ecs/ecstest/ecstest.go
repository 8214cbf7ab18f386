// Package ecstest holds what the tests of the simulation share, as
// net/http/httptest does for servers: a world made or the test failed, and
// a component read without a mapper of the test's own.
//
// It is for tests only: Get builds a mapper per call, which a system's tick
// must never do.
package ecstest

import (
	"testing"

	"github.com/fiveonit/engine/ecs"
	"github.com/mlange-42/arche/generic"
)

// New returns a world of cfg; it fails t if ecs.New fails.
func New(t testing.TB, cfg ecs.Config) *ecs.World {
	t.Helper()
	w, err := ecs.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// Get returns e's component T, or nil when e has none. The pointer is
// stale after the next structural change of w (see package ecs).
func Get[T any](w *ecs.World, e ecs.Entity) *T {
	m := generic.NewMap1[T](w.Arche)
	return m.Get(e)
}
