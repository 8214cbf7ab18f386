// Package agonestest is a fake Agones SDK server for tests: an HTTP
// server on loopback that answers the REST routes of the agones
// repository's sdks/swagger/sdk.swagger.json and beta.swagger.json as the
// real SDK server does (pkg/sdkserver there: the lifecycle calls move the
// GameServer's state, the metadata calls set its labels and annotations
// with the prefix agones.dev/sdk-, the beta calls keep its counters and
// lists and refuse as it does, the watch streams one JSON object per line,
// the current GameServer first). It records every call, and a test can
// allocate the GameServer, make a route fail, answer garbage or stall,
// write raw lines into the watch streams, and take the server down and up
// again on the same port.
//
// It keeps its own JSON shapes, written from the swagger files, rather
// than package agones' types, so that the client is not tested against
// itself.
package agonestest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LastAllocated is the annotation Agones' allocator sets to the time of
// an allocation (RFC 3339): pkg/gameserverallocations/allocator.go.
const LastAllocated = "agones.dev/last-allocated"

// Call is one request the server got.
type Call struct {
	Method, Path string
	Body         string
	At           time.Time
}

// Route is "METHOD /path" of a call, as Fail, Garbage and Stall name it.
func (c Call) Route() string { return c.Method + " " + c.Path }

// Options set up a Server.
type Options struct {
	// Name is the GameServer's name ("": "gs-test").
	Name string
	// Counters and Lists are the ones its fleet declares (none: the beta
	// calls answer as for a fleet without them).
	Counters map[string]Counter
	Lists    map[string]List
	// Health is the GameServer's health check, as its spec shows it
	// (zero: Agones' defaults, 5 s, 3 failures, 5 s initial delay).
	Health Health
}

// Counter is a counter of the GameServer (StatusCounterStatus).
type Counter struct{ Count, Capacity int64 }

// List is a list of the GameServer (StatusListStatus).
type List struct {
	Capacity int64
	Values   []string
}

// Health is the GameServer's health check (GameServerSpecHealth).
type Health struct {
	Disabled                                          bool
	PeriodSeconds, FailureThreshold, InitialDelaySecs int32
}

// Server is the fake SDK server.
type Server struct {
	mu       sync.Mutex
	addr     string
	ln       net.Listener
	srv      *http.Server
	state    string
	name     string
	labels   map[string]string
	annots   map[string]string
	counters map[string]*Counter
	lists    map[string]*List
	health   Health
	calls    []Call
	watchers map[chan string]struct{}
	faults   map[string]fault
	unstall  chan struct{} // closed to let the stalled calls go
	gen      int64
}

// fault is how a route misbehaves: a status to answer, a body to answer
// with 200, or a stall.
type fault struct {
	status int
	body   string
	stall  bool
}

// New starts a fake SDK server on a free loopback port.
func New(o Options) (*Server, error) { return NewAt("127.0.0.1:0", o) }

// NewAt starts a fake SDK server listening on addr: a test that starts
// the game server first gives it the port the sidecar will have.
func NewAt(addr string, o Options) (*Server, error) {
	s := &Server{
		state: "Scheduled", name: o.Name, labels: map[string]string{}, annots: map[string]string{},
		counters: map[string]*Counter{}, lists: map[string]*List{}, health: o.Health,
		watchers: map[chan string]struct{}{}, faults: map[string]fault{}, unstall: make(chan struct{}),
	}
	if s.name == "" {
		s.name = "gs-test"
	}
	if s.health == (Health{}) {
		s.health = Health{PeriodSeconds: 5, FailureThreshold: 3, InitialDelaySecs: 5}
	}
	for k, c := range o.Counters {
		c := c
		s.counters[k] = &c
	}
	for k, l := range o.Lists {
		l := List{Capacity: l.Capacity, Values: slices.Clone(l.Values)}
		s.lists[k] = &l
	}
	if err := s.listen(addr); err != nil {
		return nil, err
	}
	return s, nil
}

// listen serves on addr.
func (s *Server) listen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 5 * time.Second}
	s.mu.Lock()
	s.ln, s.srv, s.addr = ln, srv, ln.Addr().String()
	s.mu.Unlock()
	go srv.Serve(ln)
	return nil
}

// Addr returns the server's host:port.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// Port returns the server's port, as AGONES_SDK_HTTP_PORT gives it.
func (s *Server) Port() string {
	_, p, _ := net.SplitHostPort(s.Addr())
	return p
}

// Down stops serving: calls find nothing listening, and the watch streams
// end. Up serves again on the same address.
func (s *Server) Down() {
	s.mu.Lock()
	srv := s.srv
	s.srv = nil
	for ch := range s.watchers {
		close(ch)
		delete(s.watchers, ch)
	}
	s.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

// Up serves again on the address it had.
func (s *Server) Up() error {
	s.mu.Lock()
	up := s.srv != nil
	s.mu.Unlock()
	if up {
		return nil
	}
	return s.listen(s.Addr())
}

// Close stops the server for good, letting stalled calls go.
func (s *Server) Close() {
	s.Unstall()
	s.Down()
}

// Calls returns the calls of route ("POST /ready"; "" for every one), in
// the order they came.
func (s *Server) Calls(route string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if route == "" || c.Route() == route {
			out = append(out, c)
		}
	}
	return out
}

// Count returns how many calls of route came.
func (s *Server) Count(route string) int { return len(s.Calls(route)) }

// State returns the GameServer's state.
func (s *Server) State() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// Label returns the GameServer's label key (its full key, with the
// agones.dev/sdk- prefix for those the game server set).
func (s *Server) Label(key string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.labels[key]
	return v, ok
}

// Annotation returns the GameServer's annotation key (its full key).
func (s *Server) Annotation(key string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.annots[key]
	return v, ok
}

// Counter returns the counter name, false when the fleet declares none.
func (s *Server) Counter(name string) (Counter, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.counters[name]
	if !ok {
		return Counter{}, false
	}
	return *c, true
}

// List returns the list name, false when the fleet declares none.
func (s *Server) List(name string) (List, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.lists[name]
	if !ok {
		return List{}, false
	}
	return List{Capacity: l.Capacity, Values: slices.Clone(l.Values)}, true
}

// Allocate allocates the GameServer as Agones' allocator does: its state
// goes Allocated, annotations are added to its metadata with
// LastAllocated, and the watch streams get it.
func (s *Server) Allocate(annotations map[string]string) {
	s.Update(func() {
		s.state = "Allocated"
		for k, v := range annotations {
			s.annots[k] = v
		}
		s.annots[LastAllocated] = time.Now().UTC().Format(time.RFC3339Nano)
	})
}

// SetState sets the GameServer's state, as the controller would, and
// streams it.
func (s *Server) SetState(state string) { s.Update(func() { s.state = state }) }

// Update runs f under the server's lock (f may set the fields through
// the methods' effects: use Allocate or SetState) and streams the
// GameServer.
func (s *Server) Update(f func()) {
	s.mu.Lock()
	f()
	s.gen++
	line := s.lineLocked()
	s.mu.Unlock()
	s.send(line)
}

// Fail makes route ("POST /health"; "*" for every route) answer status
// with a grpc-gateway error body; status 0 clears the route's fault.
func (s *Server) Fail(route string, status int) {
	s.setFault(route, fault{status: status})
}

// Garbage makes route answer 200 with body, whatever it is.
func (s *Server) Garbage(route, body string) { s.setFault(route, fault{status: 200, body: body}) }

// Stall makes route hold its calls without an answer until Unstall (or
// the caller gives up).
func (s *Server) Stall(route string) { s.setFault(route, fault{stall: true}) }

// Unstall lets every stalled call go, and clears the stalls.
func (s *Server) Unstall() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for r, f := range s.faults {
		if f.stall {
			delete(s.faults, r)
		}
	}
	close(s.unstall)
	s.unstall = make(chan struct{})
}

// Heal clears every fault.
func (s *Server) Heal() {
	s.Unstall()
	s.mu.Lock()
	clear(s.faults)
	s.mu.Unlock()
}

func (s *Server) setFault(route string, f fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f == (fault{}) {
		delete(s.faults, route)
		return
	}
	s.faults[route] = f
}

// SendRaw writes line, as it is, into every watch stream (a hostile
// sidecar's line); a newline follows it.
func (s *Server) SendRaw(line string) { s.send(line) }

func (s *Server) send(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.watchers {
		select {
		case ch <- line:
		default: // a watcher that does not read loses lines, as over a slow network
		}
	}
}

// Watchers returns how many watch streams are open.
func (s *Server) Watchers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.watchers)
}

// The routes, from the swagger files: operationId, method and path.
var (
	counterPath = regexp.MustCompile(`^/v1beta1/counters/([^/:]+)$`)
	listPath    = regexp.MustCompile(`^/v1beta1/lists/([^/:]+)(:addValue|:removeValue)?$`)
)

// serve answers one call.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	call := Call{Method: r.Method, Path: r.URL.Path, Body: body, At: time.Now()}
	s.mu.Lock()
	s.calls = append(s.calls, call)
	f, ok := s.faults[call.Route()]
	if !ok {
		f, ok = s.faults["*"]
	}
	unstall := s.unstall
	s.mu.Unlock()
	switch {
	case ok && f.stall:
		select {
		case <-unstall: // then answered as usual
		case <-r.Context().Done():
			return
		}
	case ok && f.status == http.StatusOK:
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(f.body))
		return
	case ok:
		writeError(w, f.status, 14, "fault injected by the test")
		return
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, 3, err.Error())
		return
	}
	switch p := r.URL.Path; {
	case r.Method == http.MethodPost && p == "/ready":
		s.lifecycle(w, body, func() { s.state = "Ready" })
	case r.Method == http.MethodPost && p == "/health":
		s.lifecycle(w, body, nil)
	case r.Method == http.MethodPost && p == "/allocate":
		s.lifecycle(w, body, func() { s.state = "Allocated" })
	case r.Method == http.MethodPost && p == "/shutdown":
		s.lifecycle(w, body, func() { s.state = "Shutdown" })
	case r.Method == http.MethodPost && p == "/reserve":
		s.lifecycle(w, body, func() { s.state = "Reserved" })
	case r.Method == http.MethodPut && (p == "/metadata/label" || p == "/metadata/annotation"):
		s.metadata(w, body, p == "/metadata/label")
	case r.Method == http.MethodGet && p == "/gameserver":
		s.mu.Lock()
		gs := s.gameServerLocked()
		s.mu.Unlock()
		writeJSON(w, gs)
	case r.Method == http.MethodGet && p == "/watch/gameserver":
		s.watch(w, r)
	case counterPath.MatchString(p) && (r.Method == http.MethodGet || r.Method == http.MethodPatch):
		s.counter(w, r.Method, counterPath.FindStringSubmatch(p)[1], body)
	case listPath.MatchString(p):
		m := listPath.FindStringSubmatch(p)
		s.list(w, r.Method, m[1], m[2], body)
	default:
		writeError(w, http.StatusNotFound, 5, "Not Found")
	}
}

// readBody reads a request's body, at most 1 MiB.
func readBody(r *http.Request) (string, error) {
	b, err := readAllLimited(r, 1<<20)
	return string(b), err
}

func readAllLimited(r *http.Request, n int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r.Body, n+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > n {
		return nil, errors.New("body too large")
	}
	return b, nil
}

// lifecycle answers a call whose body is sdkEmpty (or sdkDuration), after
// f changes the state; the GameServer is streamed when it changed.
func (s *Server) lifecycle(w http.ResponseWriter, body string, f func()) {
	if err := object(body, nil); err != nil {
		writeError(w, http.StatusBadRequest, 3, err.Error())
		return
	}
	if f != nil {
		s.Update(f)
	}
	writeJSON(w, struct{}{})
}

// labelName and labelValue are Kubernetes' rules (the SDK server checks
// the key is a qualified name and the value a label value).
var (
	labelName  = regexp.MustCompile(`^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$`)
	labelValue = labelName
)

// metadata answers PUT /metadata/label and /metadata/annotation
// (sdkKeyValue).
func (s *Server) metadata(w http.ResponseWriter, body string, label bool) {
	var kv struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}
	if err := object(body, &kv); err != nil {
		writeError(w, http.StatusBadRequest, 3, err.Error())
		return
	}
	key := "agones.dev/sdk-" + kv.Key
	name := strings.TrimPrefix(key, "agones.dev/")
	if kv.Key == "" || len(name) > 63 || !labelName.MatchString(name) {
		writeError(w, http.StatusBadRequest, 3, fmt.Sprintf("invalid label key %q", kv.Key))
		return
	}
	if label && (len(kv.Value) > 63 || !labelValue.MatchString(kv.Value)) {
		writeError(w, http.StatusBadRequest, 3, fmt.Sprintf("invalid label value %q for key %q", kv.Value, kv.Key))
		return
	}
	s.Update(func() {
		if label {
			s.labels[key] = kv.Value
		} else {
			s.annots[key] = kv.Value
		}
	})
	writeJSON(w, struct{}{})
}

// counter answers GET and PATCH /v1beta1/counters/{name}
// (betaCounterUpdateRequest in, betaCounter out), refusing as the SDK
// server does: a plain error, which its gateway answers 500 with code 2.
func (s *Server) counter(w http.ResponseWriter, method, name, body string) {
	var u struct {
		Count     *num `json:"count"`
		Capacity  *num `json:"capacity"`
		CountDiff num  `json:"countDiff"`
	}
	if method == http.MethodPatch {
		if err := object(body, &u); err != nil {
			writeError(w, http.StatusBadRequest, 3, err.Error())
			return
		}
	}
	s.mu.Lock()
	c, ok := s.counters[name]
	if !ok {
		s.mu.Unlock()
		writeError(w, http.StatusInternalServerError, 2, "counter not found: "+name)
		return
	}
	if method == http.MethodPatch {
		if u.Count == nil && u.Capacity == nil && u.CountDiff == 0 {
			s.mu.Unlock()
			writeError(w, http.StatusInternalServerError, 2, "invalid argument. Malformed CounterUpdateRequest")
			return
		}
		next := *c
		if u.Capacity != nil {
			next.Capacity = int64(*u.Capacity)
		}
		if u.Count != nil {
			next.Count = int64(*u.Count)
		}
		next.Count += int64(u.CountDiff)
		if next.Capacity < 0 || next.Count < 0 || next.Count > next.Capacity {
			s.mu.Unlock()
			writeError(w, http.StatusInternalServerError, 2, fmt.Sprintf("out of range. Count must be within range [0,Capacity]. Found Count: %d, Capacity: %d", next.Count, next.Capacity))
			return
		}
		*c = next
	}
	out := counterJSON{Name: name, Count: c.Count, Capacity: c.Capacity}
	s.gen++
	line := s.lineLocked()
	s.mu.Unlock()
	if method == http.MethodPatch {
		s.send(line)
	}
	writeJSON(w, out)
}

// list answers the list routes: GET and PATCH /v1beta1/lists/{name} and
// POST :addValue and :removeValue (betaList out).
func (s *Server) list(w http.ResponseWriter, method, name, verb, body string) {
	switch {
	case verb == "" && (method == http.MethodGet || method == http.MethodPatch):
	case verb != "" && method == http.MethodPost:
	default:
		writeError(w, http.StatusNotFound, 5, "Not Found")
		return
	}
	var in struct {
		Value    string   `json:"value"`
		Capacity *num     `json:"capacity"`
		Values   []string `json:"values"`
	}
	if method != http.MethodGet {
		if err := object(body, &in); err != nil {
			writeError(w, http.StatusBadRequest, 3, err.Error())
			return
		}
	}
	s.mu.Lock()
	l, ok := s.lists[name]
	if !ok {
		s.mu.Unlock()
		writeError(w, http.StatusInternalServerError, 2, "list not found: "+name)
		return
	}
	switch verb {
	case ":addValue":
		switch {
		case int64(len(l.Values)) >= l.Capacity:
			s.mu.Unlock()
			writeError(w, http.StatusInternalServerError, 2, fmt.Sprintf("out of range. No available capacity. Current Capacity: %d, List Size: %d", l.Capacity, len(l.Values)))
			return
		case slices.Contains(l.Values, in.Value):
			s.mu.Unlock()
			writeError(w, http.StatusInternalServerError, 2, fmt.Sprintf("already exists. Value: %s already in List: %s", in.Value, name))
			return
		}
		l.Values = append(l.Values, in.Value)
	case ":removeValue":
		i := slices.Index(l.Values, in.Value)
		if i < 0 {
			s.mu.Unlock()
			writeError(w, http.StatusInternalServerError, 2, fmt.Sprintf("not found. Value: %s not found in List: %s", in.Value, name))
			return
		}
		l.Values = slices.Delete(l.Values, i, i+1)
	default:
		if method == http.MethodPatch {
			if in.Capacity != nil {
				l.Capacity = int64(*in.Capacity)
			}
			if in.Values != nil {
				l.Values = slices.Clone(in.Values)
			}
		}
	}
	out := listJSON{Name: name, Capacity: l.Capacity, Values: append([]string{}, l.Values...)}
	s.gen++
	line := s.lineLocked()
	s.mu.Unlock()
	if method != http.MethodGet {
		s.send(line)
	}
	writeJSON(w, out)
}

// watch streams the GameServer, one JSON object per line: the current one
// first, then one per change, until the caller goes or Down.
func (s *Server) watch(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, 13, "no streaming")
		return
	}
	ch := make(chan string, 64)
	s.mu.Lock()
	first := s.lineLocked()
	s.watchers[ch] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if _, ok := s.watchers[ch]; ok {
			delete(s.watchers, ch)
		}
		s.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprintf(w, "%s\n", first); err != nil {
		return
	}
	fl.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case line, ok := <-ch:
			if !ok {
				return
			}
			if _, err := fmt.Fprintf(w, "%s\n", line); err != nil {
				return
			}
			fl.Flush()
		}
	}
}

// The JSON the server writes, field names from the swagger files; every
// field is written, as the SDK server's gateway emits unpopulated ones,
// and 64-bit integers are strings.
type (
	gameServerJSON struct {
		ObjectMeta objectMetaJSON `json:"object_meta"`
		Spec       specJSON       `json:"spec"`
		Status     statusJSON     `json:"status"`
	}
	objectMetaJSON struct {
		Name              string            `json:"name"`
		Namespace         string            `json:"namespace"`
		UID               string            `json:"uid"`
		ResourceVersion   string            `json:"resource_version"`
		Generation        int64             `json:"generation,string"`
		CreationTimestamp int64             `json:"creation_timestamp,string"`
		DeletionTimestamp int64             `json:"deletion_timestamp,string"`
		Annotations       map[string]string `json:"annotations"`
		Labels            map[string]string `json:"labels"`
	}
	specJSON struct {
		Health healthJSON `json:"health"`
	}
	healthJSON struct {
		Disabled            bool  `json:"disabled"`
		PeriodSeconds       int32 `json:"period_seconds"`
		FailureThreshold    int32 `json:"failure_threshold"`
		InitialDelaySeconds int32 `json:"initial_delay_seconds"`
	}
	statusJSON struct {
		State     string                       `json:"state"`
		Address   string                       `json:"address"`
		Addresses []addressJSON                `json:"addresses"`
		Ports     []portJSON                   `json:"ports"`
		Players   *playersJSON                 `json:"players"`
		Counters  map[string]counterStatusJSON `json:"counters"`
		Lists     map[string]listStatusJSON    `json:"lists"`
	}
	addressJSON struct {
		Type    string `json:"type"`
		Address string `json:"address"`
	}
	portJSON struct {
		Name string `json:"name"`
		Port int32  `json:"port"`
	}
	playersJSON struct {
		Count    int64    `json:"count,string"`
		Capacity int64    `json:"capacity,string"`
		IDs      []string `json:"ids"`
	}
	counterStatusJSON struct {
		Count    int64 `json:"count,string"`
		Capacity int64 `json:"capacity,string"`
	}
	listStatusJSON struct {
		Capacity int64    `json:"capacity,string"`
		Values   []string `json:"values"`
	}
	counterJSON struct {
		Name     string `json:"name"`
		Count    int64  `json:"count,string"`
		Capacity int64  `json:"capacity,string"`
	}
	listJSON struct {
		Name     string   `json:"name"`
		Capacity int64    `json:"capacity,string"`
		Values   []string `json:"values"`
	}
)

// gameServerLocked is the GameServer now. s.mu is held.
func (s *Server) gameServerLocked() gameServerJSON {
	gs := gameServerJSON{
		ObjectMeta: objectMetaJSON{Name: s.name, Namespace: "default", UID: "uid-" + s.name,
			ResourceVersion: strconv.FormatInt(s.gen+1, 10), Generation: 1, CreationTimestamp: 1700000000,
			Annotations: maps(s.annots), Labels: maps(s.labels)},
		Spec: specJSON{Health: healthJSON{Disabled: s.health.Disabled, PeriodSeconds: s.health.PeriodSeconds,
			FailureThreshold: s.health.FailureThreshold, InitialDelaySeconds: s.health.InitialDelaySecs}},
		Status: statusJSON{State: s.state, Address: "127.0.0.1",
			Addresses: []addressJSON{{Type: "InternalIP", Address: "127.0.0.1"}},
			Ports:     []portJSON{{Name: "default", Port: 7654}},
			Players:   &playersJSON{IDs: []string{}},
			Counters:  map[string]counterStatusJSON{}, Lists: map[string]listStatusJSON{}},
	}
	for k, c := range s.counters {
		gs.Status.Counters[k] = counterStatusJSON{Count: c.Count, Capacity: c.Capacity}
	}
	for k, l := range s.lists {
		gs.Status.Lists[k] = listStatusJSON{Capacity: l.Capacity, Values: append([]string{}, l.Values...)}
	}
	return gs
}

// lineLocked is the watch line of the GameServer now. s.mu is held.
func (s *Server) lineLocked() string {
	b, _ := json.Marshal(struct {
		Result gameServerJSON `json:"result"`
	}{s.gameServerLocked()})
	return string(b)
}

func maps(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// object decodes body, which must be one JSON object ({} when empty),
// into v (nil: checked only); unknown fields are dropped, as the SDK
// server's gateway does.
func object(body string, v any) error {
	body = strings.TrimSpace(body)
	if body == "" {
		body = "{}"
	}
	if !strings.HasPrefix(body, "{") {
		return errors.New("the body is not a JSON object")
	}
	if v == nil {
		var m map[string]any
		return json.Unmarshal([]byte(body), &m)
	}
	return json.Unmarshal([]byte(body), v)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// writeError answers as grpc-gateway does: status, and the gRPC status as
// the body.
func writeError(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(struct {
		Code    int      `json:"code"`
		Message string   `json:"message"`
		Details []string `json:"details"`
	}{code, msg, []string{}})
}

// num is a 64-bit integer as protobuf's JSON mapping reads one: a string
// of digits or a bare number.
type num int64

func (n *num) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("invalid value for int64 field: %s", b)
	}
	*n = num(v)
	return nil
}

// WaitFor polls cond every 10 ms until it holds (true) or d passes.
func WaitFor(ctx context.Context, d time.Duration, cond func() bool) bool {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
	return true
}
