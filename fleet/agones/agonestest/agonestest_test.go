package agonestest

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// call sends method path with body over plain HTTP and returns the
// status and body.
func call(t *testing.T, s *Server, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+s.Addr()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestShapes holds the fake to the JSON the guide (rest.md) and the
// swagger files show: snake_case metadata, 64-bit numbers as strings, a
// port as a number, grpc-gateway's error body, and the curl examples'
// bodies taken.
func TestShapes(t *testing.T) {
	s, err := New(Options{Counters: map[string]Counter{"rooms": {Count: 1, Capacity: 10}}, Lists: map[string]List{"players": {Capacity: 100, Values: []string{"player0"}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	code, body := call(t, s, "GET", "/gameserver", "")
	var gs map[string]map[string]any
	if code != 200 || json.Unmarshal([]byte(body), &gs) != nil {
		t.Fatalf("GET /gameserver: %d %s", code, body)
	}
	meta, status := gs["object_meta"], gs["status"]
	for _, k := range []string{"name", "namespace", "uid", "resource_version", "generation", "creation_timestamp", "annotations", "labels"} {
		if _, ok := meta[k]; !ok {
			t.Errorf("object_meta has no %s: %s", k, body)
		}
	}
	if _, ok := meta["generation"].(string); !ok {
		t.Errorf("generation is not a string: %s", body)
	}
	ports, _ := status["ports"].([]any)
	if len(ports) != 1 || ports[0].(map[string]any)["port"] != 7654.0 || status["state"] != "Scheduled" {
		t.Errorf("status: %s", body)
	}
	if c := status["counters"].(map[string]any)["rooms"].(map[string]any); c["count"] != "1" || c["capacity"] != "10" {
		t.Errorf("status counters: %s", body)
	}
	for _, tc := range []struct {
		method, path, body string
		code               int
		want               string
	}{
		// The guide's curl examples.
		{"POST", "/ready", "{}", 200, "{}"},
		{"POST", "/reserve", `{"seconds": "5"}`, 200, "{}"},
		{"PUT", "/metadata/label", `{"key": "foo", "value": "bar"}`, 200, "{}"},
		{"GET", "/v1beta1/counters/rooms", "", 200, `{"name":"rooms","count":"1","capacity":"10"}`},
		{"PATCH", "/v1beta1/counters/rooms", `{"count": "5", "capacity": "11"}`, 200, `{"name":"rooms","count":"5","capacity":"11"}`},
		{"GET", "/v1beta1/lists/players", "", 200, `{"name":"players","capacity":"100","values":["player0"]}`},
		{"POST", "/v1beta1/lists/players:addValue", `{"value": "player9"}`, 200, `{"name":"players","capacity":"100","values":["player0","player9"]}`},
		{"POST", "/v1beta1/lists/players:removeValue", `{"value": "player0"}`, 200, `{"name":"players","capacity":"100","values":["player9"]}`},
		// Refusals.
		{"PUT", "/metadata/label", `{"key": "foo", "value": "a b"}`, 400, `"code":3`},
		{"GET", "/v1beta1/counters/nope", "", 500, `"message":"counter not found: nope"`},
		{"POST", "/v1beta1/lists/players:addValue", `{"value": "player9"}`, 500, `already exists`},
		{"PATCH", "/v1beta1/counters/rooms", `{"count": "12"}`, 500, `out of range`},
		{"POST", "/nowhere", "{}", 404, `"code":5`},
		{"POST", "/ready", "[]", 400, `"code":3`},
	} {
		code, body := call(t, s, tc.method, tc.path, tc.body)
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("%s %s %s: %d %s; want %d with %s", tc.method, tc.path, tc.body, code, body, tc.code, tc.want)
		}
	}
	if v, _ := s.Label("agones.dev/sdk-foo"); v != "bar" || s.State() != "Reserved" {
		t.Errorf("label %q, state %s", v, s.State())
	}
	if n := s.Count("POST /ready"); n != 2 {
		t.Errorf("%d ready calls recorded, want 2", n)
	}
}

// TestWatchStream: the watch writes the GameServer first, then one line
// per change, each {"result":...}; Down ends it.
func TestWatchStream(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := http.Get("http://" + s.Addr() + "/watch/gameserver")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	state := func() string {
		t.Helper()
		if !sc.Scan() {
			t.Fatalf("the stream ended: %v", sc.Err())
		}
		var m struct {
			Result struct {
				Status struct{ State string }
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		return m.Result.Status.State
	}
	if st := state(); st != "Scheduled" {
		t.Errorf("first: %s", st)
	}
	WaitFor(t.Context(), time.Second, func() bool { return s.Watchers() == 1 })
	s.Allocate(map[string]string{"k": "v"})
	if st := state(); st != "Allocated" {
		t.Errorf("allocated: %s", st)
	}
	s.Down()
	if sc.Scan() {
		t.Errorf("a line after Down: %q", sc.Text())
	}
}
