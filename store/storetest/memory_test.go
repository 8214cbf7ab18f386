package storetest

import (
	"testing"
	"time"

	"github.com/fiveonit/engine/clock/clocktest"
	"github.com/fiveonit/engine/store"
)

// TestMemory holds the suite's model to the suite.
func TestMemory(t *testing.T) {
	Run(t, func(t *testing.T) (store.Store, func(time.Duration)) {
		t.Helper()
		clk := clocktest.New()
		return NewMemoryClock(clk), clk.Advance
	})
}
