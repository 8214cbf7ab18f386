package storetest

import (
	"testing"

	"github.com/fiveonit/engine/store"
)

// TestMemory holds the suite's model to the suite.
func TestMemory(t *testing.T) {
	Run(t, func(t *testing.T) store.Store { return NewMemory() })
}
