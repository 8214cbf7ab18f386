package agones

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// GameServer is the SDK server's view of its GameServer (sdkGameServer in
// sdks/swagger/sdk.swagger.json): the fields the client knows; others are
// ignored.
type GameServer struct {
	ObjectMeta ObjectMeta `json:"object_meta"`
	Spec       Spec       `json:"spec"`
	Status     Status     `json:"status"`
}

// ObjectMeta is the GameServer's Kubernetes metadata
// (GameServerObjectMeta).
type ObjectMeta struct {
	Name            string `json:"name"`
	Namespace       string `json:"namespace"`
	UID             string `json:"uid"`
	ResourceVersion string `json:"resource_version"`
	Generation      Int64  `json:"generation"`
	// CreationTimestamp and DeletionTimestamp are Unix seconds.
	CreationTimestamp Int64             `json:"creation_timestamp"`
	DeletionTimestamp Int64             `json:"deletion_timestamp"`
	Annotations       map[string]string `json:"annotations"`
	Labels            map[string]string `json:"labels"`
}

// Spec is the part of the GameServer's spec the SDK server shows.
type Spec struct {
	Health Health `json:"health"`
}

// Health is the GameServer's health check (GameServerSpecHealth): the
// SDK server marks it Unhealthy once FailureThreshold periods of
// PeriodSeconds pass without a Health call, after InitialDelaySeconds.
type Health struct {
	Disabled            bool  `json:"disabled"`
	PeriodSeconds       int32 `json:"period_seconds"`
	FailureThreshold    int32 `json:"failure_threshold"`
	InitialDelaySeconds int32 `json:"initial_delay_seconds"`
}

// Status is the GameServer's status (sdkGameServerStatus).
type Status struct {
	State     string          `json:"state"`
	Address   string          `json:"address"`
	Addresses []StatusAddress `json:"addresses"`
	Ports     []StatusPort    `json:"ports"`
	// Counters and Lists are the beta CountsAndLists' (StatusCounterStatus,
	// StatusListStatus), by name.
	Counters map[string]CounterStatus `json:"counters"`
	Lists    map[string]ListStatus    `json:"lists"`
}

// StatusAddress is one of the GameServer's addresses.
type StatusAddress struct {
	Type    string `json:"type"`
	Address string `json:"address"`
}

// StatusPort is one of the GameServer's ports: its name in the spec and
// the port players connect to on its Address.
type StatusPort struct {
	Name string `json:"name"`
	Port int32  `json:"port"`
}

// CounterStatus is a counter as the GameServer's status has it.
type CounterStatus struct {
	Count    Int64 `json:"count"`
	Capacity Int64 `json:"capacity"`
}

// ListStatus is a list as the GameServer's status has it.
type ListStatus struct {
	Capacity Int64    `json:"capacity"`
	Values   []string `json:"values"`
}

// Counter is a counter as the beta routes answer it (betaCounter).
type Counter struct {
	Name     string `json:"name"`
	Count    Int64  `json:"count"`
	Capacity Int64  `json:"capacity"`
}

// List is a list as the beta routes answer it (betaList).
type List struct {
	Name     string   `json:"name"`
	Capacity Int64    `json:"capacity"`
	Values   []string `json:"values"`
}

// Port returns the port named name of the GameServer's status, false for
// none.
func (gs *GameServer) Port(name string) (int32, bool) {
	for _, p := range gs.Status.Ports {
		if p.Name == name {
			return p.Port, true
		}
	}
	return 0, false
}

// Int64 is a 64-bit integer of the API: a JSON string of its decimal
// digits ("5"), as protobuf's JSON mapping writes an int64. A bare JSON
// number is taken too; null is 0. Anything else is an error.
type Int64 int64

// MarshalJSON writes n as a JSON string.
func (n Int64) MarshalJSON() ([]byte, error) {
	return strconv.AppendQuote(nil, strconv.FormatInt(int64(n), 10)), nil
}

// UnmarshalJSON reads "5", 5 or null.
func (n *Int64) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		*n = 0
		return nil
	}
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("agones: %s is not a 64-bit integer", quote(b))
	}
	*n = Int64(v)
	return nil
}
