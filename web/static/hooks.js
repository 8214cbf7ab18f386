// The page's hooks: what a feature module does as the page joins a room,
// with each text frame of a type, as each frame is drawn, and as the HUD
// updates. A feature module registers its own as it is evaluated; app.js
// runs them. Hooks of one kind run in the order they were registered,
// which is the order main.js imports the feature modules in.

const resets = [];
const texts = new Map(); // frame type -> [fn]
const draws = { under: [], over: [], screen: [], map: [] };
const huds = [];

// onReset registers fn() to run as the page joins a room: it forgets the
// last room's.
export function onReset(fn) {
  resets.push(fn);
}

// onText registers fn(m) for every text frame of type: m is the frame's
// JSON, already handed to the client.
export function onText(type, fn) {
  if (!texts.has(type)) texts.set(type, []);
  texts.get(type).push(fn);
}

// onDraw registers fn(v) to draw every frame in a layer: "under" is in
// metres under the camera's transform, over the level and under the
// entities; "over" the same over the entities; "screen" in CSS pixels
// over everything (labels). v is the frame app.js draws (see frameView
// there): with the frame's events (v.events, from foi.events()). The layer
// "map" draws on the minimap and the full map (map.js, a few times a
// second): v is the map's view (see mapView there).
export function onDraw(layer, fn) {
  if (!draws[layer]) throw new Error(`hooks: no draw layer ${layer}`);
  draws[layer].push(fn);
}

// onHUD registers fn(state) to run a few times a second with the client's
// state (foi.state(), parsed).
export function onHUD(fn) {
  huds.push(fn);
}

// reset runs the reset hooks.
export function reset() {
  for (const fn of resets) fn();
}

// text runs the hooks of frame m's type.
export function text(m) {
  for (const fn of texts.get(m.type) || []) fn(m);
}

// draw runs the hooks of a layer.
export function draw(layer, v) {
  for (const fn of draws[layer]) fn(v);
}

// hud runs the HUD hooks.
export function hud(state) {
  for (const fn of huds) fn(state);
}
