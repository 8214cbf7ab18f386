// Combat on the page: what the snapshots' events say happened, drawn
// (web/wasm events.go works out each one: where a round stopped, whom a
// hit was on, whether it was yours). A shot is a tracer from the muzzle to
// where the round stopped and a muzzle flash; a hit a spark where it
// landed; a blast a flash and a ring. Your own hits show a hit marker on
// the crosshair (red when it killed); a hit on you a red arc toward where
// it came from, and the screen's edges redden as your health runs low.
// On foot with a gun in hand the crosshair follows the pointer, and the
// weapon HUD names the gun and the rounds left. Dead, the death screen
// says what killed you (foi.state().death: the server's cause when it
// sends one, else the page's, from the last hit on you) and counts down
// to the respawn.

import { K, D, OWN, WEAPON } from "./client.js";
import { $, game } from "./game.js";
import * as hooks from "./hooks.js";
import { icon } from "./icons.js";

// How long each effect shows, in ms: the page's choice.
const TRACER_MS = 220;
const SPARK_MS = 300;
const BLAST_MS = 600;
const MARKER_MS = 300;
const HURT_MS = 1200;
const NOTE_MS = 3000;

const st = {
  items: [],      // the welcome's items
  inv: null,      // the last inventory frame
  tracers: [],    // {x, y, ex, ey, at, mine, hit}
  sparks: [],     // {x, y, at, kill, me}
  blasts: [],     // {x, y, r, at}
  marker: null,   // {at, kill}: your last hit
  hurt: [],       // {fx, fy, at}: hits on you, from where
  jacks: [],      // {x, y, at, text}: carjacks
  dead: false,
  where: "",      // where the dead come back
  crosshair: false,
  // What the tests read: how many of each the page drew, the last tracer
  // and the death screen's text.
  counts: { shots: 0, mine: 0, markers: 0, kills: 0, hurt: 0, blasts: 0 },
  lastTracer: null,
  lastHit: null,  // the last tracer that ended on a body
  deathText: "",
};

hooks.onReset(() => {
  st.inv = null; st.tracers = []; st.sparks = []; st.blasts = []; st.marker = null; st.hurt = []; st.jacks = [];
  st.dead = false; st.deathText = "";
  $("deathScreen").hidden = true;
  $("backNote").hidden = true;
  renderWeapon();
});

hooks.onText("welcome", (m) => { st.items = m.items || []; });
hooks.onText("inventory", (m) => {
  st.inv = m;
  renderWeapon();
});

// ---- the weapon in hand ----------------------------------------------------------

const WEAPON_ICONS = { [WEAPON.pistol]: "pistol", [WEAPON.smg]: "smg", [WEAPON.grenade]: "grenade" };

// inHand returns the item in hand and the rounds it has left, or null.
function inHand() {
  const inv = st.inv;
  if (!inv || !inv.hand) return null;
  const gun = st.items.find((it) => it.weapon === inv.hand);
  if (!gun) return null;
  const ammo = gun.ammo ? st.items.find((it) => it.name === gun.ammo) : gun;
  let rounds = 0;
  for (const s of inv.slots) if (ammo && s.item === ammo.id) rounds += s.count;
  return { gun, rounds };
}

function renderWeapon() {
  const h = inHand();
  $("weaponHUD").hidden = !h;
  if (!h) return;
  $("weaponIcon").replaceChildren(icon(WEAPON_ICONS[st.inv.hand] || "pistol", 28));
  $("weaponName").textContent = h.gun.label;
  $("weaponAmmo").textContent = String(h.rounds);
  $("weaponAmmo").className = h.rounds ? "" : "empty";
  $("weaponAmmo").title = h.rounds ? "rounds left" : "no rounds left: find or buy ammunition";
}

// ---- the events --------------------------------------------------------------------

function take(events, now) {
  for (const e of events) {
    switch (e.k) {
      case "shot":
        st.tracers.push({ x: e.x, y: e.y, ex: e.ex, ey: e.ey, at: now, mine: e.mine, hit: e.hit });
        st.lastTracer = { x: e.x, y: e.y, ex: e.ex, ey: e.ey, mine: e.mine, hit: e.hit };
        if (e.hit) st.lastHit = st.lastTracer;
        st.counts.shots++;
        if (e.mine) st.counts.mine++;
        break;
      case "hit":
        st.sparks.push({ x: e.x, y: e.y, at: now, kill: e.kill, me: e.me });
        if (e.mine) {
          st.marker = { at: now, kill: e.kill };
          st.counts.markers++;
          if (e.kill) st.counts.kills++;
        }
        if (e.me) {
          st.hurt.push({ fx: e.fx, fy: e.fy, at: now });
          st.counts.hurt++;
        }
        break;
      case "blast":
        st.blasts.push({ x: e.x, y: e.y, r: e.r, at: now });
        st.counts.blasts++;
        break;
      case "carjack":
        st.jacks.push({ x: e.x, y: e.y, at: now, text: e.me ? "Carjacked!" : e.mine ? "Yours now" : "Carjack" });
        if (e.me) note("Someone pulled you out of your car.");
        break;
    }
  }
}

// Over the entities, in metres: the tracers, the muzzle flashes, the
// sparks and the blasts.
hooks.onDraw("over", ({ ctx, s, now, events }) => {
  take(events, now);
  const px = 1 / s;
  st.tracers = st.tracers.filter((t) => now - t.at < TRACER_MS);
  ctx.lineCap = "round";
  for (const t of st.tracers) {
    const k = 1 - (now - t.at) / TRACER_MS;
    ctx.strokeStyle = t.mine ? `rgba(255,240,150,${0.95 * k})` : `rgba(255,200,120,${0.85 * k})`;
    ctx.lineWidth = (t.mine ? 2.5 : 2) * px;
    ctx.beginPath();
    ctx.moveTo(t.x, t.y);
    ctx.lineTo(t.ex, t.ey);
    ctx.stroke();
    if (now - t.at < TRACER_MS / 3) { // the muzzle flash
      ctx.fillStyle = `rgba(255,220,90,${k})`;
      ctx.beginPath();
      ctx.arc(t.x, t.y, Math.max(0.35, 5 * px), 0, 2 * Math.PI);
      ctx.fill();
    }
  }
  st.sparks = st.sparks.filter((h) => now - h.at < SPARK_MS);
  for (const h of st.sparks) {
    const k = (now - h.at) / SPARK_MS;
    ctx.strokeStyle = h.kill ? `rgba(255,255,255,${1 - k})` : `rgba(255,60,40,${1 - k})`;
    ctx.lineWidth = 2 * px;
    ctx.beginPath();
    ctx.arc(h.x, h.y, Math.max(0.4, 4 * px) + k * Math.max(0.8, 10 * px), 0, 2 * Math.PI);
    ctx.stroke();
  }
  st.blasts = st.blasts.filter((b) => now - b.at < BLAST_MS);
  for (const b of st.blasts) {
    const k = (now - b.at) / BLAST_MS;
    ctx.fillStyle = `rgba(255,${Math.round(200 - 120 * k)},40,${0.55 * (1 - k)})`;
    ctx.beginPath();
    ctx.arc(b.x, b.y, b.r * (0.4 + 0.6 * k), 0, 2 * Math.PI);
    ctx.fill();
    ctx.strokeStyle = `rgba(255,255,255,${0.6 * (1 - k)})`;
    ctx.lineWidth = 3 * px;
    ctx.beginPath();
    ctx.arc(b.x, b.y, b.r * (0.6 + 0.5 * k), 0, 2 * Math.PI);
    ctx.stroke();
  }
});

// In screen space: the crosshair and its hit marker, the arcs toward
// what hurt you, the reddened edges at low health.
hooks.onDraw("screen", (v) => {
  const { ctx, f, focus, now, W, H } = v;
  const own = focus >= 0 ? focus * D.stride : -1;
  const mine = own >= 0 && (f[own + D.own] & OWN.predicted);
  const onFoot = mine && f[own + D.kind] === K.character;
  const gun = st.inv && (st.inv.hand === WEAPON.pistol || st.inv.hand === WEAPON.smg);
  st.crosshair = !!(onFoot && gun && !st.dead);
  if (st.crosshair) {
    const { x, y } = game.mouse;
    ctx.strokeStyle = "rgba(255,255,255,0.9)";
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.arc(x, y, 9, 0, 2 * Math.PI);
    for (const [dx, dy] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
      ctx.moveTo(x + dx * 5, y + dy * 5);
      ctx.lineTo(x + dx * 14, y + dy * 14);
    }
    ctx.stroke();
    ctx.fillStyle = "#ff5b5b";
    ctx.fillRect(x - 1, y - 1, 2, 2);
    if (st.marker && now - st.marker.at < MARKER_MS) { // the hit marker: an X
      ctx.strokeStyle = st.marker.kill ? "#ff3030" : "#ffffff";
      ctx.lineWidth = 3;
      ctx.beginPath();
      for (const [dx, dy] of [[1, 1], [-1, 1], [1, -1], [-1, -1]]) {
        ctx.moveTo(x + dx * 6, y + dy * 6);
        ctx.lineTo(x + dx * 13, y + dy * 13);
      }
      ctx.stroke();
    }
  }
  // The carjacks: a word over the car, rising.
  st.jacks = st.jacks.filter((j) => now - j.at < HURT_MS);
  for (const j of st.jacks) v.label(j.text, "#ffb43a", v.sx(j.x), v.sy(j.y) - 20 * (now - j.at) / HURT_MS);
  // The arcs toward what hurt you, round you on the screen.
  st.hurt = st.hurt.filter((h) => now - h.at < HURT_MS);
  if (own >= 0) {
    const ox = v.sx(f[own + D.x]), oy = v.sy(f[own + D.y]);
    for (const h of st.hurt) {
      const a = Math.atan2(-(h.fy - f[own + D.y]), h.fx - f[own + D.x]); // screen y grows down
      const k = 1 - (now - h.at) / HURT_MS;
      ctx.strokeStyle = `rgba(255,40,30,${0.9 * k})`;
      ctx.lineWidth = 8;
      ctx.beginPath();
      ctx.arc(ox, oy, 70, a - 0.35, a + 0.35);
      ctx.stroke();
    }
  }
  // Low health: the edges redden.
  const hp = game.status_.maxHp ? game.status_.hp / game.status_.maxHp : 1;
  if (hp < 0.4 && !st.dead && game.welcome && !game.welcome.spectate) {
    const g = ctx.createRadialGradient(W / 2, H / 2, Math.min(W, H) * 0.35, W / 2, H / 2, Math.max(W, H) * 0.7);
    g.addColorStop(0, "rgba(160,0,0,0)");
    g.addColorStop(1, `rgba(160,0,0,${0.5 * (1 - hp / 0.4) + 0.1 * v.blink})`);
    ctx.fillStyle = g;
    ctx.fillRect(0, 0, W, H);
  }
});

// ---- the death screen ------------------------------------------------------------

let backTimer = 0;

// note shows text for a few seconds under the top of the view.
function note(text) {
  $("backNote").textContent = text;
  $("backNote").hidden = false;
  clearTimeout(backTimer);
  backTimer = setTimeout(() => { $("backNote").hidden = true; }, NOTE_MS);
}

hooks.onHUD((state) => {
  const d = state && state.death;
  const watching = !!(game.welcome && game.welcome.spectate);
  if (d) {
    st.dead = true;
    st.where = d.where;
    const who = watching && state.watch ? state.watch.name + ": " : "";
    $("deathCause").textContent = who + d.cause;
    $("deathTimer").textContent = d.respawnIn < 0 ? "This room brings nobody back."
      : d.respawnIn > 0 ? `Back ${d.where === "hospital" ? "at the hospital" : "on your feet"} in ${Math.ceil(d.respawnIn)} s`
        : "Coming back...";
    $("deathScreen").hidden = false;
    $("backNote").hidden = true;
    st.deathText = $("deathScreen").textContent;
  } else if (st.dead) {
    st.dead = false;
    $("deathScreen").hidden = true;
    note(watching ? "Back in the game." : st.where === "hospital"
      ? "You woke up at the hospital, patched up." : "You are back on your feet.");
  }
});

// The browser tests read what combat drew (combat_browser_test.go).
window.foiCombat = {
  info: () => JSON.stringify({
    counts: st.counts, lastTracer: st.lastTracer, lastHit: st.lastHit, crosshair: st.crosshair, dead: st.dead, deathText: st.deathText,
    deathShown: !$("deathScreen").hidden, weapon: $("weaponHUD").hidden ? "" : $("weaponHUD").textContent.trim(),
  }),
};
