// The game view: the connection, the 60 Hz tick with the keys held, the
// level and the entities drawn, and the HUD. The snapshots are decoded by
// the project's Go client compiled to WebAssembly (client.js): this module
// only moves bytes between the socket and the client (foi.frame), ticks it
// with the keys held (foi.tick), and draws the list it returns (foi.view).
// The feature modules add theirs through the hooks (hooks.js): this module
// runs them on a join, for each text frame, in each frame drawn and in the
// HUD.

import { foi, K, VEHICLE_KINDS, PERSON_KINDS, ACT, KEY, D, OWN, F, RECONNECT, MODEL, WEAPON } from "./client.js";
import { $, game, playerColour } from "./game.js";
import * as hooks from "./hooks.js";
import * as lobby from "./lobby.js";

const CAR_COLOURS = ["#6d8bb0", "#8c9aa8", "#c0504d", "#9b8e6a", "#7a6a58", "#e8eef5", "#8a7f72"];
const BUILDING_COLOURS = {
  generic: "#5b616b", residential: "#6b6560", commercial: "#5f6a78", office: "#56657a",
  industrial: "#6a655a", warehouse: "#66625a", shop: "#74677a", hospital: "#c9d3db",
  police: "#3d5a8a", garage: "#6b6b6b", wall: "#8a8478",
};

// ---- the connection ------------------------------------------------------

// The join token a platform gives the page in its address (?token=): every
// join carries it, so that the player plays their account.
const joinToken = new URLSearchParams(location.search).get("token") || "";

// The reconnect: after a drop the page redials with the welcome's
// reconnect token (rejoin=), waiting RECONNECT.firstMs before the first
// try and twice as long before each next one, up to RECONNECT.maxMs, each
// wait jittered by a quarter either way, at most RECONNECT.tries times.
const rc = { active: false, tries: 0, timer: 0 };

// The place held for this tab (sessionStorage: it outlives a reload of the
// tab, not the tab): the room, the join's options and the reconnect token.
const PLACE_KEY = "foi.place";

function setStatus(s, cls) {
  game.status = s;
  const el = $("status");
  el.textContent = s;
  el.className = cls || "";
}

function sendFn(frame, n) {
  return game.conn ? game.conn.send(frame, n) : false;
}

function onFrame(conn, data) {
  if (conn !== game.conn) return; // a connection let go: its last frames count no more
  if (typeof data === "string") {
    foi.frame(data);
    let m;
    try { m = JSON.parse(data); } catch (e) { return; }
    hooks.text(m);
    return;
  }
  const err = foi.frame(new Uint8Array(data));
  if (err) console.debug("frame:", err);
}

hooks.onText("welcome", (m) => {
  game.welcome = m;
  setStatus("connected", "ok");
  $("who").textContent = m.spectate
    ? `spectating${m.watch ? " player " + m.watch : ""} in ${m.room} (${m.level})`
    : `${m.name || "player " + m.player} in ${m.room} (${m.level})`;
  $("watchPanel").hidden = !m.spectate;
  // What the page comes back to after a drop: its place (the token), or
  // for a spectator, who holds no place, a new watch.
  game.comeBack = m.rejoin ? { rejoin: m.rejoin } : m.spectate ? {} : null;
  keepPlace(m);
  if (rc.active) {
    rc.active = false;
    rc.tries = 0;
    $("reconnect").hidden = true;
  }
  loadLevel(m.level);
});
// Whom a spectator watches now: the spectate frame follows a switch.
hooks.onText("spectate", (m) => {
  game.watching = m.player;
  $("watchSelect").dataset.players = ""; // redrawn with its choice at the next HUD
});
hooks.onText("wanted", (m) => {
  game.wanted = m;
  game.status_.cash = m.cash;
  if (m.arrested) banner(`Busted! Fine $${m.fine}`);
});
// A death shows on the death screen (combat.js), with its cause.
hooks.onText("status", (m) => {
  game.status_ = m;
});
hooks.onText("clock", (m) => {
  game.clock = { minutes: m.minutes, pace: m.pace, at: performance.now() };
});
hooks.onText("close", (m) => {
  game.closeReason = m.reason || "closed";
});
hooks.onText("error", (m) => {
  console.warn("server:", m.error);
});

function banner(text) {
  const b = $("banner");
  b.textContent = text;
  b.hidden = false;
  clearTimeout(banner.t);
  banner.t = setTimeout(() => (b.hidden = true), 3000);
}

// keepPlace keeps the place of welcome m for a reload of the tab: a
// player's, in a room that holds places.
function keepPlace(m) {
  try {
    if (!m.rejoin) {
      sessionStorage.removeItem(PLACE_KEY);
      return;
    }
    sessionStorage.setItem(PLACE_KEY, JSON.stringify({
      room: game.room, opts: game.opts, rejoin: m.rejoin, seconds: m.rejoinSeconds || 0, left: 0,
    }));
  } catch (e) { /* storage off: a reload joins anew */ }
}

function forgetPlace() {
  try { sessionStorage.removeItem(PLACE_KEY); } catch (e) { /* storage off */ }
}

// The tab goes (a reload, a close): the held place's window starts now.
window.addEventListener("pagehide", () => {
  try {
    const p = JSON.parse(sessionStorage.getItem(PLACE_KEY) || "null");
    if (p && game.running) sessionStorage.setItem(PLACE_KEY, JSON.stringify(Object.assign(p, { left: Date.now() })));
  } catch (e) { /* storage off */ }
});

// comeBackFromReload rejoins the place this tab held when it was
// reloaded within the place's window: true when it does.
function comeBackFromReload() {
  const nav = performance.getEntriesByType("navigation")[0];
  let p = null;
  try { p = JSON.parse(sessionStorage.getItem(PLACE_KEY) || "null"); } catch (e) { return false; }
  if (!p || !nav || nav.type !== "reload" || location.hash !== "#" + p.room) return false;
  if (p.left && Date.now() - p.left > p.seconds * 1000) {
    forgetPlace();
    return false;
  }
  join(p.room, p.opts, p.rejoin);
  return true;
}

// lost handles the end of conn. A close the server gave a reason for (a
// kick, "room full", "the run is over", a refused join) is final: the page
// says why. A drop (the network, a server that went without a word) is
// redialled, when the page holds a place to come back to.
function lost(conn, reason, final) {
  if (conn !== game.conn || !game.running) return;
  game.conn = null;
  conn.close(false); // a peer connection that only disconnected must not come back beside the new one
  const why = game.closeReason || reason || "connection lost";
  if (final || game.closeReason || !game.comeBack) {
    if (rc.active) {
      giveUp(why);
      return;
    }
    game.comeBack = null;
    forgetPlace(); // the server let the place go, or another tab has it
    setStatus("closed: " + why, "bad");
    return;
  }
  retry(why);
}

// retry waits its turn, then redials; past the last try it gives up.
function retry(why) {
  if (!rc.active) {
    rc.active = true;
    rc.tries = 0;
  }
  if (rc.tries >= RECONNECT.tries) {
    giveUp(`no answer after ${rc.tries} tries (${why})`);
    return;
  }
  const wait = Math.min(RECONNECT.maxMs, RECONNECT.firstMs * 2 ** rc.tries) * (0.75 + Math.random() / 2);
  rc.tries++;
  setStatus(`reconnecting (try ${rc.tries} of ${RECONNECT.tries})`, "bad");
  showReconnect("reconnecting...", `The connection dropped (${why}); try ${rc.tries} of ${RECONNECT.tries}.`, false);
  rc.timer = setTimeout(redial, wait);
}

function redial() {
  rc.timer = 0;
  if (!game.running || game.conn) return;
  const q = new URLSearchParams(game.query);
  if (game.comeBack && game.comeBack.rejoin) q.set("rejoin", game.comeBack.rejoin);
  if (q.get("spectate") && game.watching) q.set("watch", game.watching); // whom it watched last
  connect(q);
}

// giveUp ends a reconnect that was refused or ran out of tries, saying
// why.
function giveUp(why) {
  clearTimeout(rc.timer);
  rc.active = false;
  rc.timer = 0;
  game.comeBack = null;
  forgetPlace();
  setStatus("closed: " + why, "bad");
  showReconnect("Could not reconnect", why, true);
}

// showReconnect shows the reconnect dialog: a title, the reason, and once
// the page gave up, Join again beside Back to the lobby.
function showReconnect(title, why, over) {
  $("reconnectTitle").textContent = title;
  $("reconnectWhy").textContent = why;
  $("reconnectAgain").hidden = !over;
  $("reconnect").className = "overlay window" + (over ? " over" : "");
  $("reconnect").hidden = false;
}

$("reconnectAgain").addEventListener("click", () => join(game.room, game.opts));
$("reconnectLobby").addEventListener("click", () => showLobby());

function connectWebSocket(url) {
  let ws, hops = 0;
  let dropped = false; // by drop: whatever the server answers, a drop
  const conn = {
    send(frame, n) {
      if (ws.readyState !== WebSocket.OPEN) return false;
      ws.send(typeof frame === "string" ? frame : frame.subarray(0, n));
      return true;
    },
    // close closes the socket; leaving, the player goes: the leave
    // command, then the normal closure, and no place is held.
    close(leaving) {
      ws.onclose = null;
      ws.onmessage = null;
      if (leaving && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "leave" }));
      ws.close(1000, "bye");
    },
    // drop closes the socket as a client that did not mean to go: a close
    // with no reason and not the normal closure, which the page takes for
    // a drop and the server holds the place through.
    drop() {
      dropped = true;
      ws.close(4000);
    },
  };
  const open = (u) => {
    ws = new WebSocket(u);
    ws.binaryType = "arraybuffer";
    ws.onopen = () => { if (conn === game.conn && !rc.active) setStatus("joining", ""); };
    ws.onmessage = (e) => onFrame(conn, e.data);
    // 4307: the room lives on another server of the fleet; the reason is
    // its join URL there, where the same query goes. Otherwise the server
    // closes with a reason (or the normal closure) when it means it; a
    // drop has neither.
    ws.onclose = (e) => {
      if (e.code === 4307 && hops++ < 3) return open(e.reason + u.slice(u.indexOf("?")));
      lost(conn, e.reason || `code ${e.code}`, !dropped && (e.reason !== "" || e.code === 1000));
    };
    ws.onerror = () => { if (conn === game.conn && !rc.active) setStatus("error", "bad"); };
  };
  open(url);
  return conn;
}

// leaveId is the leave command's id, for its reply: one no other command
// of the page takes.
const leaveId = 0x7fffffff;

// connectWebRTC: the browser's RTCPeerConnection against the server's pion.
// Two data channels made here: "lossy" (unordered, no retransmits) for the
// input and snapshot frames, "reliable" (ordered) for the text frames. The
// offer goes whole (non-trickle) to POST /rooms/{name}/rtc, the answer back.
// The server's close sends a close frame with its reason first; a peer
// connection that fails or disconnects without one is a drop.
function connectWebRTC(room, query) {
  const pc = new RTCPeerConnection({ iceServers: [] });
  const lossy = pc.createDataChannel("lossy", { ordered: false, maxRetransmits: 0 });
  const reliable = pc.createDataChannel("reliable", { ordered: true });
  const conn = {
    send(frame, n) {
      if (typeof frame === "string") {
        if (reliable.readyState !== "open") return false;
        reliable.send(frame);
        return true;
      }
      if (lossy.readyState !== "open") return false;
      lossy.send(frame.subarray(0, n));
      return true;
    },
    // close ends the peer connection; leaving, it sends the leave command
    // first and waits for its reply (at most a second), so that the
    // command is not lost with the connection.
    close(leaving) {
      reliable.onclose = null;
      pc.onconnectionstatechange = null;
      lossy.onmessage = null;
      if (!leaving || reliable.readyState !== "open") {
        pc.close();
        return;
      }
      reliable.onmessage = (e) => {
        if (typeof e.data !== "string") return;
        const m = JSON.parse(e.data);
        if (m.type === "reply" && m.id === leaveId) pc.close();
      };
      reliable.send(JSON.stringify({ type: "leave", id: leaveId }));
      setTimeout(() => pc.close(), 1000);
    },
    // drop ends the peer connection without a word, as a network that
    // fails ends it: a closed peer connection fires no event of its own,
    // so the drop is handled here.
    drop() {
      pc.close();
      lost(conn, "peer connection dropped", false);
    },
  };
  for (const dc of [lossy, reliable]) {
    dc.binaryType = "arraybuffer";
    dc.onmessage = (e) => onFrame(conn, e.data);
  }
  reliable.onclose = () => lost(conn, "data channel closed", false);
  pc.onconnectionstatechange = () => {
    const s = pc.connectionState;
    if (s === "failed" || s === "disconnected" || s === "closed") lost(conn, "peer connection " + s, false);
  };
  (async () => {
    if (!rc.active) setStatus("offering", "");
    await pc.setLocalDescription(await pc.createOffer());
    await new Promise((resolve) => {
      if (pc.iceGatheringState === "complete") return resolve();
      const t = setTimeout(resolve, 3000);
      pc.addEventListener("icegatheringstatechange", () => {
        if (pc.iceGatheringState === "complete") { clearTimeout(t); resolve(); }
      });
    });
    const res = await fetch(`/rooms/${encodeURIComponent(room)}/rtc?${query}`, {
      method: "POST",
      // text/plain keeps it a simple request: sent on with a 307 to
      // another server of the fleet, it needs no preflight there.
      headers: { "Content-Type": "text/plain;charset=UTF-8" },
      body: JSON.stringify({ type: "offer", sdp: pc.localDescription.sdp }),
    });
    if (!res.ok) {
      const e = new Error(`POST /rtc: ${res.status} ${(await res.text()).trim()}`);
      // A refusal (403 a place gone or a seat refused, 400, 404) is final;
      // a busy or unreachable server (429, 5xx) is tried again.
      e.final = res.status < 500 && res.status !== 429;
      throw e;
    }
    const answer = await res.json();
    await pc.setRemoteDescription({ type: "answer", sdp: answer.sdp });
    if (!game.welcome && !rc.active) setStatus("joining", ""); // the welcome may already have come
  })().catch((e) => {
    console.error(e);
    lost(conn, e.message, !!e.final);
    conn.close(false);
  });
  return conn;
}

// The browser tests drop the connection as a network failure would
// (foiNet.drop()), over a transport they cannot cut from outside: the
// page reconnects.
window.foiNet = { drop() { if (game.conn) game.conn.drop(); } };

// connect dials the room with query q: a new client, the feature modules
// reset (a join, or a reconnect: the server sends everything anew after
// the welcome), a new connection.
function connect(q) {
  game.welcome = null; game.state = null; game.closeReason = ""; game.watching = 0;
  game.wanted = { stars: 0, cash: 0, heat: 0 }; game.status_ = { hp: 0, maxHp: 0, cash: 0, dead: false };
  game.lastBytes = 0; game.lastBytesAt = performance.now(); game.bps = 0;
  hooks.reset();
  const err = foi.start(sendFn, game.lossy);
  if (err) throw new Error(err);
  if (!rc.active) setStatus("connecting", "");
  if (game.lossy) {
    game.conn = connectWebRTC(game.room, q.toString());
  } else {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    game.conn = connectWebSocket(`${proto}//${location.host}/rooms/${encodeURIComponent(game.room)}?${q}`);
  }
}

// join joins room with opts (the lobby's); rejoin, if set, is the
// reconnect token of a place this tab held there (a reload).
export function join(room, opts, rejoin) {
  leave();
  const q = new URLSearchParams();
  if (opts.level) q.set("level", opts.level);
  if (opts.game) q.set("game", opts.game);
  if (opts.traffic !== "" && opts.traffic != null) q.set("traffic", opts.traffic);
  if (opts.pedestrians !== "" && opts.pedestrians != null) q.set("pedestrians", opts.pedestrians);
  if (opts.spectate) { q.set("spectate", "1"); if (opts.watch) q.set("watch", opts.watch); }
  if (joinToken) q.set("token", joinToken);
  else if (opts.name) q.set("name", opts.name); // a token names its player
  game.room = room; game.query = q; game.lossy = !!opts.webrtc; game.opts = opts;
  game.comeBack = rejoin ? { rejoin } : null;
  $("transport").textContent = game.lossy ? "WebRTC (lossy)" : "WebSocket";
  $("reconnect").hidden = true;
  if (rejoin) {
    rc.active = true;
    rc.tries = 0;
    showReconnect("reconnecting...", "Coming back to your place in the room.", false);
    setStatus("reconnecting", "bad");
  }
  $("lobby").hidden = true;
  $("game").hidden = false;
  game.running = true;
  history.replaceState(null, "", `#${room}`);
  resize();
  const dial = new URLSearchParams(q);
  if (rejoin) dial.set("rejoin", rejoin);
  connect(dial);
}

// leave lets the room go: the player leaves it for good (the leave
// command, a normal close), so the room holds no place.
function leave() {
  clearTimeout(rc.timer);
  rc.active = false;
  rc.timer = 0;
  if (game.conn) game.conn.close(true);
  game.conn = null;
  game.comeBack = null;
  game.running = false;
  forgetPlace();
}

function showLobby() {
  leave();
  $("reconnect").hidden = true;
  lobby.show();
}

// ---- the 60 Hz tick --------------------------------------------------------

// The client ticks on a fixed step kept by an accumulator: a timer fires
// every few ms and runs the ticks that are due, each tick's period set by
// the client (foi.tick returns it: 60 Hz nudged by 3% to keep its inputs a
// tick or two ahead of the server). Not tied to requestAnimationFrame, so
// the inputs keep their pace whatever the display's refresh.
let nextTick = 0, lastPump = 0;
function pump() {
  if (!game.running) return;
  const now = performance.now();
  game.maxGap = Math.max(game.maxGap || 0, now - lastPump);
  lastPump = now;
  // A stall: do not race to catch up. The server ran those ticks on guesses;
  // the next snapshots make the client skip them (client.SkipMin).
  if (now - nextTick > 250) nextTick = now;
  for (let n = 0; now >= nextTick && n < 5; n++) {
    nextTick += foi.tick(game.keys | game.pressed, mouseYaw());
    game.pressed = 0;
  }
}

function mouseYaw() {
  if (!game.ownPos) return NaN;
  const c = $("view");
  const dx = game.mouse.x - c.clientWidth / 2 - (game.ownPos.x - game.cam.x) * game.zoomNow;
  const dy = -(game.mouse.y - c.clientHeight / 2) - (game.ownPos.y - game.cam.y) * game.zoomNow;
  return Math.atan2(dy, dx);
}

const KEYMAP = {
  KeyW: KEY.up, ArrowUp: KEY.up, KeyS: KEY.down, ArrowDown: KEY.down,
  KeyA: KEY.left, ArrowLeft: KEY.left, KeyD: KEY.right, ArrowRight: KEY.right,
  Space: KEY.handbrake, ShiftLeft: KEY.sprint, ShiftRight: KEY.sprint, KeyH: KEY.horn,
  KeyG: KEY.pin, // held: a grenade's pin out (items.js draws the arc)
};

window.addEventListener("keydown", (e) => {
  if (!game.running || e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
  if (e.code === "KeyE" || e.code === "KeyF") {
    if (!e.repeat) game.pressed |= KEY.use;
    e.preventDefault();
    return;
  }
  if (e.code === "KeyQ") {
    if (!e.repeat) game.pressed |= KEY.weapon;
    e.preventDefault();
    return;
  }
  if (e.code === "Escape") { showLobby(); return; }
  const k = KEYMAP[e.code];
  if (k) { game.keys |= k; e.preventDefault(); }
});
window.addEventListener("keyup", (e) => {
  const k = KEYMAP[e.code];
  if (k) game.keys &= ~k;
});
window.addEventListener("blur", () => { game.keys = 0; });

// ---- the level -------------------------------------------------------------

async function loadLevel(name) {
  if (game.levelName === name && game.level) return;
  game.levelName = name;
  const res = await fetch(`/levels/${encodeURIComponent(name)}`);
  if (!res.ok) { console.warn("level", name, res.status); return; }
  const level = await res.json();
  game.paths = buildPaths(level);
  game.level = level; // the feature modules see the level and its paths together
  const g = level.ground;
  game.cam = { x: (g.min[0] + g.max[0]) / 2, y: (g.min[1] + g.max[1]) / 2 };
}

// buildPaths turns the level into Path2Ds in metres, once: drawing them
// each frame under the camera's transform is a handful of fill calls.
function buildPaths(l) {
  const p = { lanes: [], centre: new Path2D(), pavements: [], buildings: {}, zones: [] };
  const nodes = new Map();
  for (const n of (l.roads && l.roads.nodes) || []) nodes.set(n.id, n.pos);
  const byWidth = new Map();
  for (const ln of (l.roads && l.roads.lanes) || []) {
    const a = nodes.get(ln.from), b = nodes.get(ln.to);
    if (!a || !b) continue;
    const dx = b[0] - a[0], dy = b[1] - a[1], len = Math.hypot(dx, dy) || 1;
    const rx = dy / len * ln.offset, ry = -dx / len * ln.offset; // to the right
    let path = byWidth.get(ln.width);
    if (!path) { path = new Path2D(); byWidth.set(ln.width, path); }
    path.moveTo(a[0] + rx, a[1] + ry);
    path.lineTo(b[0] + rx, b[1] + ry);
    // A two-way road's centreline once (its two lanes share it), so the
    // dashes of one do not fill the gaps of the other.
    if (ln.offset > 0 && ln.from < ln.to) { p.centre.moveTo(a[0], a[1]); p.centre.lineTo(b[0], b[1]); }
  }
  for (const [w, path] of byWidth) p.lanes.push({ width: w, path });
  for (const pv of l.pavements || []) {
    const path = new Path2D();
    pv.points.forEach((pt, i) => (i ? path.lineTo(pt[0], pt[1]) : path.moveTo(pt[0], pt[1])));
    if (pv.closed) path.closePath();
    p.pavements.push({ width: pv.width, path });
  }
  for (const b of l.buildings || []) {
    const use = b.use || "generic";
    const path = p.buildings[use] || (p.buildings[use] = new Path2D());
    b.footprint.forEach((pt, i) => (i ? path.lineTo(pt[0], pt[1]) : path.moveTo(pt[0], pt[1])));
    path.closePath();
  }
  for (const z of l.zones || []) {
    const path = new Path2D();
    z.polygon.forEach((pt, i) => (i ? path.lineTo(pt[0], pt[1]) : path.moveTo(pt[0], pt[1])));
    path.closePath();
    p.zones.push({ kind: z.kind, id: z.id, path, at: z.polygon[0] });
  }
  return p;
}

// ---- drawing ---------------------------------------------------------------

function resize() {
  const c = $("view");
  const dpr = window.devicePixelRatio || 1;
  c.width = Math.round(c.clientWidth * dpr);
  c.height = Math.round(c.clientHeight * dpr);
}
window.addEventListener("resize", resize);

// frameView is what the draw hooks get of a frame: the canvas (ctx), the
// zoom (s, pixels per metre), the draw list (f, a Float32Array of n
// entities of D.stride floats), the entity the camera follows (focus, -1
// for none), the time (now, ms), a blinker (blink, 0 or 1), the view's
// size (W, H, CSS pixels), the camera (cx, cy, metres) and the events
// the snapshots showed since the last frame (events: foi.events(),
// parsed; web/wasm events.go says what each holds). sx and sy put a point
// of the world on the screen; label writes a label over one.
function frameView(ctx, s, f, n, focus, now, W, H, cx, cy, events) {
  return {
    ctx, s, f, n, focus, now, W, H, cx, cy, events,
    blink: Math.floor(now / 180) % 2,
    sx: (x) => W / 2 + (x - cx) * s,
    sy: (y) => H / 2 - (y - cy) * s,
    label(text, colour, x, y) {
      ctx.fillStyle = "rgba(0,0,0,0.6)";
      ctx.fillText(text, x + 1, y - 15);
      ctx.fillStyle = colour;
      ctx.fillText(text, x, y - 16);
    },
  };
}

function draw(now) {
  requestAnimationFrame(draw);
  if (!game.running) return;
  const t0 = performance.now();
  const c = $("view"), ctx = c.getContext("2d");
  const dpr = window.devicePixelRatio || 1;
  const W = c.width / dpr, H = c.height / dpr;
  const n = foi.view();
  const f = n ? new Float32Array(foi.drawBuf.buffer, 0, n * D.stride) : new Float32Array(0);
  const got = foi.events();
  const events = got ? JSON.parse(got) : [];

  // The camera follows the own body (predicted), else the watched player.
  let focus = -1, watched = -1;
  for (let i = 0; i < n; i++) {
    const o = f[i * D.stride + D.own];
    if (o & OWN.predicted) focus = i;
    else if ((o & OWN.character) && focus < 0) focus = i;
    if ((o & OWN.watched) && (watched < 0 || f[i * D.stride + D.kind] !== K.character)) watched = i;
  }
  if (focus < 0) focus = watched;
  let speed = 0;
  if (focus >= 0) {
    game.ownPos = { x: f[focus * D.stride + D.x], y: f[focus * D.stride + D.y] };
    game.cam = { x: game.ownPos.x, y: game.ownPos.y };
    speed = f[focus * D.stride + D.speed];
  }
  // Zoom out with speed (at 30 m/s to about half), eased over a second.
  game.zoomNow += (game.zoom / (1 + speed / 25) - game.zoomNow) * 0.03;
  const s = game.zoomNow, cx = game.cam.x, cy = game.cam.y;
  const v = frameView(ctx, s, f, n, focus, now, W, H, cx, cy, events);
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = "#1b1f24";
  ctx.fillRect(0, 0, W, H);
  // World to screen: x east, y north (up).
  ctx.setTransform(s * dpr, 0, 0, -s * dpr, (W / 2 - cx * s) * dpr, (H / 2 + cy * s) * dpr);
  drawLevel(ctx, s);
  hooks.draw("under", v); // signals, the mission's marker, view cones
  // Vehicles under people. A kind drawn here neither as a vehicle nor as a
  // person, gate or dot (a camera) is a feature module's to draw.
  for (let pass = 0; pass < 2; pass++) {
    for (let i = 0; i < n; i++) {
      const b = i * D.stride;
      const k = f[b + D.kind];
      const vehicle = VEHICLE_KINDS.includes(k);
      if ((pass === 0) !== vehicle) continue;
      if (vehicle) drawVehicle(ctx, f, b, s, v.blink);
      else if (PERSON_KINDS.includes(k) || k === K.gate || k === K.projectile || k === K.item) drawThing(ctx, f, b, s);
    }
  }
  hooks.draw("over", v); // cameras, the grenade's arc, tracers, blasts, prompts
  // Labels, in screen space: each player by name.
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.font = "bold 12px system-ui, sans-serif";
  ctx.textAlign = "center";
  const names = new Map();
  for (const p of (game.state && game.state.players) || []) names.set(p.player, p.name);
  for (let i = 0; i < n; i++) {
    const b = i * D.stride;
    const player = f[b + D.player];
    if (!player) continue;
    const k = f[b + D.kind], act = f[b + D.act], own = f[b + D.own];
    if (k === K.character && act !== ACT.onFoot && act !== ACT.dead && act < ACT.emote && !(own & OWN.character)) continue;
    const label = (own & (OWN.predicted | OWN.character)) ? "you" : names.get(player) || "P" + player;
    v.label(label, label === "you" ? "#ffd23f" : playerColour(player), v.sx(f[b + D.x]), v.sy(f[b + D.y]));
  }
  hooks.draw("screen", v); // guards' marks, emotes
  drawScale(ctx, W, H, s);
  game.drawMs = game.drawMs * 0.95 + (performance.now() - t0) * 0.05;
}

function drawLevel(ctx, s) {
  const l = game.level, p = game.paths;
  if (!l) return;
  const g = l.ground;
  ctx.fillStyle = "#2b3a27";
  ctx.fillRect(g.min[0], g.min[1], g.max[0] - g.min[0], g.max[1] - g.min[1]);
  // A 50 m grid, faint, so motion reads even on an empty level.
  ctx.strokeStyle = "rgba(255,255,255,0.05)";
  ctx.lineWidth = 1 / s;
  ctx.beginPath();
  for (let x = Math.ceil(g.min[0] / 50) * 50; x <= g.max[0]; x += 50) { ctx.moveTo(x, g.min[1]); ctx.lineTo(x, g.max[1]); }
  for (let y = Math.ceil(g.min[1] / 50) * 50; y <= g.max[1]; y += 50) { ctx.moveTo(g.min[0], y); ctx.lineTo(g.max[0], y); }
  ctx.stroke();
  ctx.lineCap = "round";
  ctx.lineJoin = "round";
  for (const pv of p.pavements) {
    ctx.strokeStyle = "#7b7d78";
    ctx.lineWidth = pv.width;
    ctx.stroke(pv.path);
  }
  ctx.lineCap = "square";
  for (const ln of p.lanes) {
    ctx.strokeStyle = "#3b3f45";
    ctx.lineWidth = ln.width;
    ctx.stroke(ln.path);
  }
  ctx.strokeStyle = "rgba(240,200,80,0.7)";
  ctx.lineWidth = Math.max(0.2, 1.2 / s);
  ctx.setLineDash([3, 4]);
  ctx.stroke(p.centre);
  ctx.setLineDash([]);
  for (const z of p.zones) {
    ctx.fillStyle = z.kind === "safe" ? "rgba(66,217,107,0.12)" : "rgba(255,70,70,0.14)";
    ctx.strokeStyle = z.kind === "safe" ? "rgba(66,217,107,0.7)" : "rgba(255,70,70,0.7)";
    ctx.lineWidth = 2 / s;
    ctx.fill(z.path);
    ctx.setLineDash([6 / s, 4 / s]);
    ctx.stroke(z.path);
    ctx.setLineDash([]);
  }
  ctx.strokeStyle = "rgba(0,0,0,0.45)";
  ctx.lineWidth = 1.5 / s;
  for (const use in p.buildings) {
    ctx.fillStyle = BUILDING_COLOURS[use] || BUILDING_COLOURS.generic;
    ctx.fill(p.buildings[use]);
    ctx.stroke(p.buildings[use]);
  }
}

// drawVehicle draws a vehicle of the draw list at b, seen from above, by
// its model: a compact's short rounded body, a sedan's bonnet and boot, a
// sports car's wedge and stripes, a van's long roof, a truck's cab and
// box, a police car's light bar, a trailer's ribs.
function drawVehicle(ctx, f, b, s, blink) {
  const x = f[b + D.x], y = f[b + D.y], yaw = f[b + D.yaw];
  const hx = f[b + D.halfX], hy = f[b + D.halfY], flags = f[b + D.flags], k = f[b + D.kind], m = f[b + D.model];
  const own = f[b + D.own] & OWN.predicted, player = f[b + D.player], watched = f[b + D.own] & OWN.watched;
  ctx.save();
  ctx.translate(x, y);
  ctx.rotate(yaw);
  const grow = Math.max(1, 6 / (hx * s)); // at least 12 px long: a car stays visible zoomed out
  ctx.scale(grow, grow);
  if (own || watched) { // a halo, so your car is found at a glance
    ctx.fillStyle = "rgba(255,210,63,0.22)";
    ctx.beginPath();
    ctx.arc(0, 0, hx + 1.2, 0, 2 * Math.PI);
    ctx.fill();
  }
  let body = CAR_COLOURS[m % CAR_COLOURS.length];
  if (m === MODEL.van) body = "#c9c2b0";
  if (m === MODEL.truck) body = "#b5553c";
  if (m === MODEL.sports) body = "#d8342c";
  if (k === K.policeCar || m === MODEL.police) body = "#f4f7fb";
  if (player) body = playerColour(player);
  if (own) body = "#ffd23f";
  const wrecked = flags & F.wrecked;
  if (wrecked) body = "#3a2e28";
  const edge = own ? "#fff" : "rgba(0,0,0,0.7)";
  const line = own ? 0.35 : Math.max(0.12, 1 / s);
  const glass = "rgba(20,30,45,0.8)";
  ctx.lineWidth = line;
  ctx.strokeStyle = edge;
  const box = (x0, y0, w, h, r, fill) => {
    ctx.fillStyle = fill;
    ctx.beginPath();
    ctx.roundRect(x0, y0, w, h, r);
    ctx.fill();
    ctx.stroke();
  };
  if (m === MODEL.truck) {
    box(-hx, -hy, hx * 1.35, 2 * hy, 0.15, wrecked ? body : "#d9d4c7"); // the box
    box(hx * 0.42, -hy * 0.92, hx * 0.58, hy * 1.84, 0.35, body); // the cab
    ctx.fillStyle = glass;
    ctx.fillRect(hx * 0.8, -hy * 0.72, hx * 0.12, hy * 1.44);
  } else if (k === K.trailer || m === MODEL.trailer) {
    box(-hx, -hy, 2 * hx, 2 * hy, 0.1, wrecked ? body : "#d9d4c7");
    ctx.beginPath();
    for (let r = -hx + 0.8; r < hx; r += 0.8) { ctx.moveTo(r, -hy); ctx.lineTo(r, hy); }
    ctx.stroke();
  } else if (m === MODEL.van) {
    box(-hx, -hy, 2 * hx, 2 * hy, 0.3, body);
    ctx.fillStyle = "rgba(255,255,255,0.18)"; // the long roof
    ctx.fillRect(-hx * 0.9, -hy * 0.8, hx * 1.45, hy * 1.6);
    ctx.fillStyle = glass;
    ctx.fillRect(hx * 0.6, -hy * 0.8, hx * 0.18, hy * 1.6);
  } else if (m === MODEL.sports) {
    ctx.fillStyle = body; // a wedge: narrower at the nose
    ctx.beginPath();
    ctx.moveTo(-hx, -hy); ctx.lineTo(hx * 0.7, -hy); ctx.quadraticCurveTo(hx, -hy * 0.7, hx, 0);
    ctx.quadraticCurveTo(hx, hy * 0.7, hx * 0.7, hy); ctx.lineTo(-hx, hy); ctx.closePath();
    ctx.fill();
    ctx.stroke();
    ctx.fillStyle = "rgba(255,255,255,0.85)"; // the stripes
    ctx.fillRect(-hx, -hy * 0.3, 2 * hx * 0.95, hy * 0.16);
    ctx.fillRect(-hx, hy * 0.14, 2 * hx * 0.95, hy * 0.16);
    ctx.fillStyle = glass;
    ctx.fillRect(hx * 0.05, -hy * 0.75, hx * 0.3, hy * 1.5);
  } else {
    const compact = m === MODEL.compact;
    box(-hx, -hy, 2 * hx, 2 * hy, compact ? 0.55 : 0.35, body);
    ctx.fillStyle = glass; // windscreen toward the front (+x), rear window behind
    ctx.fillRect(hx * (compact ? 0.15 : 0.25), -hy * 0.78, hx * 0.3, hy * 1.56);
    ctx.fillRect(-hx * (compact ? 0.7 : 0.75), -hy * 0.7, hx * 0.2, hy * 1.4);
    if (!compact) { // the bonnet's and the boot's lines
      ctx.beginPath();
      ctx.moveTo(hx * 0.6, -hy * 0.8); ctx.lineTo(hx * 0.6, hy * 0.8);
      ctx.moveTo(-hx * 0.8, -hy * 0.8); ctx.lineTo(-hx * 0.8, hy * 0.8);
      ctx.stroke();
    }
  }
  if (k !== K.trailer) {
    ctx.fillStyle = "#fff7c8"; // headlights
    ctx.fillRect(hx - 0.15, -hy * 0.85, 0.15, 0.35);
    ctx.fillRect(hx - 0.15, hy * 0.85 - 0.35, 0.15, 0.35);
  }
  if (k === K.policeCar) {
    ctx.fillStyle = "#1d3f8a";
    ctx.fillRect(-hx * 0.2, -hy, hx * 0.4, 2 * hy);
  }
  ctx.fillStyle = flags & F.braking ? "#ff2a2a" : "#7a1a1a";
  ctx.fillRect(-hx, -hy * 0.85, 0.18, 0.35);
  ctx.fillRect(-hx, hy * 0.85 - 0.35, 0.18, 0.35);
  if (flags & F.siren) {
    ctx.fillStyle = blink ? "#ff2a2a" : "#2a5bff";
    ctx.fillRect(-0.2, -hy * 0.9, 0.5, hy * 0.9);
    ctx.fillStyle = blink ? "#2a5bff" : "#ff2a2a";
    ctx.fillRect(-0.2, 0, 0.5, hy * 0.9);
    ctx.globalAlpha = 0.25;
    ctx.beginPath();
    ctx.arc(0, 0, hx + 4, 0, 2 * Math.PI);
    ctx.fill();
    ctx.globalAlpha = 1;
  }
  if (wrecked) { // smoke
    ctx.fillStyle = "rgba(60,60,60,0.5)";
    ctx.beginPath();
    ctx.arc(hx * 0.4, 0, hy * 1.1, 0, 2 * Math.PI);
    ctx.fill();
  }
  ctx.restore();
}

function drawThing(ctx, f, b, s) {
  const x = f[b + D.x], y = f[b + D.y], yaw = f[b + D.yaw], k = f[b + D.kind];
  const own = f[b + D.own] & (OWN.predicted | OWN.character), player = f[b + D.player];
  const r = Math.max(f[b + D.halfX], 4 / s); // at least 4 px: a person stays visible zoomed out
  if (k === K.gate) {
    ctx.fillStyle = f[b + D.flags] & F.open ? "#4c8c4c" : "#c8a13a";
    ctx.fillRect(x - 2, y - 0.3, 4, 0.6);
    return;
  }
  if (k === K.projectile || k === K.item) { // a loose item glows: map.js labels it
    if (k === K.item) {
      ctx.fillStyle = "rgba(255,226,122,0.3)";
      ctx.beginPath();
      ctx.arc(x, y, Math.max(0.7, 9 / s), 0, 2 * Math.PI);
      ctx.fill();
    }
    ctx.fillStyle = k === K.item ? "#ffe27a" : "#ffffff";
    ctx.beginPath();
    ctx.arc(x, y, Math.max(0.3, 4 / s), 0, 2 * Math.PI);
    ctx.fill();
    return;
  }
  let colour = "#d9c7a7"; // pedestrians
  if (k === K.officer) colour = "#3d6cff";
  if (k === K.guard) colour = "#e0483b";
  if (k === K.character) colour = player ? playerColour(player) : "#fff";
  if (own) colour = "#ffd23f";
  if (f[b + D.act] === ACT.dead) {
    ctx.strokeStyle = "#8a2020";
    ctx.lineWidth = Math.max(0.15, 1.5 / s);
    ctx.beginPath();
    ctx.moveTo(x - r, y - r); ctx.lineTo(x + r, y + r);
    ctx.moveTo(x - r, y + r); ctx.lineTo(x + r, y - r);
    ctx.stroke();
    return;
  }
  if (own || (f[b + D.own] & OWN.watched)) {
    ctx.fillStyle = "rgba(255,210,63,0.3)";
    ctx.beginPath();
    ctx.arc(x, y, r + 1.2, 0, 2 * Math.PI);
    ctx.fill();
  }
  ctx.fillStyle = colour;
  ctx.strokeStyle = "rgba(0,0,0,0.8)";
  ctx.lineWidth = Math.max(0.06, 1 / s);
  ctx.beginPath();
  ctx.arc(x, y, r, 0, 2 * Math.PI);
  ctx.fill();
  ctx.stroke();
  ctx.beginPath(); // facing
  ctx.moveTo(x, y);
  ctx.lineTo(x + Math.cos(yaw) * r * 1.6, y + Math.sin(yaw) * r * 1.6);
  ctx.stroke();
  const w = f[b + D.weapon];
  if (w === WEAPON.pistol || w === WEAPON.smg) { // the gun in hand, held out the way they face
    const c = Math.cos(yaw), sn = Math.sin(yaw), side = r * 0.55, len = w === WEAPON.smg ? r * 2.4 : r * 1.9;
    ctx.strokeStyle = "#111";
    ctx.lineWidth = Math.max(0.12, (w === WEAPON.smg ? 3 : 2) / s);
    ctx.beginPath();
    ctx.moveTo(x + sn * side + c * r * 0.6, y - c * side + sn * r * 0.6); // the right hand
    ctx.lineTo(x + sn * side + c * len, y - c * side + sn * len);
    ctx.stroke();
  }
}

// drawScale draws the scale bar over the minimap (map.js: 200 px high,
// 52 px up from the bottom).
function drawScale(ctx, W, H, s) {
  const m = [5, 10, 20, 50, 100, 200, 500].find((v) => v * s >= 60) || 500;
  const y = H - 262;
  ctx.strokeStyle = "#e8ecf2";
  ctx.fillStyle = "#e8ecf2";
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.moveTo(W - 20 - m * s, y);
  ctx.lineTo(W - 20, y);
  ctx.stroke();
  ctx.font = "12px system-ui, sans-serif";
  ctx.textAlign = "right";
  ctx.fillText(`${m} m · north up`, W - 20, y - 6);
}

$("view").addEventListener("wheel", (e) => {
  e.preventDefault();
  game.zoom = Math.min(40, Math.max(0.5, game.zoom * Math.pow(1.0015, -e.deltaY)));
}, { passive: false });
$("view").addEventListener("mousemove", (e) => { game.mouse.x = e.offsetX; game.mouse.y = e.offsetY; });
// A click shorter than a tick still holds the trigger for one (pressed):
// the client makes a tap of it, which the server never loses.
$("view").addEventListener("mousedown", () => { game.keys |= KEY.aim; game.pressed |= KEY.aim; });
window.addEventListener("mouseup", () => { game.keys &= ~KEY.aim; });

// ---- the HUD -----------------------------------------------------------------

function hud() {
  if (!game.running) return;
  const st = JSON.parse(foi.state());
  game.state = st;
  hooks.hud(st);
  const now = performance.now();
  if (now - game.lastBytesAt >= 1000) {
    game.bps = (st.bytesIn - game.lastBytes) * 1000 / (now - game.lastBytesAt);
    game.lastBytes = st.bytesIn;
    game.lastBytesAt = now;
  }
  // The player's HUD (stars, cash, health, the car) is hud.js's.
  $("ping").textContent = st.pingMs ? `${st.pingMs.toFixed(1)} ms` : "–";
  $("pace").textContent = (game.welcome && !game.welcome.spectate && st.pace) || "–";
  $("bps").textContent = `${(game.bps / 1024).toFixed(1)} KiB/s`;
  $("entities").textContent = `${st.entities || 0}`;
  $("tiers").textContent = (st.tiers || [0, 0, 0, 0]).join(" / ");
  $("snapshots").textContent = `${st.snapshots || 0}` + (st.resyncs ? ` (${st.resyncs} refused)` : "");
  $("keyframes").textContent = `${st.keyframes || 0}`;
  $("corrections").textContent = `${st.corrections || 0} of ${st.reconciles || 0}` +
    (st.corrections ? ` (last ${(st.lastCorrection * 100).toFixed(1)} cm)` : "");
  $("drawMs").textContent = `${game.drawMs.toFixed(2)} ms/frame`;
  if (game.welcome && game.welcome.spectate) updateWatch(st.players || []);
}

function updateWatch(players) {
  const sel = $("watchSelect");
  const want = players.map((p) => `${p.player}:${p.name}`).join(",");
  if (sel.dataset.players === want) return;
  sel.dataset.players = want;
  sel.innerHTML = "";
  for (const p of players) {
    const o = document.createElement("option");
    o.value = p.player;
    o.textContent = p.name || `player ${p.player}`;
    if (p.player === (game.watching || game.welcome.watch)) o.selected = true;
    sel.appendChild(o);
  }
}

$("watchSelect").addEventListener("change", (e) => {
  join(game.room, Object.assign({}, game.opts, { spectate: true, watch: e.target.value }));
});

$("leave").addEventListener("click", showLobby);

// ---- start -------------------------------------------------------------------

// start opens the lobby's joins and runs the tick, the frames and the HUD.
export function start() {
  lobby.ready(join, foi.levels.split(","));
  comeBackFromReload();
  setInterval(pump, 4);
  setInterval(hud, 250);
  requestAnimationFrame(draw);
}
