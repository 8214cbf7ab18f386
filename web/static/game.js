// The game view's state, shared by the modules: the connection, the room,
// the level, the welcome, the keys held, the camera. app.js writes it; a
// feature module reads it.

export const $ = (id) => document.getElementById(id);

const PLAYER_COLOURS = ["#4fc3f7", "#ff8a65", "#ba68c8", "#81c784", "#f06292", "#ffb74d", "#4db6ac", "#9575cd"];

// playerColour is player n's colour, on the view, the minimap and the
// full map.
export function playerColour(n) {
  return PLAYER_COLOURS[(n - 1) % PLAYER_COLOURS.length];
}

export const game = {
  conn: null,        // {send(frame, n), close()}
  room: "",
  query: null,       // URLSearchParams of the join
  lossy: false,
  status: "idle",
  level: null,       // the level JSON (GET /levels/{name})
  paths: null,       // its Path2Ds
  levelName: "",
  welcome: null,
  comeBack: null,    // after a drop: {rejoin} (the place's token), {} for a spectator, null for nothing
  watching: 0,       // the player a spectator watches (the spectate frame), 0 before one
  wanted: { stars: 0, cash: 0, heat: 0 },
  status_: { hp: 0, maxHp: 0, cash: 0, dead: false },
  clock: null,       // {minutes, pace, at}
  state: null,       // foi.state()
  keys: 0,
  pressed: 0,        // one-shot presses waiting for the next tick
  mouse: { x: 0, y: 0, down: false },
  zoom: 9,           // pixels per metre at rest (the wheel sets it)
  zoomNow: 9,        // the zoom drawn: farther out the faster the focus moves
  cam: { x: 0, y: 0 },
  ownPos: null,
  lastBytes: 0, lastBytesAt: 0, bps: 0,
  drawMs: 0,
  running: false,
  closeReason: "",
};

// The browser tests and the console read the game's state: foiGame, and
// game (cars_browser_test.go reads game.level).
window.foiGame = game;
window.game = game;
