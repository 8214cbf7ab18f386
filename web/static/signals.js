// The traffic signals on the map, and on the minimap and the full map
// (map.js) the race gates and the signals held by hand.
//
// A signal runs its cycle on the room's tick, a pure function of the level
// and the tick (levels.SignalPlan). The client works out what every lane
// shows at a tick (foi.lights), with the signals a mission holds by hand
// (the server's "signals" frame); this module only draws the lights at
// the lanes' stop lines, which it places from the level JSON.

import { foi, LIGHT, TICK_RATE } from "./client.js";
import { game } from "./game.js";
import * as hooks from "./hooks.js";

const COLOURS = { [LIGHT.green]: "#3ddc84", [LIGHT.amber]: "#ffbf00", [LIGHT.red]: "#ff4d4d" };
const RACE_COLOURS = ["#ffb74d", "#4fc3f7", "#ba68c8", "#81c784"];

const st = {
  level: null,     // the level JSON the stop lines were placed on
  signals: [],     // {id, node: [x, y], heads: [{lane, a: [x, y], b: [x, y]}]}
  byId: new Map(),
  held: new Map(), // id -> phase held (-1: red), as the last signals frame says
  races: [],       // the welcome's
  zones: [],       // the welcome's
  tick: 0, tickAt: 0, // the server's tick as last read, and when (performance.now)
};

// place puts every signal's heads at its lanes' stop lines, once per
// level: where each lane into its node meets the node's box.
function place() {
  const level = game.level;
  if (level === st.level) return;
  st.level = level;
  st.signals = []; st.byId = new Map();
  if (!level) return;
  const roads = level.roads || {};
  const nodes = new Map();
  for (const n of roads.nodes || []) nodes.set(n.id, n.pos);
  const lanes = roads.lanes || [];
  // Each node's box: the farthest lane edge and two metres (nav.Map.NodeRadius).
  const radius = new Map();
  for (const ln of lanes) {
    const r = ln.offset + ln.width / 2 + 2;
    for (const n of [ln.from, ln.to]) radius.set(n, Math.max(radius.get(n) || 0, r));
  }
  for (const sg of roads.signals || []) {
    const at = nodes.get(sg.node);
    if (!at) continue;
    const s = { id: sg.id, node: at, heads: [] };
    const rad = radius.get(sg.node) || 0;
    lanes.forEach((ln, i) => {
      if (ln.to !== sg.node) return;
      const a = nodes.get(ln.from);
      if (!a) return;
      // The stop line: where the lane's centreline meets the box.
      const dx = at[0] - a[0], dy = at[1] - a[1], len = Math.hypot(dx, dy) || 1;
      const ux = dx / len, uy = dy / len, rx = uy, ry = -ux; // along, to the right
      const back = Math.sqrt(Math.max(rad * rad - ln.offset * ln.offset, 0));
      const cx = at[0] + rx * ln.offset - ux * back, cy = at[1] + ry * ln.offset - uy * back;
      const w = ln.width / 2;
      s.heads.push({ lane: i, a: [cx - rx * w, cy - ry * w], b: [cx + rx * w, cy + ry * w] });
    });
    st.signals.push(s);
    st.byId.set(s.id, s);
  }
}

hooks.onReset(() => {
  st.held = new Map();
});

hooks.onText("welcome", (m) => {
  st.races = m.races || [];
  st.zones = m.zones || [];
  st.tick = m.tick || 0;
  st.tickAt = performance.now();
});

hooks.onText("signals", (m) => {
  st.held = new Map();
  for (const h of m.held || []) st.held.set(h.id, h.phase);
});

// now returns the server's tick as the page reckons it: the last one read
// and the time since.
function now() {
  return Math.max(0, Math.floor(st.tick + (performance.now() - st.tickAt) * TICK_RATE / 1000));
}

// lights returns every lane's light at tick, by index in the level's
// lanes (LIGHT.none where no signal stands): the client's answer, a view
// of foi.lightBuf that the next call overwrites.
function lights(tick) {
  const n = foi.lights(tick);
  return n ? foi.lightBuf.subarray(0, n) : new Uint8Array(0);
}

// Every signal's lights across its lanes at their stop lines, and a ring
// round a signal held by hand, under the entities.
hooks.onDraw("under", ({ ctx, s }) => {
  place();
  if (!st.signals.length) return;
  const ls = lights(now());
  if (!ls.length) return;
  // One path per colour: three strokes for every light in the city.
  const paths = { [LIGHT.green]: new Path2D(), [LIGHT.amber]: new Path2D(), [LIGHT.red]: new Path2D() };
  const held = new Path2D();
  for (const sg of st.signals) {
    for (const h of sg.heads) {
      const p = paths[ls[h.lane]];
      if (!p) continue;
      p.moveTo(h.a[0], h.a[1]);
      p.lineTo(h.b[0], h.b[1]);
    }
    if (st.held.has(sg.id)) {
      held.moveTo(sg.node[0] + 12, sg.node[1]);
      held.arc(sg.node[0], sg.node[1], 12, 0, 2 * Math.PI);
    }
  }
  ctx.lineCap = "butt";
  ctx.lineWidth = 0.9;
  for (const c of [LIGHT.green, LIGHT.amber, LIGHT.red]) {
    ctx.strokeStyle = COLOURS[c];
    ctx.stroke(paths[c]);
  }
  ctx.strokeStyle = "rgba(255,255,255,0.8)";
  ctx.lineWidth = 2 / s;
  ctx.setLineDash([4 / s, 3 / s]);
  ctx.stroke(held);
  ctx.setLineDash([]);
});

// On the minimap and the full map (map.js's "map" layer): each race's
// gates in its colour, numbered in order (a loop's first also marked with
// an L; the route between them is the roads', which the level does not
// say), and the signals held by hand.
hooks.onDraw("map", (m) => {
  const { ctx, k } = m;
  st.races.forEach((r, ri) => {
    ctx.strokeStyle = RACE_COLOURS[ri % RACE_COLOURS.length];
    ctx.lineWidth = 3;
    for (const gt of r.gates) {
      // The gate's line across the road, drawn a little wider to show.
      const rx = Math.sin(gt.yaw), ry = -Math.cos(gt.yaw), w = Math.max(gt.width, 6 / k) / 2;
      ctx.beginPath();
      ctx.moveTo(m.sx(gt.pos[0] - rx * w), m.sy(gt.pos[1] - ry * w));
      ctx.lineTo(m.sx(gt.pos[0] + rx * w), m.sy(gt.pos[1] + ry * w));
      ctx.stroke();
    }
  });
  for (const [id] of st.held) {
    const sg = st.byId.get(id);
    if (!sg) continue;
    ctx.fillStyle = "#ffffff";
    ctx.beginPath();
    ctx.arc(m.sx(sg.node[0]), m.sy(sg.node[1]), 3, 0, 2 * Math.PI);
    ctx.fill();
  }
  // The gates' numbers.
  ctx.font = `${m.full ? 12 : 9}px system-ui, sans-serif`;
  ctx.textAlign = "center";
  st.races.forEach((r, ri) => {
    ctx.fillStyle = RACE_COLOURS[ri % RACE_COLOURS.length];
    r.gates.forEach((gt, i) => {
      const label = i === 0 && r.loop ? "1L" : String(i + 1);
      ctx.fillText(label, m.sx(gt.pos[0]) + 6, m.sy(gt.pos[1]) - 4);
    });
  });
});

// The HUD takes the client's tick and redraws the minimap.
hooks.onHUD((state) => {
  if (state && state.tick) {
    st.tick = state.tick;
    st.tickAt = performance.now();
  }
  place();
});

// lightsAt returns every lane's light at tick as a list, as the server's
// components.Signals resource has it.
function lightsAt(tick) {
  return Array.from(lights(tick));
}

function info() {
  place();
  return {
    signals: st.signals.length,
    held: Object.fromEntries(st.held),
    races: st.races.length,
    gates: st.races.reduce((n, r) => n + r.gates.length, 0),
    zones: st.zones.length,
    minimap: !!document.getElementById("minimap"),
    tick: now(),
  };
}

// The browser tests read foiSignals.info() and lightsAt(tick)
// (signals_browser_test.go).
window.foiSignals = { info, lightsAt, now };
