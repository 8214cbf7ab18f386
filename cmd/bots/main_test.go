package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fiveonit/engine/bot"
	"github.com/fiveonit/engine/client"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/rooms"
	"github.com/fiveonit/engine/textframe"
)

// TestFlagsAndEnv: each FOI_BOTS_* variable sets its flag's default, a flag
// on the command line wins, and a bad value (from either) is an error
// naming it.
func TestFlagsAndEnv(t *testing.T) {
	def := config{url: "ws://127.0.0.1:8080/rooms/default", n: 16, duration: 30 * time.Second, transport: "ws", seed: 1, reconnect: true}
	cases := []struct {
		name    string
		env     map[string]string
		args    []string
		want    config
		wantErr string // a substring of the error; "" for none
	}{
		{name: "defaults", want: def},
		{
			name: "every variable",
			env: map[string]string{"FOI_BOTS_URL": "ws://h:1/rooms/x", "FOI_BOTS_N": "3", "FOI_BOTS_DURATION": "2s",
				"FOI_BOTS_TRANSPORT": "webrtc", "FOI_BOTS_LOSS": "0.25", "FOI_BOTS_SEED": "9",
				"FOI_BOTS_DELAY": "50ms", "FOI_BOTS_JITTER": "10ms", "FOI_BOTS_STALL": "500ms", "FOI_BOTS_RECONNECT": "true",
				"FOI_BOTS_DROP_EVERY": "1s"},
			want: config{url: "ws://h:1/rooms/x", n: 3, duration: 2 * time.Second, transport: "webrtc", loss: 0.25, seed: 9,
				delay: 50 * time.Millisecond, jitter: 10 * time.Millisecond, stall: 500 * time.Millisecond, reconnect: true, dropEvery: time.Second},
		},
		{
			name: "no reconnection",
			env:  map[string]string{"FOI_BOTS_RECONNECT": "0"},
			want: config{url: def.url, n: 16, duration: def.duration, transport: "ws", seed: 1},
		},
		{
			name: "flags win",
			env:  map[string]string{"FOI_BOTS_N": "3", "FOI_BOTS_LOSS": "0.25"},
			args: []string{"-n", "5", "-loss", "0.5"},
			want: config{url: def.url, n: 5, duration: def.duration, transport: "ws", loss: 0.5, seed: 1, reconnect: true},
		},
		{
			name: "thin",
			env:  map[string]string{"FOI_BOTS_THIN": "1", "FOI_BOTS_N": "256"},
			want: config{url: def.url, n: 256, duration: def.duration, transport: "ws", seed: 1, reconnect: true, thin: true},
		},
		{name: "bad env thin", env: map[string]string{"FOI_BOTS_THIN": "thin"}, wantErr: "FOI_BOTS_THIN"},
		{name: "thin bots do not stall", args: []string{"-thin", "-duration", "10s", "-stall", "1s"}, wantErr: "-stall"},
		{name: "thin bots do not come back", env: map[string]string{"FOI_BOTS_THIN": "true"}, args: []string{"-drop-every", "10s"}, wantErr: "-drop-every"},
		{name: "bad env n", env: map[string]string{"FOI_BOTS_N": "many"}, wantErr: "FOI_BOTS_N"},
		{name: "bad env duration", env: map[string]string{"FOI_BOTS_DURATION": "10"}, wantErr: "FOI_BOTS_DURATION"},
		{name: "env loss out of range", env: map[string]string{"FOI_BOTS_LOSS": "1.5"}, wantErr: "-loss"},
		{name: "loss NaN", args: []string{"-loss", "NaN"}, wantErr: "-loss"},
		{name: "env transport unknown", env: map[string]string{"FOI_BOTS_TRANSPORT": "udp"}, wantErr: "-transport"},
		{name: "no bots", args: []string{"-n", "0"}, wantErr: "-n"},
		{name: "no duration", args: []string{"-duration", "0s"}, wantErr: "-duration"},
		{name: "negative delay", args: []string{"-delay", "-1ms"}, wantErr: "-delay"},
		{name: "negative jitter", env: map[string]string{"FOI_BOTS_JITTER": "-1ms"}, wantErr: "-jitter"},
		{name: "stall too long", args: []string{"-duration", "10s", "-stall", "5s"}, wantErr: "-stall"},
		{name: "bad env stall", env: map[string]string{"FOI_BOTS_STALL": "1"}, wantErr: "FOI_BOTS_STALL"},
		{name: "bad env reconnect", env: map[string]string{"FOI_BOTS_RECONNECT": "maybe"}, wantErr: "FOI_BOTS_RECONNECT"},
		{name: "negative drop-every", args: []string{"-drop-every", "-1s"}, wantErr: "-drop-every"},
		{name: "drops without reconnection", args: []string{"-drop-every", "10s", "-reconnect=false"}, wantErr: "-reconnect"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, f := range envFlags {
				v, ok := c.env[f[1]]
				if !ok {
					t.Setenv(f[1], "") // restores the variable after the test
					os.Unsetenv(f[1])
					continue
				}
				t.Setenv(f[1], v)
			}
			got, err := parseFlags(c.args)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want one naming %s", err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}

func TestAckedURL(t *testing.T) {
	for in, want := range map[string]string{
		"ws://h:1/rooms/default":                "ws://h:1/rooms/default?acked=1",
		"ws://h:1/rooms/r?level=test-flat":      "ws://h:1/rooms/r?acked=1&level=test-flat",
		"ws://h:1/rooms/r?acked=0&traffic=2":    "ws://h:1/rooms/r?acked=1&traffic=2",
		"http://h:1/rooms/r?token=a.b&name=x y": "http://h:1/rooms/r?acked=1&name=x+y&token=a.b",
	} {
		if got, err := ackedURL(in); err != nil || got != want {
			t.Errorf("ackedURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ackedURL("ws://h:1/%zz"); err == nil {
		t.Error("a bad URL: no error")
	}
}

// TestLossOverWebSocket runs 2 bots over a WebSocket losing 20% of the
// binary frames each way: they join with acked=1, so the lost snapshots
// cost nothing but themselves (the ordered ones would be refused, the
// next delta's base missing): no frame refused, no desync, at most 3
// keyframes each (acked frames are keyframes until the first ack is
// back), and most of the snapshots the server sent arrive. The snapshots
// are counted against the server ticks they spanned, not the wall clock:
// on a busy machine a bot may join late or run behind.
func TestLossOverWebSocket(t *testing.T) {
	m, err := rooms.NewManager(rooms.Config{DefaultLevel: "test-flat", Grace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(rooms.HTTPConfig{Secret: []byte("bots-test-secret-0123456789")}))
	defer srv.Close()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m.Shutdown(ctx, "test over")
	}()
	c := config{url: "ws" + strings.TrimPrefix(srv.URL, "http") + "/rooms/default", n: 2, duration: 2 * time.Second,
		transport: "ws", loss: 0.2, seed: 3}
	res, failed := run(context.Background(), c)
	if failed != 0 || len(res) != c.n {
		t.Fatalf("%d failed, %d results", failed, len(res))
	}
	for i, r := range res {
		s := r.Stats
		// A frame every SnapshotEvery ticks; 80 % of them kept, and a
		// margin for the draw of the loss.
		sent := uint64(r.SnapshotTicks/wire.SnapshotEvery + 1)
		want := sent * 8 / 10 * 8 / 10
		if r.Err != nil || r.Desynced || s.Resyncs != 0 || s.Keyframes > 3 || s.Snapshots < want || sent < 10 {
			t.Errorf("bot %d: err %v, desynced %v, %d refused, %d keyframes, %d snapshots of %d sent (want >= %d, 10 sent)",
				i, r.Err, r.Desynced, s.Resyncs, s.Keyframes, s.Snapshots, sent, want)
		}
	}
	t.Logf("snapshots %d and %d; spanned %d and %d ticks", res[0].Stats.Snapshots, res[1].Stats.Snapshots, res[0].SnapshotTicks, res[1].SnapshotTicks)
	if line := summary(res, failed); !strings.Contains(line, "clients=2 failed=0") || !strings.Contains(line, "check-mismatches=0") {
		t.Errorf("summary %q", line)
	}
}

// TestSummaryCounts: the summary adds up the bots' counters.
func TestSummaryCounts(t *testing.T) {
	a := client.Stats{Snapshots: 10, Keyframes: 1, JoinKeyframes: 1, Resyncs: 2, BigCorrections: 3, Reconciles: 100, Skipped: 4}
	for i := 0; i < 100; i++ {
		a.Corr.Add(float32(i) * 0.001) // 0 to 9.9 cm
	}
	b := client.Stats{Snapshots: 20, Keyframes: 2, JoinKeyframes: 2, Reconciles: 200, Skipped: 5}
	b.Corr.Add(0.5)
	b.Jumps.Add(0.03)
	b.Teleports = 1
	a.BytesIn = 300000
	// The bots' whole seconds pooled: 500, then 1,000 to 100,000 by 1,000.
	var perSecond []uint32
	for i := 100; i >= 1; i-- {
		perSecond = append(perSecond, uint32(1000*i))
	}
	res := []bot.Result{
		{Stats: a, Seconds: 10, BytesPerSecond: perSecond, PressesMade: 7, Inputs: textframe.InputsFrame{Presses: 7, Missed: 1}, Stalled: true, StallGuessed: 12, StallGuessedOK: true},
		{Stats: b, Seconds: 20, BytesPerSecond: []uint32{500}, Desynced: true, PressesMade: 3, Inputs: textframe.InputsFrame{Presses: 2}, Stalled: true, StallGuessed: 20, StallGuessedOK: true},
	}
	want := "clients=2 failed=1 snapshots=30 bytes/client/s=10000 bytes/client/s-p50=50000 bytes/client/s-p99=99000 keyframes=3 keyframes/join=1.50 check-mismatches=2 desynced=1 skipped-ticks=9" +
		" reconciles=300 corrections>=1cm=3 (1.00%) correction-p99=10.2cm correction-max=50.0cm drawn-jump-max=3.0cm teleports=1 presses-made=10 presses-run=9 inputs-missed=1" +
		" stall-guessed-mean=16.0 stall-guessed-max=20 rtt-p50=0s rtt-p99=0s"
	if got := summary(res, 1); got != want {
		t.Errorf("summary\n %s\nwant\n %s", got, want)
	}
}

// TestPressesOverWebSocket: through the real client, server and WebSocket,
// behind a simulated link of 30 ms each way with 10 ms of jitter, at 0, 5
// and 20 % loss (the bots join with acked=1), and a second's freeze of
// every bot: every press a bot made is run exactly once by the server,
// trigger taps among them (a press goes in eight frames: losing every copy
// of one is the exception, 1 in 390,000 at 20 % loss).
func TestPressesOverWebSocket(t *testing.T) {
	m, err := rooms.NewManager(rooms.Config{DefaultLevel: "test-flat", Grace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(rooms.HTTPConfig{Secret: []byte("bots-test-secret-0123456789")}))
	t.Cleanup(func() {
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m.Shutdown(ctx, "test over")
	})
	for _, loss := range []float64{0, 0.05, 0.2} {
		t.Run(fmt.Sprintf("loss %.0f%%", 100*loss), func(t *testing.T) {
			t.Parallel()
			c := config{url: "ws" + strings.TrimPrefix(srv.URL, "http") + fmt.Sprintf("/rooms/presses%.0f", 100*loss), n: 3,
				duration: 5 * time.Second, transport: "ws", loss: loss, delay: 30 * time.Millisecond, jitter: 10 * time.Millisecond, seed: 5}
			var wg sync.WaitGroup
			res := make([]bot.Result, c.n)
			for i := range c.n {
				conn, err := dial(context.Background(), c, i)
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				o := bot.Options{Stall: time.Second, StallAt: time.Second + time.Duration(i)*200*time.Millisecond,
					Controls: func(seq uint32) components.Drive {
						var d components.Drive
						if time.Since(start) > 3*time.Second { // quiet: the last presses are run and told
							return d
						}
						if seq%7 == 0 {
							d.Pressed = components.BtnHorn
						}
						if seq%11 == 0 {
							d.Held = components.BtnFire
						}
						return d
					}}
				wg.Add(1)
				go func() {
					defer wg.Done()
					res[i] = bot.RunWith(context.Background(), conn, uint64(i), c.duration, o)
				}()
			}
			wg.Wait()
			for i, r := range res {
				if r.Err != nil {
					t.Fatalf("bot %d: %v", i, r.Err)
				}
				if r.PressesMade < 20 || r.Inputs.Presses != r.PressesMade || !r.Stalled {
					t.Errorf("bot %d: %d presses made, %d run (stalled %v, %d ticks skipped)", i, r.PressesMade, r.Inputs.Presses, r.Stalled, r.Stats.Skipped)
				}
			}
			t.Logf("%d bots: presses made %d, %d, %d; run %d, %d, %d", c.n, res[0].PressesMade, res[1].PressesMade, res[2].PressesMade,
				res[0].Inputs.Presses, res[1].Inputs.Presses, res[2].Inputs.Presses)
		})
	}
}
