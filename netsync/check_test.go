package netsync

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/fiveonit/engine/netsync/wire"
)

// TestCheckIsTheStores: the server's check of what a client holds is the
// very value the client computes (wire.Store.Check), for stores of every
// size, with free slots among the held ones, records of every byte, of
// every kind, and records with runs of zeros of every length at every
// place (the server's hashes a zero word at once).
func TestCheckIsTheStores(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 3, 7, 114, 500, 3000} {
		s := checkState()
		for i := 0; i < n; i++ {
			eid := uint16(1 + rng.IntN(4000))
			if s.store.Get(eid) != nil {
				continue
			}
			var rec wire.Record
			for j := range rec {
				rec[j] = byte(rng.Uint32())
			}
			if rng.IntN(2) == 0 { // a run of zeros
				at := rng.IntN(wire.RecordBytes)
				clear(rec[at : at+rng.IntN(wire.RecordBytes-at+1)])
			}
			if rng.IntN(4) == 0 { // mostly zeros
				for j := range rec {
					if rng.IntN(8) != 0 {
						rec[j] = 0
					}
				}
			}
			if rng.IntN(2) == 0 { // held quantized: the full pose zeros
				clear(rec.Group(wire.GroupFullPose))
			}
			rec[wire.KindAt] = byte(rng.IntN(12))
			holdForCheck(s, eid, &rec)
			if rng.IntN(5) == 0 {
				s.store.Remove(eid) // a free slot
				s.has[eid>>6] &^= 1 << (eid & 63)
			}
		}
		if got, want := s.check(), s.store.Check(); got != want {
			t.Fatalf("%d entities: check %#x, the store's %#x", s.store.Len(), got, want)
		}
	}
}

// TestCheckAllocatesNothing: the check's canonical order lives in a list
// reserve sizes with the others, so a client that holds more entities than
// ever before at a check allocates nothing (the peer trace's replay found
// 0.1 allocations per tick when it grew on its own).
func TestCheckAllocatesNothing(t *testing.T) {
	// One processor, as testing.AllocsPerRun: no other goroutine of the
	// test allocates while this one runs. The count is the process's, so
	// a runtime goroutine may still add one now and then: the run is
	// tried three times, and an allocation of the check's own comes in
	// every try.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var counts []uint64
	for range 3 {
		s := checkState()
		s.reserve(4096, 600)
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		var rec wire.Record
		for eid := uint16(1); eid <= 1000; eid++ { // a new high at every check
			rec[wire.KindAt] = byte(eid % 5)
			holdForCheck(s, eid, &rec)
			if eid%20 == 0 {
				s.check()
			}
		}
		runtime.ReadMemStats(&m1)
		if n := m1.Mallocs - m0.Mallocs; n == 0 {
			return
		} else {
			counts = append(counts, n)
		}
	}
	t.Fatalf("checks allocated %v times in three tries while the client came to hold 1000 entities", counts)
}

// BenchmarkCheck: the check of a client holding 114 cars of the peer
// trace's kind (identity, health, flags, a moving quantized pose; the full
// pose, the person's action and the spin zeros).
func BenchmarkCheck(b *testing.B) {
	s := checkState()
	s.reserve(4096, 600)
	fillCheckBench(s)
	b.ReportAllocs()
	var sink uint32
	for b.Loop() {
		sink += s.check()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/114, "ns/entity")
	_ = sink
}

// TestByteMask: a bit for each byte not zero, whatever its bits (the high
// bit alone, the low alone, all), and none for the zeros around it.
func TestByteMask(t *testing.T) {
	for j := 0; j < 8; j++ {
		for _, b := range []uint64{0x01, 0x7f, 0x80, 0xff} {
			w := b << (8 * j)
			if got := byteMask(w); got != 1<<j {
				t.Fatalf("byte %d = %#x: mask %#b, want %#b", j, b, got, 1<<j)
			}
			if got := byteMask(^w | 0x0101010101010101); got != 0xff {
				t.Fatalf("all bytes set around %d = %#x: mask %#b", j, b, got)
			}
		}
	}
	if byteMask(0) != 0 {
		t.Fatal("zero word: bits set")
	}
}

// fillCheckBench gives s the 114 cars of BenchmarkCheck.
func fillCheckBench(s *clientState) {
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 114 {
		eid := uint16(1 + i*17)
		var e wire.Entity
		e.Kind, e.Gen, e.HP, e.MaxHP, e.Flags = wire.KindCar, 1, 100, 100, uint16(rng.IntN(4))
		e.Pos = wire.Vec3{X: rng.Float32() * 1000, Y: rng.Float32() * 1000}
		e.Rot = wire.Quat{Z: 0.6, W: 0.8}
		e.Lin = wire.Vec3{X: rng.Float32() * 20, Y: rng.Float32() * 20}
		var rec wire.Record
		rec.Quantize(&e)
		clear(rec.Group(wire.GroupFullPose)) // held quantized
		holdForCheck(s, eid, &rec)
	}
}

// checkState returns a client state for the check's tests, with room for
// the wire ids below 4096, its entities added by holdForCheck.
func checkState() *clientState {
	s := new(clientState)
	s.has, s.kinds = make([]uint64, 4096/64), make([]uint8, 4096)
	return s
}

// holdForCheck makes s hold eid with the record rec, as whole does for
// what the check reads: the record, the held bit and the kind by id.
func holdForCheck(s *clientState, eid uint16, rec *wire.Record) {
	s.store.At(s.store.Add(eid)).Rec = *rec
	s.has[eid>>6] |= 1 << (eid & 63)
	s.kinds[eid] = rec[wire.KindAt]
}

// TestCheckAfterKindChange: an entity whose kind changes while the client
// holds it (its identity group, in its life) moves in the check's
// canonical order, as the client's own check moves it: every check of the
// frames after passes.
func TestCheckAfterKindChange(t *testing.T) {
	w := newSimWorld(23, 200, 400)
	w.fixed = true
	for range 40 {
		w.spawn()
	}
	a := NewArena()
	enc, dec := NewEncoder(a), wire.NewDecoder()
	view := View{Center: wire.Vec3{X: 100, Y: 100}}
	checks := 0
	for i := range 3 * wire.CheckEvery {
		if i%7 == 3 {
			e := &w.ents[w.alive[i%len(w.alive)]].e
			e.Kind = 1 + (e.Kind+3)%10
		}
		w.step()
		w.fill(a)
		fr, err := dec.Apply(enc.Encode(&view))
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if fr.Checked {
			checks++
		}
	}
	if checks < 3 || enc.Held() < 20 {
		t.Fatalf("%d checks of %d entities held: the test checks too little", checks, enc.Held())
	}
}
