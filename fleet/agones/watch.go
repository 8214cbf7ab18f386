package agones

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"time"
)

// streamMessage is one line of the watch stream: grpc-gateway's
// {"result": ...} per message, or {"error": ...} as the stream fails
// (x-stream-definitions in the older sdk.swagger.json; the newer has the
// result alone).
type streamMessage struct {
	Result *GameServer   `json:"result"`
	Error  *streamStatus `json:"error"`
}

// streamStatus is a stream's error: grpc-gateway v1 wrote grpc_code and
// http_code, v2 writes code.
type streamStatus struct {
	Code     int    `json:"code"`
	GRPCCode int    `json:"grpc_code"`
	HTTPCode int    `json:"http_code"`
	Message  string `json:"message"`
}

// ErrStreamEnded is Watch's error when the SDK server ended the stream.
var ErrStreamEnded = errors.New("agones: the watch stream ended")

// DecodeWatchLine decodes one line of the watch stream: the GameServer of
// a {"result":...} line; the stream's *Error for an {"error":...} line; an
// error wrapping ErrBadAnswer for anything else (a line past MaxLine,
// not one JSON object, neither result nor error, a field of the wrong
// type).
func DecodeWatchLine(line []byte) (*GameServer, error) {
	if len(line) > MaxLine {
		return nil, fmt.Errorf("%w: a watch line of %d bytes, past %d", ErrBadAnswer, len(line), MaxLine)
	}
	var m streamMessage
	if err := decodeObject(line, &m); err != nil {
		return nil, fmt.Errorf("%w: watch line %s: %w", ErrBadAnswer, quote(line), err)
	}
	switch {
	case m.Error != nil:
		code := m.Error.Code
		if code == 0 {
			code = m.Error.GRPCCode
		}
		return nil, &Error{Method: http.MethodGet, Path: "/watch/gameserver", Status: m.Error.HTTPCode, Code: code, Message: cut(m.Error.Message, 200)}
	case m.Result == nil:
		return nil, fmt.Errorf("%w: watch line %s: neither a result nor an error", ErrBadAnswer, quote(line))
	}
	return m.Result, nil
}

// Watch streams the GameServer (GET /watch/gameserver): fn gets it as the
// stream starts (the SDK server sends it first) and after each change, on
// Watch's goroutine, until ctx ends (nil) or the stream does (its error:
// ErrStreamEnded, the stream's *Error, a line past MaxLine, ErrUnreachable).
// A line that does not decode is logged (Warn) and skipped.
func (c *Client) Watch(ctx context.Context, fn func(*GameServer)) error {
	_, err := c.watchOnce(ctx, fn)
	return err
}

// watchOnce is Watch, also saying how many GameServers fn got.
func (c *Client) watchOnce(ctx context.Context, fn func(*GameServer)) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/watch/gameserver", nil)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	res, err := c.watch.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil
		}
		err = fmt.Errorf("%w: GET /watch/gameserver: %w", ErrUnreachable, err)
		c.reached(err)
		return 0, err
	}
	defer res.Body.Close()
	c.reached(nil)
	if res.StatusCode < 200 || res.StatusCode > 299 {
		b, _ := readAll(res.Body, 4<<10)
		return 0, answerError(http.MethodGet, "/watch/gameserver", res.StatusCode, b)
	}
	n := 0
	err = readLines(res.Body, func(line []byte) error {
		if len(bytes.TrimSpace(line)) == 0 {
			return nil
		}
		gs, err := DecodeWatchLine(line)
		var e *Error
		switch {
		case errors.As(err, &e):
			return e
		case err != nil:
			c.Warn("watch-line", "agones: a watch line that does not decode; skipped", "err", err)
			return nil
		}
		n++
		fn(gs)
		return nil
	})
	if ctx.Err() != nil {
		return n, nil
	}
	if errors.Is(err, io.EOF) {
		err = ErrStreamEnded
	}
	return n, err
}

// readLines calls fn with each line of r (its '\n' dropped), each at most
// MaxLine bytes, until r ends (io.EOF) or fn fails.
func readLines(r io.Reader, fn func([]byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > MaxLine+1 {
			return fmt.Errorf("%w: a watch line past %d bytes", ErrBadAnswer, MaxLine)
		}
		line = append(line, frag...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if len(bytes.TrimSpace(line)) > 0 {
				if ferr := fn(line); ferr != nil {
					return ferr
				}
			}
			return err
		}
		if ferr := fn(bytes.TrimSuffix(line, []byte("\n"))); ferr != nil {
			return ferr
		}
		line = line[:0]
	}
}

// Follow watches the GameServer until ctx ends, as Watch, starting a new
// stream after each one ends, with backoff (Config.MinBackoff doubling to
// MaxBackoff, back to MinBackoff after a stream that delivered), and at
// once when another call finds the sidecar back. A stream that fails
// other than by the sidecar being unreachable (which the client logs
// itself) is logged at most once per Config.LogEvery.
func (c *Client) Follow(ctx context.Context, fn func(*GameServer)) {
	wait := c.cfg.MinBackoff
	for ctx.Err() == nil {
		n, err := c.watchOnce(ctx, fn)
		if ctx.Err() != nil {
			return
		}
		if n > 0 {
			wait = c.cfg.MinBackoff
		}
		if err != nil && !errors.Is(err, ErrUnreachable) {
			c.Warn("watch", "agones: the GameServer watch ended; watching again", "err", err, "retry_in", wait)
		}
		if !sleepUntilBack(ctx, jitter(wait), c.backSignal()) {
			return
		}
		wait = min(wait*2, c.cfg.MaxBackoff)
	}
}

// sleepUntilBack waits d, or until back is closed; false if ctx ends
// first.
func sleepUntilBack(ctx context.Context, d time.Duration, back <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	case <-back:
	}
	return true
}

// Retry calls f until it returns nil or ctx ends, waiting between two
// tries from Config.MinBackoff doubling to MaxBackoff, each wait varied by
// a fifth either way so that many servers do not call in step, and cut
// short when another call finds the sidecar back. It returns nil, or
// ctx's error with f's last.
func (c *Client) Retry(ctx context.Context, f func(context.Context) error) error {
	wait := c.cfg.MinBackoff
	for {
		err := f(ctx)
		if err == nil {
			return nil
		}
		if !sleepUntilBack(ctx, jitter(wait), c.backSignal()) {
			return fmt.Errorf("%w (last: %w)", ctx.Err(), err)
		}
		wait = min(wait*2, c.cfg.MaxBackoff)
	}
}

// jitter returns d varied by up to a fifth either way.
func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return d
	}
	return d - d/5 + rand.N(2*d/5+1)
}

// sleep waits d, or until ctx ends: false then.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
