package server

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/control"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/server/servertest"
	"github.com/fiveonit/engine/systems/lagcomp"
)

// FuzzClientFrames hands a session whatever frames the fuzzer makes (the
// input is cut into frames: a length byte, a text/binary byte, the bytes)
// and ticks the room: nothing a client sends may panic the server, and the
// room goes on for a well-behaved client beside it.
func FuzzClientFrames(f *testing.F) {
	in := wire.InputFrame{FirstSeq: 1, Count: 1}
	d := components.Drive{Throttle: 1, Pressed: components.BtnUse}
	in.Inputs[0] = control.Quantize(&d)
	good := wire.AppendInputFrame(nil, &in)
	seed := func(frames ...[]byte) []byte {
		var b []byte
		for i, fr := range frames {
			b = append(b, byte(len(fr)), byte(i%2))
			b = append(b, fr...)
		}
		return b
	}
	f.Add(seed(good, []byte(`{"type":"debug","cmd":"teleport","x":5,"y":5}`)))
	f.Add(seed(good, []byte(`{"type":"debug","cmd":"spawn-car","model":1}`)))
	f.Add(seed(good, []byte(`{"type":"debug","cmd":"clock","minutes":100,"pace":3}`)))
	f.Add(seed(good, []byte(`{"type":"phone","cmd":"call"}`)))
	f.Add(seed(good, []byte(`{"type":"debug","cmd":"teleport","x":300,"y":300}`), []byte(`{"type":"callcar","id":1}`), good,
		[]byte(`{"type":"callcar","cmd":"now","target":9}`), []byte(`{"type":"debug","cmd":"kill"}`), []byte(`{"type":"callcar"}`)))
	f.Add(seed([]byte(`{"type":"debug","cmd":"give-item","item":"grenade","count":3}`), good, []byte(`{"type":"use","slot":0}`),
		[]byte(`{"type":"move","slot":0,"to":5,"count":2}`), []byte(`{"type":"drop","slot":5}`), []byte(`{"type":"pickup","target":3}`)))
	f.Add(seed([]byte(`{"type":"drop","slot":-3,"count":-1}`), []byte(`{"type":"buy","place":"x","item":"water","count":99999}`),
		[]byte(`{"type":"open","place":"a"}`), []byte(`{"type":"take","slot":70}`), []byte(`{"type":"close"}`)))
	f.Add(seed([]byte{7, 0, 0, 0, 0, 1, 255, 255, 255, 255, 1}))
	// Input frames with views: sane, absurd against the round trip, from
	// before the first tick, in the future.
	views := func(ack uint32, back ...uint8) []byte {
		v := wire.InputFrame{Ack: ack, Flags: wire.InputView, FirstSeq: 2, Count: len(back)}
		fire := components.Drive{Held: components.BtnFire, Pressed: components.BtnWeapon}
		for i, b := range back {
			v.Inputs[i] = control.Quantize(&fire)
			v.Inputs[i].View = b
		}
		return wire.AppendInputFrame(nil, &v)
	}
	f.Add(seed(views(1, 0), views(3, 2, 1), views(6, 255, 0, 7)))
	f.Add(seed(views(1<<31, 0), views(0, 255), views(4, 4, 5, 6, 200)))
	// The social commands (a vote can never pass: two players are too few).
	f.Add(seed(good, []byte(`{"type":"chat","text":"hi <b>\u202e"}`), good, []byte(`{"type":"quickchat","line":2}`)))
	f.Add(seed(good, []byte(`{"type":"emote","emote":1}`), good, []byte(`{"type":"vote","cmd":"kick","session":1}`)))
	f.Add(seed(good, []byte(`{"type":"party","cmd":"invite","session":1}`), good, []byte(`{"type":"party","cmd":"accept","session":1}`)))
	l, _ := levels.Load("test-flat")
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := New(Config{Room: "fuzz", Level: l, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		bystander := servertest.NewMemConn(false, 0)
		bs, _ := g.Join(bystander, Who{})
		victim, _ := g.Join(servertest.NewMemConn(false, 0), Who{Debug: true})
		g.Tick()
		for len(data) >= 2 {
			n, text := int(data[0]), data[1]&1 == 1
			data = data[2:]
			n = min(n, len(data))
			victim.Receive(data[:n], text)
			data = data[n:]
			bs.Receive(good, false)
			now := g.w.Tick()
			g.Tick()
			// Whatever view a frame claimed, the tick run rewinds its
			// shots to the present or at most lagcomp.MaxRewind back.
			if d, ok := g.Drive(victim); ok && d.View != 0 && (d.View >= now || now-d.View > lagcomp.MaxRewind) {
				t.Fatalf("tick %d ran with view %d", now, d.View)
			}
		}
		for i := 0; i < 3; i++ {
			g.Tick()
		}
		if closed, reason := bystander.Closed(); closed {
			t.Fatalf("the bystander was closed: %s", reason)
		}
	})
}
