package textframe

// Calling your car back: the callcar command and the carcall frame.
//
// The command {"type":"callcar"} (no arguments; an "id" is echoed in the
// reply) calls your own car back to you: the one you last took out of a
// garage while it is in the world, else the one you came in with. Taken,
// it is answered ok, then a carcall frame and a notice say the car is
// coming. 4 s later (server.CarCallTicks) it stands near you, upright and
// at rest: on the traffic lane nearest you when one passes within 25 m
// (server.CarCallRoad), facing the lane's way, level with you or a car's
// length or two ahead or behind, else to the side of one of those
// places; with no lane that near, the same along the way you face. The
// first such spot clear of the buildings and of every other body is
// taken. The fee, 50 cash (server.CarCallFee), is paid from your cash as
// the car arrives, and a carcall frame and a notice say it is here.
//
// The command is refused with the reason (a ReplyFrame; nothing changes):
// in a spectator's session; in a run room (the run gives you your car);
// dead; wanted by the police; with no car out (kept in a garage, or
// gone); with your car wrecked (the reason says where another comes
// from); with someone else in it ("someone else is driving it", "someone
// sits in it"); with you in it; with it within 30 m of you
// (server.CarCallNear) on its wheels and clear of the buildings (a car
// flipped or wedged into a building comes however near); with a delivery
// on its way already; less than 20 s after the last delivery
// (server.CarCallEvery); with less cash than the fee. A delivery whose
// call no longer holds at its time (you died, someone got in, you walked
// to the car, you spent the cash, no free spot near you) is called off:
// nothing is paid, the car stays where it was, and a carcall frame "off"
// and a failure notice say why; a new call is taken at once.

// CarCallFrame tells a player the news of their car called back
// (callcar): it is coming, it arrived, or its delivery is called off.
// A notice frame with the same news in words follows each. A client that
// takes a held place back is told of a car still coming anew.
type CarCallFrame struct {
	Type  string `json:"type"`  // "carcall"
	State string `json:"state"` // "coming", "arrived" or "off"
	Car   uint16 `json:"car"`   // the car's wire id; 0 when it is gone
	// At is where the car stands ([x, y], metres): coming, where it was
	// when called (often beyond what the snapshots hold); arrived, where
	// it was put, near you. None when called off.
	At *[2]float32 `json:"at,omitempty"`
	// Tick is the server's tick when the frame was sent; Ends, coming,
	// the tick the car arrives at (the first snapshot's that shows it
	// near you), so that the client counts down on its own.
	Tick uint64 `json:"tick"`
	Ends uint64 `json:"ends,omitempty"`
	// Fee is the cash the delivery costs, paid as the car arrives: coming,
	// what it will cost; arrived, what was paid. None when called off.
	Fee int64 `json:"fee,omitempty"`
	// Why is, called off, the reason: what no longer held at its time.
	Why string `json:"why,omitempty"`
}
