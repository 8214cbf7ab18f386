// The map: the level's places labelled where they stand, the minimap with
// its blips, the full map (M), and the way to the objective.
//
// The places (foi.places(): the shops, containers, garages and their bays,
// the hospital, the police station and the zones, each with its title,
// web/wasm places.go) carry an icon and their title on the view, and an
// icon on the minimap. The loose items are labelled with their names. The
// minimap, bottom right, shows the whole level: the roads, the zones, the
// places, a blip for each player (your party mates ringed, by name on the
// full map), the police near you, the race gates and held signals
// (signals.js, through the "map" draw layer), the mission's marker and the
// route there. The route runs along the roads (foi.route, the road
// graph's distances in the wasm); on the view it is a line on the road,
// and an arrow at the screen's edge points to a marker out of sight, with
// the distance.

import { foi, K, D, OWN, F } from "./client.js";
import { $, game, playerColour } from "./game.js";
import * as hooks from "./hooks.js";
import { drawIcon } from "./icons.js";
import { marker } from "./missions.js";

// The page's choices: the minimap's side (CSS px), how often the minimap
// and the route are redrawn (ms), how near a place is labelled on the
// view (m), and the colour of the objective and its route.
const MINI = 200;
const MINI_MS = 100;
const ROUTE_MS = 500;
const LABEL_RANGE = 120;
const OBJECTIVE = "#e040fb";
const MATE = "#3d9bff";

const PLACE_ICONS = {
  shop: ["shop", "#ffd23f"], garage: ["garage", "#8fd3ff"], bay: ["car", "#8fd3ff"], hospital: ["hospital", "#ff4d4d"],
  police: ["police", "#4d7dff"], container: ["crate", "#d9a05b"], zone: ["warning", "#ff7a5c"],
};

const st = {
  level: null,    // the level the places are of
  places: [],     // foi.places()
  route: [],      // [[x, y], ...]: the way to the marker
  routeFor: "",   // the marker the route leads to
  routeAt: 0,
  miniAt: 0,
  full: false,
  minimap: null,
  // What the tests read: the blips last drawn on the minimap.
  blips: [],
};

function placeIcon(p) {
  if (p.kind === "container" && p.sub === "locker") return ["locker", "#b8c2cf"];
  if (p.kind === "zone") return p.sub === "safe" ? ["safe", "#42d96b"] : ["warning", "#ff7a5c"];
  return PLACE_ICONS[p.kind] || ["item", "#fff"];
}

// places reads the level's places once the level is known.
function places() {
  if (game.level && st.level !== game.level) {
    st.level = game.level;
    st.places = JSON.parse(foi.places()) || [];
  }
  return st.places;
}

hooks.onReset(() => {
  st.route = []; st.routeFor = ""; st.routeAt = 0; st.blips = [];
  minimapCanvas();
});

// ---- the view: the labels, the bays, the route, the edge arrow ---------------------

// Under the entities, in metres: the garage's bays as numbered boxes and
// the route on the roads.
hooks.onDraw("under", ({ ctx, s }) => {
  for (const p of places()) {
    if (p.kind !== "bay") continue;
    ctx.save();
    ctx.translate(p.x, p.y);
    ctx.rotate(p.yaw);
    ctx.strokeStyle = "rgba(143,211,255,0.8)";
    ctx.lineWidth = 2 / s;
    ctx.setLineDash([4 / s, 3 / s]);
    ctx.strokeRect(-2.8, -1.4, 5.6, 2.8);
    ctx.setLineDash([]);
    ctx.restore();
  }
  if (st.route.length >= 2) {
    ctx.strokeStyle = "rgba(224,64,251,0.45)";
    ctx.lineWidth = Math.max(1.5, 6 / s);
    ctx.lineJoin = "round";
    ctx.lineCap = "round";
    ctx.beginPath();
    st.route.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
    ctx.stroke();
  }
});

// In screen space: each place near you with its icon and title, the loose
// items' names, the bays' numbers, and the objective's distance or the
// arrow toward it.
hooks.onDraw("screen", (v) => {
  const { ctx, f, n, W, H, s, focus } = v;
  const me = game.ownPos;
  ctx.textAlign = "center";
  ctx.font = "bold 12px system-ui, sans-serif";
  const free = placer(ctx);
  for (const p of places()) {
    if (me && Math.hypot(p.x - me.x, p.y - me.y) > LABEL_RANGE && p.kind !== "hospital" && p.kind !== "garage") continue;
    const x = v.sx(p.x), y = v.sy(p.y);
    if (x < -60 || x > W + 60 || y < -40 || y > H + 40) continue;
    if (p.kind === "bay") {
      ctx.fillStyle = "rgba(143,211,255,0.9)";
      ctx.fillText(String(p.n), x, y + 4);
      continue;
    }
    const [name, colour] = placeIcon(p);
    const size = p.kind === "container" ? 16 : 22;
    drawIcon(ctx, name, x, y, size, colour, 1.5);
    if (p.kind === "container" && s < 4) continue; // zoomed out: the crates' titles would crowd
    const title = p.title + (p.locked ? " (locked)" : "");
    const at = free(title, x, y - size / 2 - 12);
    if (at !== null) v.label(title, colour, x, at + 16);
  }
  // The loose items, by name.
  const items = (game.welcome && game.welcome.items) || [];
  for (let i = 0; i < n; i++) {
    const b = i * D.stride;
    if (f[b + D.kind] !== K.item) continue;
    const it = items[f[b + D.model] - 1];
    const text = it ? it.label : "item";
    const at = free(text, v.sx(f[b + D.x]), v.sy(f[b + D.y]) - 18);
    if (at !== null) v.label(text, "#ffe27a", v.sx(f[b + D.x]), at + 16);
  }
  objective(v);
  // The minimap and the full map, a few times a second.
  if (v.now - st.miniAt >= MINI_MS) {
    st.miniAt = v.now;
    drawMinimap(v);
    if (st.full) drawFullMap(v);
  }
  void focus;
});

// placer returns free(text, x, y): the baseline near y at which a label
// of text centred on x covers no label placed before it, or null for
// none (tried at y, then a line above, below, two above).
function placer(ctx) {
  const taken = [];
  return (text, x, y) => {
    const w = ctx.measureText(text).width + 6;
    for (const dy of [0, -14, 14, -28]) {
      const r = [x - w / 2, y + dy - 12, w, 14];
      if (!taken.some((t) => r[0] < t[0] + t[2] && t[0] < r[0] + r[2] && r[1] < t[1] + t[3] && t[1] < r[1] + r[3])) {
        taken.push(r);
        return y + dy;
      }
    }
    return null;
  };
}

// objective writes the distance to the mission's marker under it, or,
// with the marker out of sight, draws an arrow at the screen's edge
// pointing to it.
function objective(v) {
  const mk = marker(); // the mission's marker (missions.js)
  const me = game.ownPos;
  if (!mk || !me) return;
  const { ctx, W, H } = v;
  const d = Math.hypot(mk[0] - me.x, mk[1] - me.y);
  const dist = d >= 1000 ? `${(d / 1000).toFixed(1)} km` : `${Math.round(d)} m`;
  const x = v.sx(mk[0]), y = v.sy(mk[1]);
  // The edges the arrow keeps to: clear of the HUD at the top and the
  // inventory bar at the bottom.
  const side = 40, top = 90, bottom = 110;
  if (x >= side && x <= W - side && y >= top && y <= H - bottom) {
    v.label(dist, OBJECTIVE, x, y + 36);
    return;
  }
  const cx = W / 2, cy = (top + H - bottom) / 2, dx = x - cx, dy = y - cy;
  const t = Math.min((W / 2 - side) / Math.abs(dx || 1e-6), ((H - top - bottom) / 2) / Math.abs(dy || 1e-6));
  const ax = cx + dx * t, ay = cy + dy * t, a = Math.atan2(dy, dx);
  ctx.save();
  ctx.translate(ax, ay);
  ctx.rotate(a);
  ctx.fillStyle = OBJECTIVE;
  ctx.strokeStyle = "rgba(0,0,0,0.7)";
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.moveTo(16, 0); ctx.lineTo(-10, -12); ctx.lineTo(-4, 0); ctx.lineTo(-10, 12); ctx.closePath();
  ctx.stroke();
  ctx.fill();
  ctx.restore();
  v.label(dist, OBJECTIVE, ax - Math.cos(a) * 26, ay - Math.sin(a) * 26 + 20);
}

// The route, a few times a second, from you to the marker.
hooks.onHUD(() => {
  const mk = marker();
  const me = game.ownPos;
  const now = performance.now();
  if (!mk || !me) { st.route = []; st.routeFor = ""; return; }
  const key = mk.join(",");
  if (key === st.routeFor && now - st.routeAt < ROUTE_MS) return;
  st.routeFor = key;
  st.routeAt = now;
  const flat = JSON.parse(foi.route(me.x, me.y, mk[0], mk[1])); // x, y, x, y, ...
  st.route = [];
  for (let i = 0; i + 1 < flat.length; i += 2) st.route.push(flat.slice(i, i + 2));
});

// ---- the minimap and the full map ----------------------------------------------------

// minimapCanvas makes the minimap's canvas in the game view, once.
function minimapCanvas() {
  if (st.minimap) return st.minimap;
  const c = document.createElement("canvas");
  c.id = "minimap";
  c.className = "overlay";
  c.title = "minimap: you, players (party mates ringed), police, shops, the garage, the hospital, the objective (M: the full map)";
  Object.assign(c.style, { right: "12px", bottom: "52px", width: MINI + "px", height: MINI + "px", padding: "0" });
  c.addEventListener("click", () => toggleFull(true));
  $("game").appendChild(c);
  st.minimap = c;
  return c;
}

// mapView is what the "map" draw layer gets: the canvas (ctx, in CSS
// pixels), its scale (k, pixels per metre), sx and sy to put a point of
// the world on it, its size (W, H) and whether it is the full map.
function mapView(ctx, k, W, H, g, ox, oy, full) {
  return {
    ctx, k, W, H, full,
    sx: (x) => ox + (x - g.min[0]) * k,
    sy: (y) => H - oy - (y - g.min[1]) * k,
  };
}

function drawMinimap(v) {
  const c = minimapCanvas();
  drawMap(c, MINI, MINI, v, false);
}

function drawFullMap(v) {
  const c = $("fullMapCanvas"), box = $("fullMap");
  // The canvas takes the window but for its legend.
  const W = Math.max(200, box.clientWidth - 16), H = Math.max(200, box.clientHeight - $("mapLegend").offsetHeight - 24);
  c.style.width = W + "px";
  c.style.height = H + "px";
  drawMap(c, W, H, v, true);
}

// drawMap draws the whole level on canvas c of W by H CSS pixels: the
// roads, the zones (and on the full map the buildings), the places, the
// "map" layer's drawings, the route and the marker, and the blips of the
// frame v (the draw list).
function drawMap(c, W, H, v, full) {
  const level = game.level;
  const g = level && level.ground;
  if (!g) return;
  const dpr = window.devicePixelRatio || 1;
  if (c.width !== Math.round(W * dpr) || c.height !== Math.round(H * dpr)) { c.width = Math.round(W * dpr); c.height = Math.round(H * dpr); }
  const ctx = c.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, W, H);
  ctx.fillStyle = full ? "#15181d" : "rgba(18,21,27,0.88)";
  ctx.fillRect(0, 0, W, H);
  const pad = full ? 16 : 4;
  const k = Math.min((W - 2 * pad) / (g.max[0] - g.min[0]), (H - 2 * pad) / (g.max[1] - g.min[1]));
  // The level centred on the canvas.
  const ox = (W - (g.max[0] - g.min[0]) * k) / 2, oy = (H - (g.max[1] - g.min[1]) * k) / 2;
  const m = mapView(ctx, k, W, H, g, ox, oy, full);
  // The level in metres.
  ctx.setTransform(k * dpr, 0, 0, -k * dpr, (ox - g.min[0] * k) * dpr, (H - oy + g.min[1] * k) * dpr);
  if (game.paths) {
    if (full) {
      ctx.fillStyle = "#3a3f47";
      for (const use in game.paths.buildings) ctx.fill(game.paths.buildings[use]);
    }
    ctx.strokeStyle = "#59606b";
    ctx.lineWidth = (full ? 4 : 5) / k;
    ctx.stroke(game.paths.centre);
    for (const z of game.paths.zones) {
      ctx.fillStyle = z.kind === "restricted" ? "rgba(255,70,70,0.45)" : "rgba(66,217,107,0.35)";
      ctx.fill(z.path);
    }
  }
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  hooks.draw("map", m); // the race gates, the held signals
  // The places.
  ctx.textAlign = "center";
  ctx.font = "bold 12px system-ui, sans-serif";
  const free = placer(ctx);
  for (const p of places()) {
    if (p.kind === "bay") { // a bay: a small box (the view numbers them)
      ctx.fillStyle = "#8fd3ff";
      ctx.fillRect(m.sx(p.x) - 1.5, m.sy(p.y) - 1.5, 3, 3);
      continue;
    }
    if ((p.kind === "container" && !full) || (p.kind === "zone" && !full)) continue;
    const [name, colour] = placeIcon(p);
    const size = full ? 20 : 12;
    drawIcon(ctx, name, m.sx(p.x), m.sy(p.y), size, colour, 1);
    const at = full && p.kind !== "container" ? free(p.title, m.sx(p.x), m.sy(p.y) + size / 2 + 12) : null;
    if (at !== null) label(ctx, p.title, colour, m.sx(p.x), at);
  }
  // The route and the marker.
  if (st.route.length >= 2) {
    ctx.strokeStyle = OBJECTIVE;
    ctx.lineWidth = full ? 3 : 2;
    ctx.lineJoin = "round";
    ctx.beginPath();
    st.route.forEach(([x, y], i) => (i ? ctx.lineTo(m.sx(x), m.sy(y)) : ctx.moveTo(m.sx(x), m.sy(y))));
    ctx.stroke();
  }
  const mk = marker();
  if (mk) {
    ctx.strokeStyle = OBJECTIVE;
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.arc(m.sx(mk[0]), m.sy(mk[1]), full ? 9 : 6, 0, 2 * Math.PI);
    ctx.stroke();
  }
  blips(ctx, m, v, full);
}

// blips draws the draw list's players, police and you on map m.
function blips(ctx, m, v, full) {
  const { f, n, blink } = v;
  const st_ = game.state;
  const party = (st_ && st_.party) || 0;
  const names = new Map();
  for (const p of (st_ && st_.players) || []) names.set(p.player, p);
  const drawn = [];
  let me = null;
  for (let i = 0; i < n; i++) {
    const b = i * D.stride;
    const k = f[b + D.kind], own = f[b + D.own], player = f[b + D.player];
    const x = m.sx(f[b + D.x]), y = m.sy(f[b + D.y]);
    if (own & (OWN.predicted | OWN.character | OWN.watched)) {
      if (!me || k !== K.character) me = { x, y, yaw: f[b + D.yaw] };
      continue;
    }
    if (k === K.officer || k === K.policeCar) {
      const siren = f[b + D.flags] & F.siren;
      ctx.fillStyle = siren && blink ? "#ff3a3a" : "#4d7dff";
      ctx.fillRect(x - 3, y - 3, 6, 6);
      drawn.push({ kind: "police", x, y });
      continue;
    }
    if (k !== K.character || !player) continue;
    const info = names.get(player);
    const mate = party !== 0 && info && info.party === party;
    ctx.fillStyle = playerColour(player);
    ctx.beginPath();
    ctx.arc(x, y, mate ? 5 : 4, 0, 2 * Math.PI);
    ctx.fill();
    ctx.strokeStyle = mate ? MATE : "rgba(0,0,0,0.8)";
    ctx.lineWidth = mate ? 3 : 1;
    ctx.beginPath();
    ctx.arc(x, y, mate ? 7 : 4.5, 0, 2 * Math.PI);
    ctx.stroke();
    if (full || mate) label(ctx, (info && info.name) || "P" + player, mate ? MATE : playerColour(player), x, y - 9);
    drawn.push({ kind: mate ? "mate" : "player", player, x, y });
  }
  if (me) { // you: an arrow the way you face
    ctx.save();
    ctx.translate(me.x, me.y);
    ctx.rotate(-me.yaw);
    ctx.fillStyle = "#ffd23f";
    ctx.strokeStyle = "#000";
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(7, 0); ctx.lineTo(-5, -5); ctx.lineTo(-2, 0); ctx.lineTo(-5, 5); ctx.closePath();
    ctx.fill();
    ctx.stroke();
    ctx.restore();
    drawn.push({ kind: "you", x: me.x, y: me.y });
  }
  if (!full) st.blips = drawn;
}

function label(ctx, text, colour, x, y) {
  ctx.fillStyle = "rgba(0,0,0,0.7)";
  ctx.fillText(text, x + 1, y + 1);
  ctx.fillStyle = colour;
  ctx.fillText(text, x, y);
}

// ---- the full map --------------------------------------------------------------------

// toggleFull opens or shuts the full map, with its legend.
function toggleFull(open) {
  st.full = open;
  $("fullMap").hidden = !open;
  if (!open || $("mapLegend").childElementCount) return;
  const rows = [["shop", "#ffd23f", "shop"], ["garage", "#8fd3ff", "garage"], ["hospital", "#ff4d4d", "hospital"],
    ["police", "#4d7dff", "police station"], ["warning", "#ff7a5c", "restricted zone"], ["crate", "#d9a05b", "crate, locker"]];
  for (const [name, colour, text] of rows) {
    const c = document.createElement("canvas");
    c.width = c.height = 18;
    drawIcon(c.getContext("2d"), name, 9, 9, 16, colour);
    const d = document.createElement("span");
    d.append(c, " " + text);
    $("mapLegend").appendChild(d);
  }
  for (const [colour, text] of [[OBJECTIVE, "objective and its route"], [MATE, "party mate"], ["#4d7dff", "police"], ["#ffd23f", "you"]]) {
    const d = document.createElement("span");
    const dot = document.createElement("i");
    dot.style.background = colour;
    d.append(dot, " " + text);
    $("mapLegend").appendChild(d);
  }
}

window.addEventListener("keydown", (e) => {
  if (!game.running || e.target.tagName === "INPUT" || e.target.tagName === "SELECT" || e.repeat) return;
  if (e.code === "KeyM") { toggleFull(!st.full); e.preventDefault(); }
  else if (e.code === "Escape" && st.full) { toggleFull(false); e.preventDefault(); e.stopImmediatePropagation(); }
});
$("fullMap").addEventListener("click", () => toggleFull(false));

// The browser tests read the map (map_browser_test.go): the places and the
// minimap's blips.
window.foiMap = {
  info: () => JSON.stringify({ places: st.places.length, blips: st.blips, route: st.route.length, full: st.full }),
  toggle: toggleFull,
};
