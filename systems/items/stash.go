package items

import (
	"fmt"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
)

// Stash puts n of item into the level's container named id, onto a stack
// of the same item or into its first empty slot, and locks it when lock
// is set: the container's own lock, which opens as Open says (a key with
// its tag, a crowbar for a crate). It is how a mission hides its loot
// (the MissionHost's hook); it fails, changing nothing, when the
// container is unknown, not made yet or full.
func (s *System) Stash(w *ecs.World, id string, item components.ItemID, n int, lock bool) error {
	i, err := s.find(id)
	if err != nil {
		return err
	}
	if n <= 0 || n > MaxCount || w.Items.Get(item) == nil {
		return fmt.Errorf("cannot stash %d of item %d", n, item)
	}
	box := s.boxes.Get(s.containers[i])
	to := -1
	for k := range box.Slots {
		b := &box.Slots[k]
		if b.Item == item && int(b.Count)+n <= MaxCount {
			to = k
			break
		}
		if b.Item == 0 && to < 0 {
			to = k
		}
	}
	if to < 0 {
		return fmt.Errorf("no room in the %s %q", s.level.Containers[i].Kind, id)
	}
	box.Slots[to].Item = item
	box.Slots[to].Count += uint16(n)
	box.Locked = box.Locked || lock
	return nil
}

// Unstash takes up to n of item out of the level's container named id (a
// mission's own, once the mission ended) and returns how many it took.
func (s *System) Unstash(w *ecs.World, id string, item components.ItemID, n int) int {
	i, err := s.find(id)
	if err != nil {
		return 0
	}
	box := s.boxes.Get(s.containers[i])
	took := 0
	for k := range box.Slots {
		b := &box.Slots[k]
		if b.Item != item || took == n {
			continue
		}
		m := min(int(b.Count), n-took)
		took += m
		if b.Count -= uint16(m); b.Count == 0 {
			*b = components.Stack{}
		}
	}
	return took
}
