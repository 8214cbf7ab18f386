// Stealth on the page: the "seen" indicator (the server's stealth frames),
// the level's cameras drawn from the snapshots, and, while debug commands
// are on, the guards' and cameras' view cones (their reach from the debug
// readout, twice a second; where they stand and face from the snapshots,
// each frame). app.js calls the stealth* functions below; the constants
// (D_*, K_*, F_*) and `game` are app.js's.
"use strict";

const stealth = {
  frame: null,     // the last stealth frame: {seen, guard, camera, chased, alert}
  sentries: new Map(), // wire id -> {phase, range, cone}, from the readout
  cameras: new Map(),  // wire id -> {arc, range, broken}, from the readout
};

// stealthReset forgets the last room's.
function stealthReset() {
  stealth.frame = null;
  stealth.sentries.clear();
  stealth.cameras.clear();
  stealthIndicator();
}

// stealthText takes the text frames stealth reads: "stealth" and the
// debug "readout".
function stealthText(m) {
  if (m.type === "stealth") {
    stealth.frame = m;
    stealthIndicator();
  } else if (m.type === "readout" && m.stealth) {
    stealth.sentries.clear();
    for (const s of m.stealth.sentries || []) stealth.sentries.set(s.id, s);
    stealth.cameras.clear();
    for (const c of m.stealth.cameras || []) if (c.id) stealth.cameras.set(c.id, c);
  }
}

// stealthIndicator shows the HUD's indicator: whether a guard or a camera
// sees you, whether a guard is after you, and the room's alert.
function stealthIndicator() {
  const el = document.getElementById("seen");
  if (!el) return;
  const f = stealth.frame;
  if (!f || (!f.seen && !f.chased && !f.alert)) {
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

// stealthCones draws, while debug commands are on, each guard's and
// camera's view cone under the entities: f is the draw list, n its
// entities, s the zoom.
function stealthCones(ctx, f, n, s) {
  if (!game.welcome || !game.welcome.debug) return;
  for (let i = 0; i < n; i++) {
    const b = i * D_STRIDE, k = f[b + D_KIND], id = f[b + D_EID];
    let reach, half, colour;
    if (k === K_GUARD) {
      const r = stealth.sentries.get(id);
      if (!r || f[b + D_ACT] === ACT_DEAD) continue;
      reach = r.range; half = r.cone; colour = CONE_COLOURS[r.phase] || CONE_COLOURS.idle;
    } else if (k === K_CAMERA) {
      const r = stealth.cameras.get(id);
      if (!r || (f[b + D_FLAGS] & F_WRECKED)) continue;
      reach = r.range; half = r.arc / 2;
      colour = f[b + D_FLAGS] & F_ALERT ? CONE_COLOURS.alert : "rgba(120,200,255,0.13)";
    } else continue;
    const x = f[b + D_X], y = f[b + D_Y], yaw = f[b + D_YAW];
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
}

// stealthCamera draws a camera of the draw list at b: a box on its mount
// with its lens toward where it faces, its light red while it has someone
// in view; shot out, grey and crossed.
function stealthCamera(ctx, f, b, s, blink) {
  const x = f[b + D_X], y = f[b + D_Y], yaw = f[b + D_YAW], flags = f[b + D_FLAGS];
  const broken = flags & F_WRECKED;
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
  } else if ((flags & F_ALERT) ? blink : true) {
    ctx.fillStyle = flags & F_ALERT ? "#ff3a2a" : "#3aff6a";
    ctx.beginPath();
    ctx.arc(-r * 0.4, 0, r * 0.25, 0, 2 * Math.PI);
    ctx.fill();
  }
  ctx.restore();
}

// stealthLabel returns the mark over a guard of the draw list at b ("?"
// suspicious or searching, "!" alert) and its colour, or null.
function stealthLabel(f, b) {
  const ph = f[b + D_FLAGS] & (F_ALERT | F_SUSPICIOUS);
  if (!ph) return null;
  if (ph === F_ALERT) return { text: "!", colour: "#ff3a2a" };
  return { text: "?", colour: ph === F_SUSPICIOUS ? "#ffd23f" : "#ff9a2a" };
}
