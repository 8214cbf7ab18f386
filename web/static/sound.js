// The sound, made in the page with WebAudio: no file to fetch. Your car's
// engine rises with its speed; the horn sounds while a horn is held near
// you; a police car's siren wails while it is near; shots crack and
// blasts boom, fainter the farther they are; picking an item up blips and
// cash coming in rings. O mutes and unmutes it (kept for the next visit).
// The browser starts the sound at the first key or click: it lets no page
// play before.

import { K, D, OWN, F, WEAPON } from "./client.js";
import { $, game } from "./game.js";
import * as hooks from "./hooks.js";
import { withIcon } from "./icons.js";

// The page's choices: how far a sound carries (m), the siren's wail (Hz
// and its period in s), and the loudness of all of it.
const HEAR_RANGE = 150;
const SIREN_LOW = 650;
const SIREN_HIGH = 1250;
const SIREN_PERIOD = 1.6;
const VOLUME = 0.5;
const MUTED_KEY = "foi.muted";

const st = {
  ctx: null,
  out: null,      // the master gain
  noise: null,    // a second of white noise
  engine: null,   // {osc, gain, filter}
  horn: null,     // {gain}
  siren: null,    // {osc, gain}
  muted: false,
  lastInv: null,  // the last inventory: {items, cash}
  played: { shot: 0, blast: 0, pickup: 0, cash: 0, hit: 0 }, // for the tests
};

try { st.muted = localStorage.getItem(MUTED_KEY) === "1"; } catch (e) { /* storage off */ }

// start makes the audio graph, at the first gesture.
function start() {
  if (st.ctx || !window.AudioContext) return;
  try {
    const ctx = new AudioContext();
    st.ctx = ctx;
    st.out = ctx.createGain();
    st.out.gain.value = st.muted ? 0 : VOLUME;
    st.out.connect(ctx.destination);
    const n = ctx.sampleRate;
    st.noise = ctx.createBuffer(1, n, n);
    const d = st.noise.getChannelData(0);
    for (let i = 0; i < n; i++) d[i] = Math.random() * 2 - 1;
    // The engine: a sawtooth through a low-pass, silent until you drive.
    const osc = ctx.createOscillator(), filter = ctx.createBiquadFilter(), gain = ctx.createGain();
    osc.type = "sawtooth";
    filter.type = "lowpass";
    filter.frequency.value = 400;
    gain.gain.value = 0;
    osc.connect(filter).connect(gain).connect(st.out);
    osc.start();
    st.engine = { osc, filter, gain };
    // The horn: two square tones a third apart.
    const hg = ctx.createGain();
    hg.gain.value = 0;
    for (const f of [392, 494]) {
      const o = ctx.createOscillator();
      o.type = "square";
      o.frequency.value = f;
      o.connect(hg);
      o.start();
    }
    const hf = ctx.createBiquadFilter();
    hf.type = "lowpass";
    hf.frequency.value = 1800;
    hg.connect(hf).connect(st.out);
    st.horn = { gain: hg };
    // The siren: a triangle whose pitch the frames sweep.
    const so = ctx.createOscillator(), sg = ctx.createGain();
    so.type = "triangle";
    so.frequency.value = SIREN_LOW;
    sg.gain.value = 0;
    so.connect(sg).connect(st.out);
    so.start();
    st.siren = { osc: so, gain: sg };
  } catch (e) {
    console.warn("sound:", e);
    st.ctx = null;
  }
}
for (const ev of ["keydown", "mousedown", "touchstart"]) window.addEventListener(ev, start, { capture: true });

function setMuted(m) {
  st.muted = m;
  try { localStorage.setItem(MUTED_KEY, m ? "1" : "0"); } catch (e) { /* storage off */ }
  if (st.out) st.out.gain.setTargetAtTime(m ? 0 : VOLUME, st.ctx.currentTime, 0.02);
  withIcon($("soundKey"), m ? "mute" : "sound", m ? "O: sound is off" : "O: sound", 14);
}
setMuted(st.muted);

window.addEventListener("keydown", (e) => {
  if (!game.running || e.target.tagName === "INPUT" || e.target.tagName === "SELECT" || e.repeat) return;
  if (e.code === "KeyO") { setMuted(!st.muted); e.preventDefault(); }
});

// burst plays a burst of noise through a filter: at frequency hz, for
// seconds, at loudness gain.
function burst(kind, hz, seconds, gain, type) {
  st.played[kind]++;
  const ctx = st.ctx;
  if (!ctx || st.muted || gain <= 0) return;
  const src = ctx.createBufferSource(), f = ctx.createBiquadFilter(), g = ctx.createGain();
  src.buffer = st.noise;
  f.type = type || "bandpass";
  f.frequency.value = hz;
  const t = ctx.currentTime;
  g.gain.setValueAtTime(gain, t);
  g.gain.exponentialRampToValueAtTime(0.001, t + seconds);
  src.connect(f).connect(g).connect(st.out);
  src.start(t, Math.random() * 0.5, seconds + 0.05);
}

// tones plays notes one after another: [hz, seconds] each.
function tones(kind, notes, gain, type) {
  st.played[kind]++;
  const ctx = st.ctx;
  if (!ctx || st.muted) return;
  let t = ctx.currentTime;
  for (const [hz, s] of notes) {
    const o = ctx.createOscillator(), g = ctx.createGain();
    o.type = type || "triangle";
    o.frequency.value = hz;
    g.gain.setValueAtTime(gain, t);
    g.gain.exponentialRampToValueAtTime(0.001, t + s);
    o.connect(g).connect(st.out);
    o.start(t);
    o.stop(t + s + 0.02);
    t += s * 0.8;
  }
}

// near is the loudness of a sound at (x, y): 1 at you, 0 past HEAR_RANGE.
function near(x, y) {
  const me = game.ownPos || game.cam;
  const d = Math.hypot(x - me.x, y - me.y);
  return Math.max(0, 1 - d / HEAR_RANGE) ** 2;
}

// Each frame: the events' sounds, the engine, the horn, the siren.
hooks.onDraw("screen", ({ f, n, focus, events, now }) => {
  for (const e of events) {
    if (e.k === "shot") burst("shot", e.w === WEAPON.smg ? 1800 : 1200, 0.12, 0.9 * near(e.x, e.y) + (e.mine ? 0.2 : 0));
    else if (e.k === "blast") burst("blast", 160, 1.1, 1.4 * near(e.x, e.y) + 0.05, "lowpass");
    else if (e.k === "hit" && e.me) burst("hit", 300, 0.15, 0.8, "lowpass");
  }
  if (!st.ctx) return;
  const t = st.ctx.currentTime;
  // Your car's engine.
  const own = focus >= 0 ? focus * D.stride : -1;
  const driving = own >= 0 && (f[own + D.own] & OWN.predicted) && f[own + D.kind] !== K.character;
  const speed = driving ? f[own + D.speed] : 0;
  st.engine.osc.frequency.setTargetAtTime(38 + speed * 3.2, t, 0.08);
  st.engine.filter.frequency.setTargetAtTime(300 + speed * 30, t, 0.08);
  st.engine.gain.gain.setTargetAtTime(driving ? 0.08 + Math.min(speed, 40) / 400 : 0, t, 0.1);
  // The horns and the sirens near you.
  let horn = 0, siren = 0;
  for (let i = 0; i < n; i++) {
    const b = i * D.stride, flags = f[b + D.flags];
    if (flags & F.horn) horn = Math.max(horn, near(f[b + D.x], f[b + D.y]));
    if (flags & F.siren) siren = Math.max(siren, near(f[b + D.x], f[b + D.y]));
  }
  st.horn.gain.gain.setTargetAtTime(horn * 0.12, t, 0.02);
  st.siren.gain.gain.setTargetAtTime(siren * 0.1, t, 0.05);
  const phase = (now / 1000 / SIREN_PERIOD) % 1;
  st.siren.osc.frequency.setTargetAtTime(SIREN_LOW + (SIREN_HIGH - SIREN_LOW) * (phase < 0.5 ? 2 * phase : 2 - 2 * phase), t, 0.05);
});

// Picking up and cash: the inventory's count of items, and its cash.
hooks.onReset(() => { st.lastInv = null; });
hooks.onText("inventory", (m) => {
  const items = m.slots.reduce((a, s) => a + (s.item ? s.count : 0), 0);
  const was = st.lastInv;
  st.lastInv = { items, cash: m.cash };
  if (!was) return;
  if (m.cash > was.cash) tones("cash", [[1319, 0.09], [1760, 0.25]], 0.25);
  else if (items > was.items) tones("pickup", [[660, 0.07], [990, 0.12]], 0.22);
});

// The browser tests read what played (combat_browser_test.go).
window.foiSound = { state: st };
