package items

import (
	"fmt"
	"slices"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/catalog"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
)

// Buy buys n (0: one) of the item named item at the level's shop named
// shop for e: the shop's counter within Reach, the item on the shop's list
// and priced by the game, room for all n in e's inventory, and the cash
// for all n. A refusal changes nothing.
func (s *System) Buy(w *ecs.World, e ecs.Entity, shop, item string, n int) error {
	inv, err := s.onFoot(w, e)
	if err != nil {
		return err
	}
	if s.level == nil {
		return fmt.Errorf("%w: no shop %q here", ErrNotThere, shop)
	}
	i := slices.IndexFunc(s.level.Shops, func(sh levels.Shop) bool { return sh.ID == shop })
	if i < 0 {
		return fmt.Errorf("%w: no shop %q here", ErrNotThere, shop)
	}
	sh := &s.level.Shops[i]
	p := s.poses.Get(e).Pos
	dx, dy := p.X-sh.Pos.X, p.Y-sh.Pos.Y
	if d2 := dx*dx + dy*dy; d2 > Reach*Reach {
		return fmt.Errorf("%w: the %s counter is %.1f m away, reach is %g m", ErrTooFar, shop, math32.Sqrt(d2), float32(Reach))
	}
	id, ok := w.Items.ByName(item)
	if !ok || !slices.Contains(sh.Items, item) {
		return fmt.Errorf("%w: %s sells %v", ErrNotSold, shop, sh.Items)
	}
	var price int64
	if s.price != nil {
		price, ok = s.price(id)
	}
	if !ok {
		return fmt.Errorf("%w: %s has no price in this game", ErrNotSold, label(w, id))
	}
	if n == 0 {
		n = 1
	}
	it := w.Items.Get(id)
	if n < 0 || n > int(it.Stack) {
		return fmt.Errorf("%w %d: 1 to %d at a time", ErrCount, n, it.Stack)
	}
	cost := price * int64(n)
	cash := s.cash.Get(e)
	if cash.Amount < cost {
		return fmt.Errorf("%w: %d %s cost $%d, you have $%d", ErrNoCash, n, it.Label, cost, cash.Amount)
	}
	if it.Kind == catalog.KindCash {
		return fmt.Errorf("%w: cash is not for sale", ErrNotSold)
	}
	if w.Items.Fits(inv, id, n, w.Rules.Phone) < n {
		return fmt.Errorf("%w for %d %s", ErrFull, n, it.Label)
	}
	w.Items.Add(inv, id, n, w.Rules.Phone)
	cash.Amount -= cost
	return nil
}
