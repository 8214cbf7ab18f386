// Package httpmod is a social.Moderator that asks a deployment's own
// moderation service about each chat message, over HTTP.
//
// For each message it POSTs a JSON object to the service's URL:
//
//	{"room": "default", "session": 3, "account": "acc-1", "name": "Ada", "text": "hello"}
//
// account is "" for a player without a join token; text is the message as
// the room would relay it (cleaned: social.Clean). The service answers 200
// with a JSON object:
//
//	{"ok": true}                       relay the message as it is
//	{"ok": true, "text": "h*llo"}      relay this edit instead (bounded like a message)
//	{"ok": false, "reason": "..."}     refuse it; its sender is shown the reason
//
// It fails closed: an answer that does not come within the timeout, a
// status other than 200, a body that is not such an object (or is over
// MaxResponse), or more than MaxInFlight calls at once refuse the message,
// with a reason that says moderation is unavailable. The room never waits
// for the service: each call runs on its own goroutine, and its verdict
// goes back to the room's tick (social.Moderator).
package httpmod

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/fiveonit/engine/social"
)

// DefaultTimeout is how long a call waits for the service's answer unless
// New is told otherwise: a chat message later than that reads as lost.
const DefaultTimeout = 2 * time.Second

// MaxInFlight bounds the calls waiting for the service at once, in all
// the rooms of the process: past it, a message is refused at once rather
// than pile up goroutines behind a service that stalls.
const MaxInFlight = 256

// MaxResponse bounds the service's answer: a verdict is a few hundred
// bytes.
const MaxResponse = 4 << 10

// Moderator calls a moderation service over HTTP. Safe for use by many
// rooms at once.
type Moderator struct {
	url     string
	timeout time.Duration
	client  *http.Client
	log     *slog.Logger
	slots   chan struct{}
}

// Options are a Moderator's settings besides its URL.
type Options struct {
	// Timeout bounds each call (0: DefaultTimeout).
	Timeout time.Duration
	// Client makes the calls (nil: a client of its own).
	Client *http.Client
	// Log is told of each call that failed, and why (nil: slog.Default()).
	Log *slog.Logger
}

// New returns a Moderator calling the service at url.
func New(url string, o Options) *Moderator {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Client == nil {
		o.Client = &http.Client{}
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	return &Moderator{url: url, timeout: o.Timeout, client: o.Client, log: o.Log, slots: make(chan struct{}, MaxInFlight)}
}

// request is the JSON the service is sent.
type request struct {
	Room    string `json:"room"`
	Session uint32 `json:"session"`
	Account string `json:"account"`
	Name    string `json:"name"`
	Text    string `json:"text"`
}

// response is the JSON the service answers.
type response struct {
	OK     *bool  `json:"ok"`
	Text   string `json:"text"`
	Reason string `json:"reason"`
}

// Moderate implements social.Moderator: it returns at once, and done gets
// the verdict from the call's goroutine.
func (m *Moderator) Moderate(msg social.Message, done func(social.Verdict)) {
	select {
	case m.slots <- struct{}{}:
	default:
		done(social.Refuse("moderation unavailable: too many messages waiting for it"))
		return
	}
	go func() {
		defer func() { <-m.slots }()
		v, err := m.call(msg)
		if err != nil {
			m.log.Warn("moderation failed: message refused", "room", msg.Room, "session", msg.Session, "err", err)
			v = social.Refuse("moderation unavailable: message not sent")
		}
		done(v)
	}()
}

// call asks the service about msg.
func (m *Moderator) call(msg social.Message) (social.Verdict, error) {
	body, err := json.Marshal(request{Room: msg.Room, Session: msg.Session, Account: msg.Account, Name: msg.Name, Text: msg.Text})
	if err != nil {
		return social.Verdict{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.url, bytes.NewReader(body))
	if err != nil {
		return social.Verdict{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := m.client.Do(req)
	if err != nil {
		return social.Verdict{}, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return social.Verdict{}, fmt.Errorf("status %s", res.Status)
	}
	raw, err := io.ReadAll(io.LimitReader(res.Body, MaxResponse+1))
	if err != nil {
		return social.Verdict{}, err
	}
	if len(raw) > MaxResponse {
		return social.Verdict{}, fmt.Errorf("answer over %d bytes", MaxResponse)
	}
	var r response
	if err := json.Unmarshal(raw, &r); err != nil {
		return social.Verdict{}, fmt.Errorf("answer: %w", err)
	}
	if r.OK == nil {
		return social.Verdict{}, fmt.Errorf(`answer without "ok"`)
	}
	if !*r.OK {
		return social.Refuse(r.Reason), nil
	}
	return social.Verdict{OK: true, Text: r.Text}, nil
}
