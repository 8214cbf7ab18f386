// Package agones is a client of the Agones SDK server over its REST API.
// Agones is the open-source engine that runs dedicated game servers on
// Kubernetes; every GameServer pod runs its SDK server as a sidecar, which
// the game server tells it is Ready, that it is healthy, its labels and its
// counts, and which streams the GameServer's changes (an allocation among
// them) back.
//
// The contract is the one the agones repository documents:
// sdks/swagger/sdk.swagger.json (the stable routes), sdks/swagger/
// beta.swagger.json (Counters and Lists) and the guide
// site/content/en/docs/Guides/Client SDKs/rest.md. In short:
//
//	POST /ready, /health, /shutdown      body {}, answer {}
//	PUT  /metadata/label, /annotation    {"key":"k","value":"v"}; the key gets the prefix agones.dev/sdk-
//	GET  /gameserver                     the GameServer
//	GET  /watch/gameserver               one JSON object per line, {"result":GameServer}, per change
//	GET|PATCH /v1beta1/counters/{name}   {"count":"5","capacity":"11"}
//	POST /v1beta1/lists/{name}:addValue  {"value":"player9"}, and :removeValue
//
// 64-bit integers travel as JSON strings. The sidecar listens on
// localhost at the port in AGONES_SDK_HTTP_PORT (9358 by default) and may
// start after the game server: Retry tries a call again with backoff.
//
// Nothing the sidecar answers is trusted: a body is read up to MaxAnswer
// bytes and a watch line up to MaxLine, each decoded into the fields the
// client knows (others are ignored); a body past its bound or not a JSON
// object of the documented shape is ErrBadAnswer. The client logs that
// the sidecar cannot be reached at most once per Config.LogEvery, and once
// more when it answers again.
package agones

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// PortEnv is the environment variable Agones sets to the SDK server's
// HTTP port in the game server's container.
const PortEnv = "AGONES_SDK_HTTP_PORT"

// DefaultPort is the SDK server's HTTP port when PortEnv is unset.
const DefaultPort = 9358

// LabelPrefix is what the SDK server puts before the key of a label or an
// annotation the game server sets.
const LabelPrefix = "agones.dev/sdk-"

// Bounds on what the client reads from the sidecar. A GameServer is a few
// KB; Kubernetes bounds its annotations to 256 KiB in all.
const (
	MaxAnswer = 1 << 20 // bytes of one answer's body
	MaxLine   = 1 << 20 // bytes of one line of the watch stream
)

// The GameServer states (GameServer.Status.State) the SDK server reports.
const (
	StateScheduled    = "Scheduled"
	StateRequestReady = "RequestReady"
	StateReady        = "Ready"
	StateReserved     = "Reserved"
	StateAllocated    = "Allocated"
	StateShutdown     = "Shutdown"
	StateUnhealthy    = "Unhealthy"
	StateError        = "Error"
)

// Errors of the client's calls, each wrapped with the particulars.
var (
	// ErrUnreachable: the call did not get an answer: the sidecar is not
	// listening (yet), or did not answer within Config.Timeout.
	ErrUnreachable = errors.New("agones: SDK server unreachable")
	// ErrBadAnswer: the sidecar answered with a body past MaxAnswer, a
	// watch line past MaxLine, or not a JSON object of the documented
	// shape.
	ErrBadAnswer = errors.New("agones: bad answer from the SDK server")
	// ErrNotFound: the counter, list or list value does not exist (the
	// fleet declared no such counter or list, or CountsAndLists is off).
	ErrNotFound = errors.New("agones: not found")
	// ErrAlreadyExists: the list holds the value already.
	ErrAlreadyExists = errors.New("agones: already exists")
	// ErrInvalid: an argument the SDK server would refuse, refused
	// before it is sent (a label key or value Kubernetes does not take).
	ErrInvalid = errors.New("agones: invalid argument")
)

// Error is an answer of the SDK server other than 2xx: its HTTP status and
// the gRPC status in its body ({"code":5,"message":"..."}), when it has
// one. Its message is cut to 200 bytes.
type Error struct {
	Method, Path string
	Status       int    // HTTP
	Code         int    // gRPC; 0 when the body had none
	Message      string // from the body
}

func (e *Error) Error() string {
	return fmt.Sprintf("agones: %s %s: %d %s: %q", e.Method, e.Path, e.Status, http.StatusText(e.Status), e.Message)
}

// Is matches ErrNotFound and ErrAlreadyExists. The SDK server's beta calls
// document the gRPC codes NOT_FOUND and ALREADY_EXISTS but return plain
// errors, which its gateway answers as 500 with code 2 (UNKNOWN) and the
// message "counter not found: ..." or "already exists. ..."
// (pkg/sdkserver/sdkserver.go in the agones repository): both forms match.
func (e *Error) Is(target error) bool {
	msg := strings.ToLower(e.Message)
	switch target {
	case ErrNotFound:
		return e.Code == 5 || e.Status == http.StatusNotFound || strings.Contains(msg, "not found")
	case ErrAlreadyExists:
		return e.Code == 6 || e.Status == http.StatusConflict || strings.HasPrefix(msg, "already exists")
	}
	return false
}

// Config sets up a Client.
type Config struct {
	// Addr is the SDK server's host:port. Empty: localhost and the port
	// in PortEnv, DefaultPort when it is unset.
	Addr string
	// Timeout bounds each call but the watch (0: 5 s).
	Timeout time.Duration
	// MinBackoff and MaxBackoff bound Retry's wait between two tries: it
	// starts at MinBackoff and doubles up to MaxBackoff (0: 250 ms and
	// 10 s).
	MinBackoff, MaxBackoff time.Duration
	// LogEvery is the least time between two records of one kind of
	// trouble: the sidecar unreachable, a bad answer (0: one minute).
	LogEvery time.Duration
	// Log is the logger (nil: slog.Default()).
	Log *slog.Logger
	// Transport, if set, makes the HTTP requests (tests).
	Transport http.RoundTripper
}

// Client calls one SDK server. It is safe for concurrent use.
type Client struct {
	cfg   Config
	base  string // http://host:port
	hc    *http.Client
	watch *http.Client // no overall timeout: the stream lasts
	log   *slog.Logger
	lim   limiter

	mu       sync.Mutex
	down     bool          // the last call found the sidecar unreachable
	downAt   time.Time     // the first such call of this spell
	failures int           // calls that found it unreachable in this spell
	told     bool          // this spell was logged
	back     chan struct{} // closed when the spell ends (nil: none)
}

// Addr returns the SDK server's address from the environment:
// localhost and the port in PortEnv, DefaultPort when it is unset. A value
// that is not a port is an error naming the variable.
func Addr() (string, error) {
	v, ok := os.LookupEnv(PortEnv)
	if !ok || v == "" {
		return net.JoinHostPort("localhost", strconv.Itoa(DefaultPort)), nil
	}
	p, err := strconv.ParseUint(v, 10, 16)
	if err != nil || p == 0 {
		return "", fmt.Errorf("%w: %s=%q: want a port, 1 to 65535", ErrInvalid, PortEnv, v)
	}
	return net.JoinHostPort("localhost", v), nil
}

// New returns a client of the SDK server at cfg.Addr (or the environment's,
// Addr). It fails only for an address that is not one.
func New(cfg Config) (*Client, error) {
	if cfg.Addr == "" {
		a, err := Addr()
		if err != nil {
			return nil, err
		}
		cfg.Addr = a
	}
	if _, _, err := net.SplitHostPort(cfg.Addr); err != nil {
		return nil, fmt.Errorf("%w: address %q: %w", ErrInvalid, cfg.Addr, err)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = 250 * time.Millisecond
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = 10 * time.Second
	}
	cfg.MaxBackoff = max(cfg.MaxBackoff, cfg.MinBackoff)
	if cfg.LogEvery <= 0 {
		cfg.LogEvery = time.Minute
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	tr := cfg.Transport
	if tr == nil {
		tr = &http.Transport{
			DialContext:           (&net.Dialer{Timeout: cfg.Timeout}).DialContext,
			ResponseHeaderTimeout: cfg.Timeout,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       time.Minute,
		}
	}
	log := cfg.Log.With("agones", cfg.Addr)
	return &Client{
		cfg:   cfg,
		base:  "http://" + cfg.Addr,
		hc:    &http.Client{Transport: tr, Timeout: cfg.Timeout},
		watch: &http.Client{Transport: tr},
		log:   log,
		lim:   limiter{every: cfg.LogEvery, last: map[string]time.Time{}, held: map[string]int{}},
	}, nil
}

// Address returns the SDK server's host:port.
func (c *Client) Address() string { return c.cfg.Addr }

// CloseIdleConnections closes the connections kept for the next call.
func (c *Client) CloseIdleConnections() { c.hc.CloseIdleConnections() }

// empty is the body {} of the lifecycle calls (sdkEmpty).
var empty = struct{}{}

// do sends method path with in as its JSON body (nil: none) and decodes a
// 2xx answer's body into out (nil: read and dropped). It notes whether the
// sidecar answered (reached).
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("agones: %s %s: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return fmt.Errorf("%w: %s %s: %w", ErrInvalid, method, path, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.hc.Do(req)
	if err != nil {
		err = fmt.Errorf("%w: %s %s: %w", ErrUnreachable, method, path, err)
		c.reached(err)
		return err
	}
	defer res.Body.Close()
	b, rerr := readAll(res.Body, MaxAnswer)
	if rerr != nil && !errors.Is(rerr, ErrBadAnswer) {
		err := fmt.Errorf("%w: %s %s: reading the answer: %w", ErrUnreachable, method, path, rerr)
		c.reached(err)
		return err
	}
	c.reached(nil)
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return answerError(method, path, res.StatusCode, b)
	}
	if rerr != nil {
		return fmt.Errorf("%s %s: %w", method, path, rerr)
	}
	if out == nil {
		out = &struct{}{} // still one JSON object
	}
	if err := decodeObject(b, out); err != nil {
		return fmt.Errorf("%w: %s %s: %w", ErrBadAnswer, method, path, err)
	}
	return nil
}

// readAll reads r up to limit bytes; past it, ErrBadAnswer.
func readAll(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: a body past %d bytes", ErrBadAnswer, limit)
	}
	return b, nil
}

// decodeObject decodes b, which must be one JSON object (an empty body is
// taken for {}, as an empty message may be sent), into out.
func decodeObject(b []byte, out any) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		b = []byte("{}")
	}
	if b[0] != '{' {
		return fmt.Errorf("not a JSON object: %s", quote(b))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(out); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}

// answerError makes the *Error of a non-2xx answer with body b: the gRPC
// status of grpc-gateway's body when it parses, else the start of the
// body as its message.
func answerError(method, path string, status int, b []byte) error {
	e := &Error{Method: method, Path: path, Status: status}
	var st struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(b, &st) == nil {
		e.Code, e.Message = st.Code, st.Message
	} else {
		e.Message = string(b)
	}
	e.Message = cut(e.Message, 200)
	return e
}

// cut returns s cut to at most n bytes, on a rune boundary, valid UTF-8.
func cut(s string, n int) string {
	s = strings.ToValidUTF8(s, "?")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// quote is b's start, quoted, for an error.
func quote(b []byte) string { return strconv.Quote(cut(string(b), 64)) }

// reached notes whether a call reached the sidecar (err nil) or found it
// unreachable. The sidecar unreachable is logged at most once per
// LogEvery, however many spells; the end of a spell that was logged is
// logged too.
func (c *Client) reached(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil {
		if c.down && c.told {
			c.log.Info("agones: SDK server reachable", "down_for", time.Since(c.downAt).Round(time.Millisecond), "failed_calls", c.failures)
		}
		c.down, c.failures, c.told = false, 0, false
		if c.back != nil {
			close(c.back)
			c.back = nil
		}
		return
	}
	if !c.down {
		c.down, c.downAt, c.back = true, time.Now(), make(chan struct{})
	}
	c.failures++
	if held, ok := c.lim.allow("unreachable"); ok {
		c.told = true
		args := []any{"err", err, "failed_calls", c.failures, "down_for", time.Since(c.downAt).Round(time.Millisecond)}
		if held > 0 {
			args = append(args, "held", held)
		}
		c.log.Warn("agones: SDK server unreachable; retrying", args...)
	}
}

// backSignal returns a channel closed once a call reaches the sidecar
// again, nil while it is not known unreachable.
func (c *Client) backSignal() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.back
}

// Reachable reports whether the last call got an answer.
func (c *Client) Reachable() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.down
}

// Warn logs msg at warn level at most once per Config.LogEvery for each
// kind, with the count of the records it held back since the last one
// (held). Callers log the SDK server's refusals through it, so that a
// sidecar that refuses every second fills no disk.
func (c *Client) Warn(kind, msg string, args ...any) {
	held, ok := c.lim.allow(kind)
	if !ok {
		return
	}
	if held > 0 {
		args = append(args, "held", held)
	}
	c.log.Warn(msg, args...)
}

// limiter lets one record per kind through per every.
type limiter struct {
	every time.Duration
	mu    sync.Mutex
	last  map[string]time.Time
	held  map[string]int
}

// allow reports whether a record of kind may go now, and how many were
// held back since the last.
func (l *limiter) allow(kind string) (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if t, ok := l.last[kind]; ok && now.Sub(t) < l.every {
		l.held[kind]++
		return 0, false
	}
	held := l.held[kind]
	l.last[kind], l.held[kind] = now, 0
	return held, true
}
