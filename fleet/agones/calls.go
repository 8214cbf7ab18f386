package agones

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
)

// Ready tells Agones the game server takes players: its GameServer goes
// Ready, to be allocated (POST /ready). Calling it again once Allocated
// returns the GameServer to the pool.
func (c *Client) Ready(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/ready", empty, nil)
}

// Health tells Agones the game server is healthy (POST /health). Agones
// marks the GameServer Unhealthy once its health check's
// failure_threshold periods go by without one (3 of 5 s by default).
func (c *Client) Health(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/health", empty, nil)
}

// Shutdown tells Agones the game server is done: its GameServer goes
// Shutdown and its pod is deleted (POST /shutdown).
func (c *Client) Shutdown(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/shutdown", empty, nil)
}

// keyValue is the body of the metadata calls (sdkKeyValue).
type keyValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// SetLabel sets the GameServer's label LabelPrefix+key to value (PUT
// /metadata/label). key and value must be what Kubernetes takes (a label
// name once prefixed, a label value): else ErrInvalid, and nothing is
// sent.
func (c *Client) SetLabel(ctx context.Context, key, value string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if err := checkLabelValue(value); err != nil {
		return err
	}
	return c.do(ctx, http.MethodPut, "/metadata/label", keyValue{key, value}, nil)
}

// SetAnnotation sets the GameServer's annotation LabelPrefix+key to value
// (PUT /metadata/annotation). key must be what Kubernetes takes once
// prefixed: else ErrInvalid.
func (c *Client) SetAnnotation(ctx context.Context, key, value string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	return c.do(ctx, http.MethodPut, "/metadata/annotation", keyValue{key, value}, nil)
}

// GameServer returns the GameServer as the SDK server has it (GET
// /gameserver).
func (c *Client) GameServer(ctx context.Context) (*GameServer, error) {
	var gs GameServer
	if err := c.do(ctx, http.MethodGet, "/gameserver", nil, &gs); err != nil {
		return nil, err
	}
	return &gs, nil
}

// Counter returns the GameServer's counter name (GET
// /v1beta1/counters/{name}): ErrNotFound when the fleet declares none or
// CountsAndLists is off.
func (c *Client) Counter(ctx context.Context, name string) (Counter, error) {
	var ct Counter
	err := c.do(ctx, http.MethodGet, "/v1beta1/counters/"+url.PathEscape(name), nil, &ct)
	return ct, err
}

// counterUpdate is the body of PATCH /v1beta1/counters/{name}
// (betaCounterUpdateRequest less its name, which is the path's): a count
// or capacity to set, or a difference to add.
type counterUpdate struct {
	Count     *Int64 `json:"count,omitempty"`
	Capacity  *Int64 `json:"capacity,omitempty"`
	CountDiff Int64  `json:"countDiff,omitempty"`
}

// SetCounter sets counter name's count, and its capacity unless capacity
// is negative (PATCH /v1beta1/counters/{name}). The SDK server refuses a
// count outside [0, capacity].
func (c *Client) SetCounter(ctx context.Context, name string, count, capacity int64) (Counter, error) {
	if count < 0 {
		return Counter{}, fmt.Errorf("%w: counter %s: count %d below 0", ErrInvalid, name, count)
	}
	n := Int64(count)
	u := counterUpdate{Count: &n}
	if capacity >= 0 {
		cp := Int64(capacity)
		u.Capacity = &cp
	}
	var ct Counter
	err := c.do(ctx, http.MethodPatch, "/v1beta1/counters/"+url.PathEscape(name), u, &ct)
	return ct, err
}

// List returns the GameServer's list name (GET /v1beta1/lists/{name}):
// ErrNotFound when the fleet declares none or CountsAndLists is off.
func (c *Client) List(ctx context.Context, name string) (List, error) {
	var l List
	err := c.do(ctx, http.MethodGet, "/v1beta1/lists/"+url.PathEscape(name), nil, &l)
	return l, err
}

// listValue is the body of :addValue and :removeValue
// (SDKAddListValueBody, SDKRemoveListValueBody).
type listValue struct {
	Value string `json:"value"`
}

// AddListValue adds value to list name (POST
// /v1beta1/lists/{name}:addValue): ErrAlreadyExists when it holds it, an
// out-of-range refusal when the list is at its capacity.
func (c *Client) AddListValue(ctx context.Context, name, value string) (List, error) {
	return c.listCall(ctx, name, ":addValue", value)
}

// RemoveListValue removes value from list name (POST
// /v1beta1/lists/{name}:removeValue): ErrNotFound when it does not hold
// it.
func (c *Client) RemoveListValue(ctx context.Context, name, value string) (List, error) {
	return c.listCall(ctx, name, ":removeValue", value)
}

func (c *Client) listCall(ctx context.Context, name, verb, value string) (List, error) {
	if value == "" {
		return List{}, fmt.Errorf("%w: list %s: an empty value", ErrInvalid, name)
	}
	var l List
	err := c.do(ctx, http.MethodPost, "/v1beta1/lists/"+url.PathEscape(name)+verb, listValue{value}, &l)
	return l, err
}

// checkKey refuses a label or annotation key that is not a Kubernetes
// name once prefixed with LabelPrefix: at most 63 bytes in all, of
// letters, digits, '-', '_' and '.', ending with a letter or digit.
func checkKey(key string) error {
	if key == "" || len(key) > 63-len("sdk-") || !labelChars(key) || !alnum(key[len(key)-1]) {
		return fmt.Errorf("%w: key %q: 1 to %d of a-z, A-Z, 0-9, '-', '_', '.', ending with a letter or digit", ErrInvalid, cut(key, 80), 63-len("sdk-"))
	}
	return nil
}

// checkLabelValue refuses a value Kubernetes does not take for a label:
// at most 63 bytes of letters, digits, '-', '_' and '.', starting and
// ending with a letter or digit; empty is one.
func checkLabelValue(v string) error {
	if v == "" {
		return nil
	}
	if len(v) > 63 || !labelChars(v) || !alnum(v[0]) || !alnum(v[len(v)-1]) {
		return fmt.Errorf("%w: label value %q: at most 63 of a-z, A-Z, 0-9, '-', '_', '.', starting and ending with a letter or digit", ErrInvalid, cut(v, 80))
	}
	return nil
}

func labelChars(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; !alnum(b) && b != '-' && b != '_' && b != '.' {
			return false
		}
	}
	return true
}

func alnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}
