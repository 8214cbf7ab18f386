// The traffic signals on the map and the minimap with the race gates.
//
// A signal runs its cycle on the room's tick, a pure function of the level
// and the tick (levels.Signal, FORMAT.md; systems/signals Plan.At), so the
// page works out what each shows from the level JSON and the server's tick,
// as the server does: every time rounded to whole ticks as Go's
// math.Round(float64(float32(s)) * 60) does, halves up. The server sends
// only the signals a mission holds by hand (the "signals" frame).
//
// app.js calls the hooks: onWelcome and onSignals with their frames,
// onLevel once the level JSON is in, drawMap under the camera's transform
// after the level, and hud a few times a second with the client's state.
"use strict";

const foiSignals = (() => {
  const TICK_RATE = 60;
  // Lights: components.Light, the same numbers.
  const NONE = 0, GREEN = 1, AMBER = 2, RED = 3;
  const COLOURS = { [GREEN]: "#3ddc84", [AMBER]: "#ffbf00", [RED]: "#ff4d4d" };
  const RACE_COLOURS = ["#ffb74d", "#4fc3f7", "#ba68c8", "#81c784"];

  const st = {
    signals: [],     // {id, node: [x, y], plan, heads: [{lane, mask, a: [x, y], b: [x, y]}]}
    byId: new Map(),
    laneCount: 0,
    held: new Map(), // id -> phase held (-1: red)
    races: [],       // the welcome's
    zones: [],       // the welcome's
    paths: null,     // app.js's Path2Ds of the level (the roads' centrelines)
    ground: null,
    tick: 0, tickAt: 0, // the server's tick as last read, and when (performance.now)
    minimap: null,
  };

  // ticks rounds seconds to whole ticks as the server does.
  const ticks = (s) => Math.round(Math.fround(s) * TICK_RATE);

  // plan is a signal's cycle in ticks (systems/signals NewPlan).
  function plan(sg) {
    const p = { green: sg.phases.map((ph) => ticks(ph.green)), amber: ticks(sg.amber || 0), offset: ticks(sg.offset || 0), cycle: 0 };
    for (const g of p.green) p.cycle += g + p.amber;
    return p;
  }

  // phaseAt returns [phase, amber] of plan p at tick (Plan.At).
  function phaseAt(p, tick) {
    let t = (tick + p.offset) % p.cycle;
    for (let k = 0; k < p.green.length; k++) {
      if (t < p.green[k]) return [k, false];
      if (t < p.green[k] + p.amber) return [k, true];
      t -= p.green[k] + p.amber;
    }
    return [p.green.length - 1, true];
  }

  // light is a lane's light (systems/signals light): mask its phases,
  // phase the signal's (-1 red for all), next the phase after it.
  function light(mask, phase, next, amber) {
    if (phase < 0 || !(mask & (1 << phase))) return RED;
    if (!amber || (mask & (1 << next))) return GREEN;
    return AMBER;
  }

  // stateOf returns [phase, amber] of signal sg at tick, a hold first.
  function stateOf(sg, tick) {
    if (st.held.has(sg.id)) return [st.held.get(sg.id), false];
    return phaseAt(sg.plan, tick);
  }

  function headLights(sg, tick) {
    const [phase, amber] = stateOf(sg, tick);
    const next = (phase + 1) % sg.plan.green.length;
    return sg.heads.map((h) => light(h.mask, phase, next, amber));
  }

  function onLevel(level, paths) {
    st.signals = []; st.byId = new Map(); st.paths = paths; st.ground = level.ground;
    const roads = level.roads || {};
    const nodes = new Map();
    for (const n of roads.nodes || []) nodes.set(n.id, n.pos);
    const lanes = roads.lanes || [];
    st.laneCount = lanes.length;
    // Each node's box: the farthest lane edge and two metres (nav.Map.NodeRadius).
    const radius = new Map();
    for (const ln of lanes) {
      const r = ln.offset + ln.width / 2 + 2;
      for (const n of [ln.from, ln.to]) radius.set(n, Math.max(radius.get(n) || 0, r));
    }
    for (const sg of roads.signals || []) {
      const at = nodes.get(sg.node);
      if (!at) continue;
      const s = { id: sg.id, node: at, plan: plan(sg), heads: [] };
      const rad = radius.get(sg.node) || 0;
      lanes.forEach((ln, i) => {
        if (ln.to !== sg.node) return;
        const a = nodes.get(ln.from);
        if (!a) return;
        let mask = 0;
        sg.phases.forEach((ph, k) => { if (ph.lanes.includes(ln.id)) mask |= 1 << k; });
        // The stop line: where the lane's centreline meets the box.
        const dx = at[0] - a[0], dy = at[1] - a[1], len = Math.hypot(dx, dy) || 1;
        const ux = dx / len, uy = dy / len, rx = uy, ry = -ux; // along, to the right
        const back = Math.sqrt(Math.max(rad * rad - ln.offset * ln.offset, 0));
        const cx = at[0] + rx * ln.offset - ux * back, cy = at[1] + ry * ln.offset - uy * back;
        const w = ln.width / 2;
        s.heads.push({ lane: i, mask, a: [cx - rx * w, cy - ry * w], b: [cx + rx * w, cy + ry * w] });
      });
      st.signals.push(s);
      st.byId.set(s.id, s);
    }
  }

  function onWelcome(m) {
    st.held = new Map();
    st.races = m.races || [];
    st.zones = m.zones || [];
    st.tick = m.tick || 0;
    st.tickAt = performance.now();
  }

  function onSignals(m) {
    st.held = new Map();
    for (const h of m.held || []) st.held.set(h.id, h.phase);
  }

  // now returns the server's tick as the page reckons it: the last one read
  // and the time since.
  function now() {
    return Math.max(0, Math.floor(st.tick + (performance.now() - st.tickAt) * TICK_RATE / 1000));
  }

  // drawMap draws every signal's lights across its lanes at their stop
  // lines, and a ring round a signal held by hand. ctx is in metres.
  function drawMap(ctx, s) {
    if (!st.signals.length) return;
    const tick = now();
    // One path per colour: three strokes for every light in the city.
    const paths = { [GREEN]: new Path2D(), [AMBER]: new Path2D(), [RED]: new Path2D() };
    const held = new Path2D();
    for (const sg of st.signals) {
      const ls = headLights(sg, tick);
      sg.heads.forEach((h, k) => {
        paths[ls[k]].moveTo(h.a[0], h.a[1]);
        paths[ls[k]].lineTo(h.b[0], h.b[1]);
      });
      if (st.held.has(sg.id)) {
        held.moveTo(sg.node[0] + 12, sg.node[1]);
        held.arc(sg.node[0], sg.node[1], 12, 0, 2 * Math.PI);
      }
    }
    ctx.lineCap = "butt";
    ctx.lineWidth = 0.9;
    for (const c of [GREEN, AMBER, RED]) {
      ctx.strokeStyle = COLOURS[c];
      ctx.stroke(paths[c]);
    }
    ctx.strokeStyle = "rgba(255,255,255,0.8)";
    ctx.lineWidth = 2 / s;
    ctx.setLineDash([4 / s, 3 / s]);
    ctx.stroke(held);
    ctx.setLineDash([]);
  }

  // minimapCanvas makes the minimap's canvas in the game view, once.
  function minimapCanvas() {
    if (st.minimap) return st.minimap;
    const c = document.createElement("canvas");
    c.id = "minimap";
    c.className = "overlay";
    c.title = "minimap: roads, zones, race gates, you";
    Object.assign(c.style, { right: "12px", bottom: "52px", width: "200px", height: "200px", padding: "0" });
    document.getElementById("game").appendChild(c);
    st.minimap = c;
    return c;
  }

  // drawMinimap draws the whole level small: the roads, the restricted and
  // safe zones, each race's numbered gates (a loop's first also marked
  // with an L), the held signals, the mission's marker and the own position (own: {x, y} or
  // null).
  function drawMinimap(own) {
    const g = st.ground;
    if (!g) return;
    const c = minimapCanvas();
    const dpr = window.devicePixelRatio || 1;
    const W = 200, H = 200;
    if (c.width !== W * dpr) { c.width = W * dpr; c.height = H * dpr; }
    const ctx = c.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    ctx.fillStyle = "rgba(18,21,27,0.85)";
    ctx.fillRect(0, 0, W, H);
    const sx = (W - 8) / (g.max[0] - g.min[0]), sy = (H - 8) / (g.max[1] - g.min[1]);
    const k = Math.min(sx, sy);
    ctx.setTransform(k * dpr, 0, 0, -k * dpr, (4 - g.min[0] * k) * dpr, (H - 4 + g.min[1] * k) * dpr);
    if (st.paths) {
      ctx.strokeStyle = "#59606b";
      ctx.lineWidth = 5 / k;
      ctx.stroke(st.paths.centre);
    }
    for (const z of st.zones) {
      ctx.beginPath();
      z.polygon.forEach((p, i) => (i ? ctx.lineTo(p[0], p[1]) : ctx.moveTo(p[0], p[1])));
      ctx.closePath();
      ctx.fillStyle = z.kind === "restricted" ? "rgba(255,70,70,0.45)" : "rgba(66,217,107,0.35)";
      ctx.fill();
    }
    // Each race's gates in its colour, numbered in order below (the route
    // between them is the roads', which the level does not say).
    st.races.forEach((r, ri) => {
      ctx.strokeStyle = RACE_COLOURS[ri % RACE_COLOURS.length];
      ctx.lineWidth = 3 / k;
      for (const gt of r.gates) {
        // The gate's line across the road, drawn a little wider to show.
        const rx = Math.sin(gt.yaw), ry = -Math.cos(gt.yaw), w = Math.max(gt.width, 6 / k) / 2;
        ctx.beginPath();
        ctx.moveTo(gt.pos[0] - rx * w, gt.pos[1] - ry * w);
        ctx.lineTo(gt.pos[0] + rx * w, gt.pos[1] + ry * w);
        ctx.stroke();
      }
    });
    for (const [id] of st.held) {
      const sg = st.byId.get(id);
      if (!sg) continue;
      ctx.fillStyle = "#ffffff";
      ctx.beginPath();
      ctx.arc(sg.node[0], sg.node[1], 3 / k, 0, 2 * Math.PI);
      ctx.fill();
    }
    const mark = typeof foiMissions !== "undefined" && foiMissions.marker(); // the mission's marker (missions.js)
    if (mark) {
      ctx.strokeStyle = "#e040fb";
      ctx.lineWidth = 2 / k;
      ctx.beginPath();
      ctx.arc(mark[0], mark[1], 6 / k, 0, 2 * Math.PI);
      ctx.stroke();
    }
    if (own) {
      ctx.fillStyle = "#ffd23f";
      ctx.beginPath();
      ctx.arc(own.x, own.y, 4 / k, 0, 2 * Math.PI);
      ctx.fill();
    }
    // The gates' numbers, upright: in screen space.
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.font = "9px system-ui, sans-serif";
    ctx.textAlign = "center";
    st.races.forEach((r, ri) => {
      ctx.fillStyle = RACE_COLOURS[ri % RACE_COLOURS.length];
      r.gates.forEach((gt, i) => {
        const label = i === 0 && r.loop ? "1L" : String(i + 1);
        ctx.fillText(label, 4 + (gt.pos[0] - g.min[0]) * k + 6, H - 4 - (gt.pos[1] - g.min[1]) * k - 4);
      });
    });
  }

  // hud takes the client's state (foi.state(): its tick) and the own
  // position, and redraws the minimap.
  function hud(state, own) {
    if (state && state.tick) {
      st.tick = state.tick;
      st.tickAt = performance.now();
    }
    drawMinimap(own);
  }

  // lightsAt returns every lane's light at tick (NONE where no signal
  // stands), as the server's components.Signals resource has it: for the
  // tests and the console.
  function lightsAt(tick) {
    const out = new Array(st.laneCount).fill(NONE);
    for (const sg of st.signals) {
      const ls = headLights(sg, tick);
      sg.heads.forEach((h, k) => { out[h.lane] = ls[k]; });
    }
    return out;
  }

  function info() {
    return {
      signals: st.signals.length,
      held: Object.fromEntries(st.held),
      races: st.races.length,
      gates: st.races.reduce((n, r) => n + r.gates.length, 0),
      zones: st.zones.length,
      minimap: !!st.minimap,
      tick: now(),
    };
  }

  return { onLevel, onWelcome, onSignals, drawMap, hud, lightsAt, info, now };
})();
window.foiSignals = foiSignals;
