package jointoken

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
	"unicode/utf8"
)

// Bounds of Handler's requests.
const (
	// MaxIssueBody bounds a request's body.
	MaxIssueBody = 4 << 10
	// MaxNameLen bounds a name, in bytes (the rooms show at most 32
	// characters of it).
	MaxNameLen = 128
	// DefaultTTL is a token's life when a request names none;
	// MaxTTL the longest it may ask for.
	DefaultTTL = time.Hour
	MaxTTL     = 24 * time.Hour
)

// IssueRequest is the JSON body of a request to Handler.
type IssueRequest struct {
	Account string `json:"account"`         // required, 1 to MaxAccountLen bytes
	Name    string `json:"name,omitempty"`  // at most MaxNameLen bytes; "" lets the room say "player N"
	Party   string `json:"party,omitempty"` // a party key, at most MaxPartyLen bytes
	Debug   bool   `json:"debug,omitempty"` // the holder's debug commands are honoured
	// TTL is the token's life in seconds, 1 to MaxTTL (0: DefaultTTL).
	TTL int64 `json:"ttl,omitempty"`
}

// IssueResponse is Handler's answer.
type IssueResponse struct {
	Token   string `json:"token"`
	Expires int64  `json:"expires"` // Unix seconds
}

// Handler issues join tokens, HS256 JWTs signed with secret: a POST of an IssueRequest
// answered 200 with an IssueResponse, or 400 with the reason as text (a
// body that is not one IssueRequest, unknown fields, a bound passed). It
// trusts its caller: serve it only where a platform reaches it, never
// where players do (the server puts it on its admin listener). now is the
// clock (nil: time.Now).
func Handler(secret []byte, now func() time.Time) http.Handler {
	if now == nil {
		now = time.Now
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "POST a JSON object: account, name, party, debug, ttl", http.StatusMethodNotAllowed)
			return
		}
		req, err := readIssue(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ir, err := issue(secret, req, now())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(ir)
	})
}

// issue signs the token req asks for at now. It fails for a token over
// MaxLen, which Verify would refuse (names and keys that JSON must escape
// grow six times).
func issue(secret []byte, req IssueRequest, now time.Time) (IssueResponse, error) {
	ttl := DefaultTTL
	if req.TTL != 0 {
		ttl = time.Duration(req.TTL) * time.Second
	}
	c := Claims{Account: req.Account, Name: req.Name, Party: req.Party, Debug: req.Debug, Expires: now.Add(ttl).Unix()}
	tok, err := Sign(secret, c)
	if err != nil {
		return IssueResponse{}, err
	}
	if len(tok) > MaxLen {
		return IssueResponse{}, fmt.Errorf("the token would be %d bytes, over %d: shorten the name or the keys", len(tok), MaxLen)
	}
	return IssueResponse{Token: tok, Expires: c.Expires}, nil
}

// readIssue decodes and checks a request's body.
func readIssue(body io.Reader) (IssueRequest, error) {
	var req IssueRequest
	raw, err := io.ReadAll(io.LimitReader(body, MaxIssueBody+1))
	if err != nil {
		return req, err
	}
	if len(raw) > MaxIssueBody {
		return req, fmt.Errorf("body over %d bytes", MaxIssueBody)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, fmt.Errorf("body: %w", err)
	}
	if dec.More() {
		return req, errors.New("body: more than one JSON value")
	}
	switch {
	case req.Account == "" || len(req.Account) > MaxAccountLen:
		return req, fmt.Errorf("account is required, 1 to %d bytes", MaxAccountLen)
	case len(req.Name) > MaxNameLen || !utf8.ValidString(req.Name):
		return req, fmt.Errorf("name: at most %d bytes of UTF-8", MaxNameLen)
	case len(req.Party) > MaxPartyLen:
		return req, fmt.Errorf("party: at most %d bytes", MaxPartyLen)
	case req.TTL < 0 || time.Duration(req.TTL) > MaxTTL/time.Second:
		return req, fmt.Errorf("ttl: 1 to %d seconds (0: %d)", int64(MaxTTL/time.Second), int64(DefaultTTL/time.Second))
	}
	return req, nil
}
