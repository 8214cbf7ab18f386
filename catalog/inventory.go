package catalog

import "github.com/fiveonit/engine/components"

// Fits returns how many of n of id fit in inv: onto its stacks of id
// below the stack limit, then into its empty slots. The last slot is left
// out when keepLast is set (it is the phone's).
func (c *Catalog) Fits(inv *components.Inventory, id components.ItemID, n int, keepLast bool) int {
	if id == 0 || n <= 0 {
		return 0
	}
	limit := int(c.StackOf(id))
	room := 0
	for i, s := range inv.Slots {
		if keepLast && i == len(inv.Slots)-1 {
			break
		}
		switch {
		case s.Item == id:
			room += max(limit-int(s.Count), 0)
		case s.Item == 0:
			room += limit
		}
		if room >= n {
			return n
		}
	}
	return room
}

// Add puts up to n of id into inv (as Fits says) and returns how many it
// put: first onto the stacks of id, then into the first empty slots.
func (c *Catalog) Add(inv *components.Inventory, id components.ItemID, n int, keepLast bool) int {
	n = c.Fits(inv, id, n, keepLast)
	limit := int(c.StackOf(id))
	left := n
	for pass := 0; pass < 2 && left > 0; pass++ {
		for i := range inv.Slots {
			if keepLast && i == len(inv.Slots)-1 {
				break
			}
			s := &inv.Slots[i]
			if pass == 0 && s.Item != id || pass == 1 && s.Item != 0 {
				continue
			}
			k := min(limit-int(s.Count), left)
			if k <= 0 {
				continue
			}
			s.Item = id
			s.Count += uint16(k)
			left -= k
			if left == 0 {
				break
			}
		}
	}
	return n
}
