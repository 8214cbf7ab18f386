// Stealth on the page: the "seen" indicator (the server's stealth frames),
// the level's cameras drawn from the snapshots, the guards' "?" and "!",
// and, while debug commands are on, the guards' and cameras' view cones
// (their reach from the debug readout, twice a second; where they stand
// and face from the snapshots, each frame).

import { K, F, ACT, D } from "./client.js";
import { game } from "./game.js";
import * as hooks from "./hooks.js";

export const stealth = {
  frame: null,     // the last stealth frame: {seen, guard, camera, chased, alert}
  sentries: new Map(), // wire id -> {phase, range, cone}, from the readout
  cameras: new Map(),  // wire id -> {arc, range, broken}, from the readout
};

hooks.onReset(() => {
  stealth.frame = null;
  stealth.sentries.clear();
  stealth.cameras.clear();
  indicator();
});

hooks.onText("stealth", (m) => {
  stealth.frame = m;
  indicator();
});
hooks.onHUD(indicator); // you move toward or away from the zones

hooks.onText("readout", (m) => {
  if (!m.stealth) return;
  stealth.sentries.clear();
  for (const s of m.stealth.sentries || []) stealth.sentries.set(s.id, s);
  stealth.cameras.clear();
  for (const c of m.stealth.cameras || []) if (c.id) stealth.cameras.set(c.id, c);
});

// ALERT_RANGE (m) is how near a restricted zone the room's alert shows:
// the guards on the lookout are theirs, and across the city it would only
// puzzle. The page's choice.
const ALERT_RANGE = 80;

// nearRestricted reports whether you stand within ALERT_RANGE of a
// restricted zone (its bounding box).
function nearRestricted() {
  const me = game.ownPos;
  if (!me || !game.welcome) return true;
  for (const z of game.welcome.zones || []) {
    if (z.kind !== "restricted") continue;
    const xs = z.polygon.map((p) => p[0]), ys = z.polygon.map((p) => p[1]);
    const dx = Math.max(Math.min(...xs) - me.x, 0, me.x - Math.max(...xs));
    const dy = Math.max(Math.min(...ys) - me.y, 0, me.y - Math.max(...ys));
    if (Math.hypot(dx, dy) <= ALERT_RANGE) return true;
  }
  return false;
}

// indicator shows the HUD's indicator: whether a guard or a camera sees
// you, whether a guard is after you, and the room's alert near the
// restricted zones.
function indicator() {
  const el = document.getElementById("seen");
  if (!el) return;
  const f = stealth.frame;
  const alert = f && f.alert && nearRestricted();
  if (!f || (!f.seen && !f.chased && !alert)) {
    el.hidden = true;
    return;
  }
  el.hidden = false;
  const by = [f.guard && "a guard", f.camera && "a camera"].filter(Boolean).join(" and ");
  el.textContent = f.chased ? "CHASED" : f.seen ? `SEEN by ${by}` : "ALERT: the guards are on the lookout";
  el.className = f.chased ? "chased" : f.seen ? "seen" : "alert";
  el.title = (f.alert ? "the room's alert is up: the guards are on the lookout. " : "") +
    (f.seen ? `${by} has you in sight` : "nobody sees you now");
}

const CONE_COLOURS = {
  idle: "rgba(255,235,120,0.10)", suspicious: "rgba(255,170,40,0.20)",
  alert: "rgba(255,60,40,0.22)", searching: "rgba(255,170,40,0.16)",
};

// The view cones, while debug commands are on, under the entities.
hooks.onDraw("under", ({ ctx, f, n, s }) => {
  if (!game.welcome || !game.welcome.debug) return;
  for (let i = 0; i < n; i++) {
    const b = i * D.stride, k = f[b + D.kind], id = f[b + D.eid];
    let reach, half, colour;
    if (k === K.guard) {
      const r = stealth.sentries.get(id);
      if (!r || f[b + D.act] === ACT.dead) continue;
      reach = r.range; half = r.cone; colour = CONE_COLOURS[r.phase] || CONE_COLOURS.idle;
    } else if (k === K.camera) {
      const r = stealth.cameras.get(id);
      if (!r || (f[b + D.flags] & F.wrecked)) continue;
      reach = r.range; half = r.arc / 2;
      colour = f[b + D.flags] & F.alert ? CONE_COLOURS.alert : "rgba(120,200,255,0.13)";
    } else continue;
    const x = f[b + D.x], y = f[b + D.y], yaw = f[b + D.yaw];
    ctx.fillStyle = colour;
    ctx.strokeStyle = colour.replace(/[\d.]+\)$/, "0.5)");
    ctx.lineWidth = 1 / s;
    ctx.beginPath();
    ctx.moveTo(x, y);
    ctx.arc(x, y, reach, yaw - half, yaw + half);
    ctx.closePath();
    ctx.fill();
    ctx.stroke();
  }
});

// The cameras, over the entities.
hooks.onDraw("over", ({ ctx, f, n, s, blink }) => {
  for (let i = 0; i < n; i++) {
    const b = i * D.stride;
    if (f[b + D.kind] === K.camera) drawCamera(ctx, f, b, s, blink);
  }
});

// drawCamera draws a camera of the draw list at b: a box on its mount
// with its lens toward where it faces, its light red while it has someone
// in view; shot out, grey and crossed.
function drawCamera(ctx, f, b, s, blink) {
  const x = f[b + D.x], y = f[b + D.y], yaw = f[b + D.yaw], flags = f[b + D.flags];
  const broken = flags & F.wrecked;
  const r = Math.max(0.5, 5 / s); // at least 10 px: a camera stays visible zoomed out
  ctx.save();
  ctx.translate(x, y);
  ctx.rotate(yaw);
  ctx.fillStyle = broken ? "#55595e" : "#20242a";
  ctx.strokeStyle = broken ? "#8a8f96" : "#c8d0da";
  ctx.lineWidth = Math.max(0.06, 1 / s);
  ctx.fillRect(-r, -r * 0.6, 2 * r, 1.2 * r);
  ctx.strokeRect(-r, -r * 0.6, 2 * r, 1.2 * r);
  ctx.fillStyle = broken ? "#3a3d41" : "#7fc8ff"; // the lens
  ctx.fillRect(r * 0.6, -r * 0.35, r * 0.7, r * 0.7);
  if (broken) {
    ctx.beginPath();
    ctx.moveTo(-r, -r); ctx.lineTo(r, r);
    ctx.moveTo(-r, r); ctx.lineTo(r, -r);
    ctx.stroke();
  } else if ((flags & F.alert) ? blink : true) {
    ctx.fillStyle = flags & F.alert ? "#ff3a2a" : "#3aff6a";
    ctx.beginPath();
    ctx.arc(-r * 0.4, 0, r * 0.25, 0, 2 * Math.PI);
    ctx.fill();
  }
  ctx.restore();
}

// The marks over the guards (and any other person not a player), in
// screen space.
hooks.onDraw("screen", (v) => {
  const { f, n } = v;
  for (let i = 0; i < n; i++) {
    const b = i * D.stride;
    if (f[b + D.player] || f[b + D.kind] === K.camera) continue;
    const mark = stealthLabel(f, b);
    if (mark) v.label(mark.text, mark.colour, v.sx(f[b + D.x]), v.sy(f[b + D.y]));
  }
});

// stealthLabel returns the mark over a guard of the draw list at b ("?"
// suspicious or searching, "!" alert) and its colour, or null.
export function stealthLabel(f, b) {
  const ph = f[b + D.flags] & (F.alert | F.suspicious);
  if (!ph) return null;
  if (ph === F.alert) return { text: "!", colour: "#ff3a2a" };
  return { text: "?", colour: ph === F.suspicious ? "#ffd23f" : "#ff9a2a" };
}

// The browser tests read these globals (stealth_browser_test.go): the
// stealth state, the mark, and the draw list's layout and kinds, which
// are the Go side's (foi.constants).
Object.assign(window, {
  stealth, stealthLabel,
  D_STRIDE: D.stride, D_KIND: D.kind, K_GUARD: K.guard, K_CAMERA: K.camera,
});
