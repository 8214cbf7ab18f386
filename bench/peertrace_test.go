package bench

// The reader of the peer benchmark's trace: a copy of its tracegen's
// readtrace.go, as the peer benchmark's README intends, so that our encoder
// replays the exact workload the Node peers replay. Only the package, the
// names (prefixed trace*) and a guard against a short file changed. The peer
// benchmark's directory is not part of this repository: bench/peer/run.sh
// takes it as PEERBENCH.

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
)

type traceAdded struct {
	ID            uint32
	F             [10]float32
	Health, Flags uint8
}

type traceUpdate struct {
	ID   uint32
	Mask uint16
	Vals []float32 // float fields in bit order, then health/flags as float32 if present
}

type traceTick struct {
	Removed []uint32
	Added   []traceAdded
	Updates []traceUpdate
	CX, CY  []float32
}

type trace struct {
	Ticks, Clients, Rate uint32
	World, Radius        float32
	T                    []traceTick
}

func readTrace(path string) (tr *trace, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < 4 || string(b[:4]) != "SNTR" {
		return nil, fmt.Errorf("%s: bad magic", path)
	}
	defer func() {
		if recover() != nil { // a slice out of range: the file is cut short
			tr, err = nil, fmt.Errorf("%s: trace cut short", path)
		}
	}()
	o := 4
	u32 := func() uint32 { v := binary.LittleEndian.Uint32(b[o:]); o += 4; return v }
	u16 := func() uint16 { v := binary.LittleEndian.Uint16(b[o:]); o += 2; return v }
	u8 := func() uint8 { v := b[o]; o++; return v }
	f32 := func() float32 { return math.Float32frombits(u32()) }
	_ = u32() // version
	tr = &trace{Ticks: u32(), Clients: u32(), Rate: u32(), World: f32(), Radius: f32()}
	for t := uint32(0); t < tr.Ticks; t++ {
		var tk traceTick
		for n, i := u32(), uint32(0); i < n; i++ {
			tk.Removed = append(tk.Removed, u32())
		}
		for n, i := u32(), uint32(0); i < n; i++ {
			a := traceAdded{ID: u32()}
			for k := range a.F {
				a.F[k] = f32()
			}
			a.Health, a.Flags = u8(), u8()
			tk.Added = append(tk.Added, a)
		}
		for n, i := u32(), uint32(0); i < n; i++ {
			u := traceUpdate{ID: u32(), Mask: u16()}
			for k := 0; k < 10; k++ {
				if u.Mask&(1<<k) != 0 {
					u.Vals = append(u.Vals, f32())
				}
			}
			for k := 10; k < 12; k++ {
				if u.Mask&(1<<k) != 0 {
					u.Vals = append(u.Vals, float32(u8()))
				}
			}
			tk.Updates = append(tk.Updates, u)
		}
		tk.CX, tk.CY = make([]float32, tr.Clients), make([]float32, tr.Clients)
		for c := range tk.CX {
			tk.CX[c], tk.CY[c] = f32(), f32()
		}
		tr.T = append(tr.T, tk)
	}
	if o != len(b) {
		return nil, fmt.Errorf("%s: %d trailing bytes", path, len(b)-o)
	}
	return tr, nil
}
