//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/jointoken"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/textframe"
	"github.com/fiveonit/engine/transport/websocket"
)

const storeSecret = "store-test-secret-0123456789"

// startProcess runs command server on test-flat with its account store in
// data (a directory, or a postgres:// URL), and waits for it to serve.
func startProcess(t *testing.T, data string) *proc {
	t.Helper()
	return startProcessOn(t, data, "test-flat")
}

// startProcessOn is startProcess with the default room on level, and extra
// flags.
func startProcessOn(t *testing.T, data, level string, extra ...string) *proc {
	t.Helper()
	flag := "-data"
	if strings.HasPrefix(data, "postgres://") {
		flag = "-store"
	}
	return startBinary(t, append([]string{"-level", level, "-secret", storeSecret, flag, data}, extra...)...)
}

// player is a client of account in the process's default room.
type player struct {
	t       *testing.T
	ws      *websocket.ClientConn
	cash    int64 // from the newest status frame
	id      uint32
	welcome textframe.Welcome
	garage  *textframe.GarageFrame    // the newest garage frame, nil before one
	inv     *textframe.InventoryFrame // the newest inventory frame, nil before one
}

// joinAs joins account to the process's default room, trying again while
// it is refused (its lease not yet released) for up to 10 s.
func joinAs(t *testing.T, p *proc, account string) *player {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		pl, reason := tryJoin(t, p, account)
		if reason == "" {
			return pl
		}
		if time.Now().After(deadline) {
			t.Fatalf("join as %s refused: %s", account, reason)
		}
	}
}

// tryJoin joins account to the process's default room once: the player,
// or the reason it was refused.
func tryJoin(t *testing.T, p *proc, account string) (*player, string) {
	t.Helper()
	tok, err := jointoken.Sign([]byte(storeSecret), jointoken.Claims{Account: account, Name: account, Expires: time.Now().Add(time.Hour).Unix()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, err := websocket.Dial(ctx, "ws://"+p.addr+"/rooms/default?token="+tok)
	if err != nil {
		t.Fatal(err)
	}
	pl := &player{t: t, ws: ws, cash: -1}
	if reason := pl.until(func(typ string) bool { return typ == "status" }); reason != "" {
		ws.Close()
		return nil, reason
	}
	t.Cleanup(func() { ws.Close() })
	return pl, ""
}

// until reads text frames until done says so of one's type, and returns
// "", or the close reason.
func (pl *player) until(done func(typ string) bool) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		f, text, err := pl.ws.Read(ctx)
		if err != nil {
			return err.Error()
		}
		if !text {
			continue
		}
		typ := textframe.Type(f)
		if typ == "status" {
			var st textframe.StatusFrame
			json.Unmarshal(f, &st)
			pl.cash = st.Cash
		}
		switch typ {
		case "welcome":
			json.Unmarshal(f, &pl.welcome)
		case "garage":
			pl.garage = &textframe.GarageFrame{}
			json.Unmarshal(f, pl.garage)
		case "inventory":
			pl.inv = &textframe.InventoryFrame{}
			json.Unmarshal(f, pl.inv)
		}
		if typ == "reply" {
			var r textframe.ReplyFrame
			json.Unmarshal(f, &r)
			if !r.OK {
				pl.t.Fatalf("reply %+v", r)
			}
		}
		if done(typ) {
			return ""
		}
	}
}

// setCash sets the player's Cash with the debug command (test-flat honours
// it) and waits for its reply: the room has applied it.
func (pl *player) setCash(n int64) {
	pl.t.Helper()
	pl.id++
	cmd := fmt.Sprintf(`{"type":"debug","cmd":"cash","value":"%d","id":%d}`, n, pl.id)
	if err := pl.ws.Send(context.Background(), []byte(cmd), true); err != nil {
		pl.t.Fatal(err)
	}
	if reason := pl.until(func(typ string) bool { return typ == "reply" }); reason != "" {
		pl.t.Fatalf("closed: %s", reason)
	}
}

// do sends cmd, a JSON command object without an id, with the next id,
// and waits for its reply (until fails the test on a refusal).
func (pl *player) do(cmd string) {
	pl.t.Helper()
	pl.id++
	cmd = fmt.Sprintf(`%s,"id":%d}`, strings.TrimSuffix(cmd, "}"), pl.id)
	if err := pl.ws.Send(context.Background(), []byte(cmd), true); err != nil {
		pl.t.Fatal(err)
	}
	if reason := pl.until(func(typ string) bool { return typ == "reply" }); reason != "" {
		pl.t.Fatalf("%s: closed: %s", cmd, reason)
	}
}

// waitFor reads frames until ok holds, for up to 5 s.
func (pl *player) waitFor(what string, ok func() bool) {
	pl.t.Helper()
	if ok() {
		return
	}
	if reason := pl.until(func(string) bool { return ok() }); reason != "" {
		pl.t.Fatalf("%s: not so (%s); garage frame %+v, inventory %+v", what, reason, pl.garage, pl.inv)
	}
}

// itemID returns the welcome's id of the item named name, 0 for none.
func (pl *player) itemID(name string) components.ItemID {
	for _, it := range pl.welcome.Items {
		if it.Name == name {
			return it.ID
		}
	}
	return 0
}

// TestStoreRestartKeeps runs the server as a process on main-city, as
// issue 26 asks: a player keeps their car in the garage (paying its price)
// and carries two medkits (an item that persists); SIGTERM; a new process
// on the same directory has the car in the garage, the medkits in their
// slot and the Cash as the keep left it; the car comes out again.
func TestStoreRestartKeeps(t *testing.T) {
	data := t.TempDir()
	// Debug commands for carol alone: the cash to pay, the teleport into
	// the bay, the medkits.
	p := startProcessOn(t, data, "main-city", "-debug-accounts", "carol")
	pl := joinAs(t, p, "carol")
	if len(pl.welcome.Garages) == 0 || len(pl.welcome.Garages[0].Bays) < 2 {
		t.Fatalf("main-city's welcome garages %+v, want one with bays", pl.welcome.Garages)
	}
	gar := pl.welcome.Garages[0]
	bay := gar.Bays[1]
	medkit := pl.itemID("medkit")
	if medkit == 0 {
		t.Fatal("no medkit in the catalog")
	}
	pl.do(`{"type":"debug","cmd":"cash","value":"2000"}`)
	pl.do(fmt.Sprintf(`{"type":"debug","cmd":"teleport","x":%g,"y":%g,"yaw":%g}`, bay.Pos[0], bay.Pos[1], bay.Yaw))
	pl.do(`{"type":"keep"}`)
	pl.do(`{"type":"debug","cmd":"give-item","item":"medkit","count":2}`)
	cash := 2000 - gar.Price
	slot := -1
	kept := func() bool {
		if pl.garage == nil || len(pl.garage.Cars) != 1 || pl.inv == nil || pl.inv.Cash != cash {
			return false
		}
		if c := pl.garage.Cars[0]; c.Garage != gar.ID || c.Bay != 1 {
			return false
		}
		for i, st := range pl.inv.Slots {
			if st.Item == medkit && st.Count == 2 && (slot < 0 || i == slot) {
				slot = i
				return true
			}
		}
		return false
	}
	pl.waitFor("the car kept and two medkits carried", kept)
	p.stop(syscall.SIGTERM)
	if strings.Contains(p.logs.String(), `"level":"ERROR"`) {
		t.Errorf("errors logged:\n%s", p.logs.String())
	}

	p = startProcessOn(t, data, "main-city", "-debug-accounts", "carol")
	pl = joinAs(t, p, "carol")
	pl.waitFor(fmt.Sprintf("after SIGTERM and a restart, the car in bay 1 of %s, two medkits in slot %d and cash %d", gar.ID, slot, cash), kept)
	if pl.cash != cash {
		t.Fatalf("after SIGTERM and a restart: status cash %d, want %d", pl.cash, cash)
	}
	// The car kept comes out again, off its bay.
	pl.do(fmt.Sprintf(`{"type":"debug","cmd":"teleport","x":%g,"y":%g}`, bay.Pos[0], bay.Pos[1]-10))
	pl.do(fmt.Sprintf(`{"type":"takeout","place":%q,"slot":1}`, gar.ID))
	pl.waitFor("the car taken out", func() bool { return pl.garage != nil && len(pl.garage.Cars) == 0 })
	p.stop(syscall.SIGTERM)
}

// TestStoreRestart runs the server as a process with its account store in
// a directory: a player's Cash changed, SIGTERM, a new process on the same
// directory, the Cash is the same. Then the same with kill -9 while the
// Cash changes every 50 ms: the new process has the Cash of a change at
// most PersistEvery (1 s) and the writer's period before the kill; the
// test logs how much was lost.
func TestStoreRestart(t *testing.T) {
	data := t.TempDir()
	p := startProcess(t, data)
	pl := joinAs(t, p, "alice")
	if pl.cash != 500 {
		t.Fatalf("a new account's cash %d, want 500", pl.cash)
	}
	pl.setCash(777)
	p.stop(syscall.SIGTERM)
	if strings.Contains(p.logs.String(), `"level":"ERROR"`) {
		t.Errorf("errors logged:\n%s", p.logs.String())
	}

	p = startProcess(t, data)
	pl = joinAs(t, p, "alice")
	if pl.cash != 777 {
		t.Fatalf("after SIGTERM and a restart: cash %d, want 777", pl.cash)
	}

	kills := 3
	if testing.Short() {
		kills = 1
	}
	var worst time.Duration
	for k := range kills {
		set := map[int64]time.Time{}
		value := int64(1000 * (k + 1))
		start := time.Now()
		// Each kill at another phase of the session's persist ticks.
		play := 2*time.Second + time.Duration(k)*370*time.Millisecond
		for time.Since(start) < play {
			value++
			pl.setCash(value)
			set[value] = time.Now()
			time.Sleep(50 * time.Millisecond)
		}
		killed := time.Now()
		p.stop(syscall.SIGKILL)
		p = startProcess(t, data)
		pl = joinAs(t, p, "alice")
		at, ok := set[pl.cash]
		if !ok {
			t.Fatalf("kill %d: cash %d after the restart, not one of the values set", k, pl.cash)
		}
		lost := killed.Sub(at)
		worst = max(worst, lost)
		t.Logf("kill -9 %d: kept the cash set %s before the kill (%d of %d changes lost)", k, lost.Round(time.Millisecond), value-pl.cash, len(set))
		// The design loses at most a second (server.PersistEvery) and the
		// writer's period (100 ms). The bound is 1.5 s, looser than that:
		// the process and the test share a loaded machine, and a stall of
		// either (a few hundred ms seen under load) moves the kill against
		// the last write. Measured (bench/RESULTS.md, docs/operations.md): 450 to
		// 850 ms lost in one run of 3 kills, 117 to 918 ms in another.
		if lost > time.Duration(server.PersistEvery)*time.Second/ecs.TickRate+500*time.Millisecond {
			t.Errorf("kill %d: lost the last %s of changes, want at most a second and the writer's period", k, lost)
		}
	}
	t.Logf("kill -9: at most the last %s of changes lost in %d kills", worst.Round(time.Millisecond), kills)
	p.stop(syscall.SIGTERM)
}

// TestStoreFleet runs two server processes on one PostgreSQL database, as a
// fleet: an account playing on one is refused on the other with the
// reason; once it left the first, it joins the second with the Cash it
// had; after SIGTERM and a restart of both, the Cash is still there.
func TestStoreFleet(t *testing.T) {
	url := pgDatabase(t)
	a, b := startProcess(t, url), startProcess(t, url)
	pl := joinAs(t, a, "bob")
	if pl.cash != 500 {
		t.Fatalf("a new account's cash %d, want 500", pl.cash)
	}
	pl.setCash(321)
	if _, reason := tryJoin(t, b, "bob"); !strings.Contains(reason, "playing on another server") {
		t.Fatalf("a join on the other server while it plays: %q, want refused with the reason", reason)
	}
	pl.ws.Close()
	pl = joinAs(t, b, "bob") // once the first server has written and released it
	if pl.cash != 321 {
		t.Fatalf("on the other server: cash %d, want 321", pl.cash)
	}
	pl.setCash(654)
	a.stop(syscall.SIGTERM)
	b.stop(syscall.SIGTERM)
	a = startProcess(t, url)
	if pl = joinAs(t, a, "bob"); pl.cash != 654 {
		t.Errorf("after SIGTERM and a restart: cash %d, want 654", pl.cash)
	}
	a.stop(syscall.SIGTERM)
}
