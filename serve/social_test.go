package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fiveonit/engine/jointoken"
	"github.com/fiveonit/engine/textframe"
	"github.com/fiveonit/engine/transport/websocket"
)

// issue asks the admin listener for a join token.
func issue(t *testing.T, admin, body string) string {
	t.Helper()
	res, err := http.Post("http://"+admin+"/tokens", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var ir jointoken.IssueResponse
	if res.StatusCode != http.StatusOK || json.NewDecoder(res.Body).Decode(&ir) != nil || ir.Token == "" {
		t.Fatalf("POST /tokens %s: %s", body, res.Status)
	}
	return ir.Token
}

// texts reads conn's text frames into a channel until it closes.
func texts(ctx context.Context, conn *websocket.ClientConn) chan map[string]any {
	out := make(chan map[string]any, 256)
	go func() {
		defer close(out)
		for {
			data, text, err := conn.Read(ctx)
			if err != nil {
				return
			}
			var m map[string]any
			if text && json.Unmarshal(data, &m) == nil {
				out <- m
			}
		}
	}()
	return out
}

func await(t *testing.T, in chan map[string]any, typ string) map[string]any {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case m, ok := <-in:
			if !ok {
				t.Fatalf("closed before a %s frame", typ)
			}
			if m["type"] == typ {
				return m
			}
		case <-deadline:
			t.Fatalf("no %s frame within 5 s", typ)
		}
	}
}

// TestTokensDebugAccountsAndWords runs the server with -debug-accounts and
// -chat-words: a platform gets tokens from the admin listener's POST
// /tokens (never the public one's); the debug account's commands are
// honoured, another's are not; the two share the party of their key; the
// word list refuses a message, and a clean one reaches the other player.
func TestTokensDebugAccountsAndWords(t *testing.T) {
	words := filepath.Join(t.TempDir(), "words")
	if err := os.WriteFile(words, []byte("# refused\ndarn\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cfg := testConfig()
	cfg.Level = "main-city" // debug commands are not on for everyone there
	cfg.DebugAccounts, cfg.ChatWords = "ops-1", words
	addr, admin, errc := startRun(t, ctx, cfg)
	defer stopRun(t, cancel, errc, cfg.Drain)

	if res, err := http.Post("http://"+addr+"/tokens", "application/json", strings.NewReader(`{"account":"x"}`)); err != nil || res.StatusCode == http.StatusOK {
		t.Fatalf("the public listener issues tokens: %v %v", res, err)
	} else {
		res.Body.Close()
	}
	join := func(body string) (*websocket.ClientConn, chan map[string]any, textframe.Welcome) {
		conn, err := websocket.Dial(ctx, "ws://"+addr+"/rooms/default?token="+issue(t, admin, body))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		in := texts(ctx, conn)
		var w textframe.Welcome
		b, _ := json.Marshal(await(t, in, "welcome"))
		json.Unmarshal(b, &w)
		return conn, in, w
	}
	ops, opsIn, opsW := join(`{"account":"ops-1","name":"Ops","party":"crew"}`)
	pat, patIn, patW := join(`{"account":"p-2","name":"Pat","party":"crew","ttl":60}`)
	if !opsW.Debug || patW.Debug || opsW.Name != "Ops" || opsW.Party == 0 || opsW.Party != patW.Party {
		t.Fatalf("welcomes: %+v / %+v", opsW, patW)
	}
	send := func(c *websocket.ClientConn, s string) {
		if err := c.Send(ctx, []byte(s), true); err != nil {
			t.Fatal(err)
		}
	}
	send(ops, `{"type":"debug","cmd":"clock","minutes":60}`)
	send(pat, `{"type":"debug","cmd":"clock","minutes":60}`)
	if r := await(t, opsIn, "reply"); r["ok"] != true {
		t.Fatalf("the debug account's command: %v", r)
	}
	if r := await(t, patIn, "reply"); r["ok"] == true {
		t.Fatalf("another account's debug command: %v", r)
	}
	send(ops, `{"type":"chat","text":"oh darn"}`)
	if r := await(t, opsIn, "reply"); r["ok"] == true || !strings.Contains(r["error"].(string), "does not allow") {
		t.Fatalf("a listed word: %v", r)
	}
	send(ops, `{"type":"chat","text":"hello Pat"}`)
	if m := await(t, patIn, "chat"); m["text"] != "hello Pat" || m["name"] != "Ops" {
		t.Fatalf("Pat got %v", m)
	}
}
