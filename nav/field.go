package nav

import "math"

// Unreachable is a Field's distance from a node that has no way to the
// target.
const Unreachable = float32(math.MaxFloat32)

// Field is the driving distance from every road node to one target point
// along the lanes (a reverse Dijkstra from the target): a car at a node
// takes the lane whose Cost is least. Keep one Field per target and Solve
// it again as the target moves; it allocates nothing once it has grown to
// the level's size.
type Field struct {
	// Dist is the distance from each node to the target, Unreachable
	// when there is no way.
	Dist []float32
	// Lane is the lane the target is nearest to (-1: none within reach,
	// every node Unreachable), Twin the lane the other way between the same
	// nodes (-1 none); AlongLane and AlongTwin are where the target lies
	// along each.
	Lane, Twin           int32
	AlongLane, AlongTwin float32
	// Target is the point the field leads to.
	Target Vec

	heap []heapItem
}

type heapItem struct {
	d    float32
	node int32
}

// Solve fills f with the driving distances to target, reached from the
// lane nearest to it within snap metres (any lane: a chase may take a
// driveway).
func (m *Map) Solve(f *Field, target Vec, snap float32) {
	if cap(f.Dist) < len(m.Nodes) {
		f.Dist = make([]float32, len(m.Nodes))
		f.heap = make([]heapItem, 0, len(m.Lanes)+len(m.Nodes)+2)
	}
	f.Dist = f.Dist[:len(m.Nodes)]
	for i := range f.Dist {
		f.Dist[i] = Unreachable
	}
	f.heap = f.heap[:0]
	f.Target = target
	f.Lane, f.Twin = -1, -1
	lane, _ := m.NearestLane(target, Vec{}, snap, 0, false)
	if lane < 0 {
		return
	}
	f.Lane = lane
	f.AlongLane = m.along(lane, target)
	f.seed(m.Lanes[lane].From, f.AlongLane)
	l := &m.Lanes[lane]
	for _, o := range m.Level.LanesOut(int(l.To)) {
		if m.Lanes[o].To == l.From {
			f.Twin = o
			f.AlongTwin = m.along(o, target)
			f.seed(l.To, f.AlongTwin)
			break
		}
	}
	for len(f.heap) > 0 {
		it := f.pop()
		if it.d > f.Dist[it.node] {
			continue // a stale entry
		}
		for _, in := range m.Level.LanesIn(int(it.node)) {
			ln := &m.Lanes[in]
			if d := it.d + ln.Len; d < f.Dist[ln.From] {
				f.Dist[ln.From] = d
				f.push(heapItem{d, ln.From})
			}
		}
	}
}

// along returns where target lies along lane, clamped to the lane.
func (m *Map) along(lane int32, target Vec) float32 {
	a, _ := m.Project(lane, target)
	return min(max(a, 0), m.Lanes[lane].Len)
}

func (f *Field) seed(node int32, d float32) {
	if d < f.Dist[node] {
		f.Dist[node] = d
		f.push(heapItem{d, node})
	}
}

// Cost returns the driving distance to the target for a car entering lane
// at its start: along it to the target when it is the target's lane (or
// its twin), else along it and on from its end.
func (f *Field) Cost(m *Map, lane int32) float32 {
	switch lane {
	case f.Lane:
		return f.AlongLane
	case f.Twin:
		return f.AlongTwin
	}
	if f.Lane < 0 {
		return Unreachable
	}
	d := f.Dist[m.Lanes[lane].To]
	if d == Unreachable {
		return Unreachable
	}
	return m.Lanes[lane].Len + d
}

// push and pop keep f.heap a binary min-heap on d, ties by node, so the
// order of the search is the same everywhere.
func (f *Field) push(it heapItem) {
	f.heap = append(f.heap, it)
	i := len(f.heap) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !less(f.heap[i], f.heap[p]) {
			break
		}
		f.heap[i], f.heap[p] = f.heap[p], f.heap[i]
		i = p
	}
}

func (f *Field) pop() heapItem {
	h := f.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && less(h[l], h[m]) {
			m = l
		}
		if r < len(h) && less(h[r], h[m]) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	f.heap = h
	return top
}

func less(a, b heapItem) bool { return a.d < b.d || a.d == b.d && a.node < b.node }
