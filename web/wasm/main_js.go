//go:build js && wasm

package main

import (
	"errors"
	"math"
	"runtime"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/fiveonit/engine/levels"
)

// errSend is a send the page's transport refused (not open).
var errSend = errors.New("page: the connection is not open")

// glue binds one Page to the page's JavaScript: the global object foi.
type glue struct {
	api      js.Value
	page     *Page
	sendFn   js.Value // JS send(frame, n): frame a string, or a Uint8Array of which n bytes go
	sendBuf  js.Value // Uint8Array reused for the binary frames sent
	sendCap  int
	drawBuf  js.Value // foi.drawBuf
	drawCap  int
	lightBuf js.Value // foi.lightBuf
	lightCap int
	funcs    []js.Func
}

func main() {
	g := &glue{api: js.Global().Get("Object").New()}
	g.export("start", g.start)
	g.export("frame", g.frame)
	g.export("tick", g.tick)
	g.export("view", g.view)
	g.export("state", g.state)
	g.export("command", g.command)
	g.export("events", g.events)
	g.export("lights", g.lights)
	g.export("places", g.places)
	g.export("title", g.title)
	g.export("route", g.route)
	g.export("carToEnter", g.carToEnter)
	g.export("carToLock", g.carToLock)
	g.api.Set("goVersion", runtime.Version())
	g.api.Set("levels", strings.Join(levels.Names(), ","))
	g.api.Set("constants", js.ValueOf(Constants()))
	js.Global().Set("foi", g.api)
	if ready := js.Global().Get("foiReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {} // the page calls in; main never returns
}

func (g *glue) export(name string, f func(args []js.Value) any) {
	fn := js.FuncOf(func(_ js.Value, args []js.Value) any { return f(args) })
	g.funcs = append(g.funcs, fn)
	g.api.Set(name, fn)
}

// start(send, lossy) makes a new client for a new connection.
func (g *glue) start(args []js.Value) any {
	if len(args) < 2 || args[0].Type() != js.TypeFunction {
		return "start(send, lossy): send must be a function"
	}
	g.sendFn = args[0]
	g.page = NewPage(g.send, args[1].Truthy())
	return ""
}

func (g *glue) send(frame []byte, text bool) error {
	var ok js.Value
	if text {
		ok = g.sendFn.Invoke(string(frame), len(frame))
	} else {
		if g.sendCap < len(frame) {
			g.sendCap = max(256, 2*len(frame))
			g.sendBuf = js.Global().Get("Uint8Array").New(g.sendCap)
		}
		js.CopyBytesToJS(g.sendBuf, frame)
		ok = g.sendFn.Invoke(g.sendBuf, len(frame))
	}
	if !ok.Truthy() {
		return errSend
	}
	return nil
}

// frame(data) hands a frame to the client: a string is a text frame, a
// Uint8Array a binary one. It returns "" or the error.
func (g *glue) frame(args []js.Value) any {
	if g.page == nil || len(args) < 1 {
		return "frame: no client (start first)"
	}
	var err error
	if args[0].Type() == js.TypeString {
		err = g.page.Frame([]byte(args[0].String()), true)
	} else {
		buf := g.page.FrameBuffer(args[0].Length())
		js.CopyBytesToGo(buf, args[0])
		err = g.page.Frame(buf, false)
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// tick(keys, mouseYaw) runs one client tick and returns the milliseconds
// until the next.
func (g *glue) tick(args []js.Value) any {
	if g.page == nil || len(args) < 2 {
		return 1000.0 / 60
	}
	yaw := float32(args[1].Float())
	if math.IsNaN(args[1].Float()) {
		yaw = float32(math.NaN())
	}
	ms, err := g.page.Tick(uint32(args[0].Int()), yaw)
	if err != nil {
		g.page.Err = err
	}
	return ms
}

// view() writes the draw list into foi.drawBuf (a Uint8Array, replaced by
// a bigger one when it is too small) and returns the number of entities.
func (g *glue) view(args []js.Value) any {
	if g.page == nil {
		return 0
	}
	b, n := g.page.View()
	if g.drawCap < len(b) {
		g.drawCap = max(4096, 2*len(b))
		g.drawBuf = js.Global().Get("Uint8Array").New(g.drawCap)
		g.api.Set("drawBuf", g.drawBuf)
	}
	if len(b) > 0 {
		js.CopyBytesToJS(g.drawBuf, b)
	}
	return n
}

// lights(tick) writes the light at the end of every lane of the level at
// tick (Page.Lights) into foi.lightBuf (a Uint8Array, replaced by a bigger
// one when it is too small) and returns the number of lanes: 0 before the
// level is known.
func (g *glue) lights(args []js.Value) any {
	if g.page == nil || len(args) < 1 {
		return 0
	}
	t := args[0].Float()
	if !(t >= 0) {
		t = 0
	}
	b := g.page.Lights(uint64(t))
	if g.lightCap < len(b) {
		g.lightCap = len(b)
		g.lightBuf = js.Global().Get("Uint8Array").New(g.lightCap)
		g.api.Set("lightBuf", g.lightBuf)
	}
	if len(b) > 0 {
		js.CopyBytesToJS(g.lightBuf, b)
	}
	return len(b)
}

// state() returns the page's State as JSON.
func (g *glue) state(args []js.Value) any {
	if g.page == nil {
		return `{"joined":false}`
	}
	return g.page.StateJSON()
}

// command(json) sends a command text frame, e.g. from the console:
// foi.command('{"type":"debug","cmd":"wanted","stars":3}'). It returns ""
// or the error.
func (g *glue) command(args []js.Value) any {
	if g.page == nil || len(args) < 1 || args[0].Type() != js.TypeString {
		return "command(json): no client, or not a string"
	}
	if err := g.page.Command(args[0].String()); err != nil {
		return err.Error()
	}
	return ""
}

// events() returns the events shown since the last call as JSON, or ""
// (Page.Events).
func (g *glue) events(args []js.Value) any {
	if g.page == nil {
		return ""
	}
	return g.page.Events()
}

// places() returns the level's labelled places as JSON (Page.PlacesJSON).
func (g *glue) places(args []js.Value) any {
	if g.page == nil {
		return "[]"
	}
	return g.page.PlacesJSON()
}

// title(id) returns the title of a place whose id is id (Title).
func (g *glue) title(args []js.Value) any {
	if len(args) < 1 || args[0].Type() != js.TypeString {
		return ""
	}
	return Title(args[0].String())
}

// route(x0, y0, x1, y1) returns the route between the two points as a
// JSON list of numbers, x and y in turn (Page.Route).
func (g *glue) route(args []js.Value) any {
	if g.page == nil || len(args) < 4 {
		return "[]"
	}
	pts := g.page.Route(float32(args[0].Float()), float32(args[1].Float()), float32(args[2].Float()), float32(args[3].Float()))
	b := make([]byte, 0, 8*len(pts)+2)
	b = append(b, '[')
	for i, v := range pts {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(v), 'f', 1, 32)
	}
	return string(append(b, ']'))
}

// carToEnter() and carToLock() return the wire id of the car E would get
// you into and the one L would lock or unlock, 0 for none (reach.go).
func (g *glue) carToEnter(args []js.Value) any {
	if g.page == nil {
		return 0
	}
	return int(g.page.CarToEnter())
}

func (g *glue) carToLock(args []js.Value) any {
	if g.page == nil {
		return 0
	}
	return int(g.page.CarToLock())
}
