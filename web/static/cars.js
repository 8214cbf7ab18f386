// The cars that belong to someone, on the page: the car prompt (the car
// before you, whether it is locked, yours or opened by a key you carry; L
// locks or unlocks it), and the garage window near a garage (its price,
// keep the car you drive, take out a car you keep). It reads the welcome's
// garages and the server's "keys" and "garage" frames.

import { foi, K, F, D, CARS } from "./client.js";
import { game } from "./game.js";
import * as hooks from "./hooks.js";

// PROMPT_REACH (m) is how near the car the prompt is about stands: the
// page's choice, a step past where L reaches (systems/cars LockReach,
// from the car's body rather than its centre).
const PROMPT_REACH = 4;
const st = {
  garages: [],             // the welcome's
  tags: [], own: new Set(), keys: new Set(), // the keys frame's
  kept: [],                // the garage frame's cars
  target: null,            // the car the prompt is about: {eid, locked, own, key}
  inCar: 0,                // the wire id of the car you sit in, 0 none
  garage: null,            // the garage whose window is open
  prompt: "", nextId: 1 << 20, asked: new Map(), // command id -> what it was
  view: "",
};

const el = (id) => document.getElementById(id);

function send(cmd, what) {
  cmd.id = st.nextId++;
  st.asked.set(cmd.id, what);
  const err = foi.command(JSON.stringify(cmd));
  if (err) note(err, true);
}

function note(text, bad) {
  const n = el("garageNote");
  n.textContent = text;
  n.className = bad ? "bad" : "ok";
}

hooks.onReset(() => {
  st.garages = []; st.tags = []; st.own.clear(); st.keys.clear(); st.kept = [];
  st.target = null; st.garage = null; st.prompt = ""; st.view = "";
  el("carPrompt").hidden = true;
  el("garageWindow").hidden = true;
});

hooks.onText("welcome", (m) => {
  st.garages = m.garages || [];
});
hooks.onText("keys", (m) => {
  st.tags = m.tags || [];
  st.own = new Set(m.own || []);
  st.keys = new Set(m.keys || []);
  el("keyRing").textContent = st.tags.length ? "🔑 " + st.tags.join(", ") : "";
  el("keyRing").hidden = !st.tags.length;
});
hooks.onText("garage", (m) => {
  st.kept = m.cars || [];
  st.view = "";
});
hooks.onText("reply", (m) => {
  const what = st.asked.get(m.id);
  if (!what) return;
  st.asked.delete(m.id);
  if (what === "lock" || what === "unlock") {
    if (!m.ok) toastCar(`${what}: ${m.error}`);
  } else {
    note(m.ok ? `${what}: done` : `${what}: ${m.error}`, !m.ok);
  }
});

function toastCar(text) {
  const t = el("itemToast");
  if (!t) return;
  t.textContent = text;
  t.hidden = false;
  setTimeout(() => { t.hidden = true; }, 2500);
}

// promptText says what the prompt shows of car t.
function promptText(t) {
  if (!t) return "";
  const lock = t.locked ? "🔒 locked" : "🔓 open";
  const whose = t.own ? " · yours" : t.key ? " · 🔑 you have its key" : "";
  const can = t.own || t.key;
  const keys = can ? ` · L: ${t.locked ? "unlock" : "lock"}` : t.locked ? " · a crowbar forces it" : "";
  return `${lock}${whose}${keys}`;
}

// Each frame: the car prompt and the garage window, from the draw list.
hooks.onDraw("over", ({ f, n, focus }) => {
  const own = focus >= 0 ? focus * D.stride : -1;
  let t = null;
  st.inCar = 0;
  if (own >= 0) {
    const x = f[own + D.x], y = f[own + D.y];
    const onFoot = f[own + D.kind] === K.character;
    let bestD = PROMPT_REACH;
    for (let i = 0; i < n; i++) {
      const b = i * D.stride;
      if (f[b + D.kind] !== K.car) continue;
      const eid = f[b + D.eid];
      const d = Math.hypot(f[b + D.x] - x, f[b + D.y] - y);
      if (!onFoot && b === own) st.inCar = eid;
      if (onFoot ? d <= bestD : b === own) {
        bestD = d;
        t = { eid, locked: (f[b + D.flags] & F.locked) !== 0, own: st.own.has(eid), key: st.keys.has(eid) };
      }
    }
    garageNear(x, y);
  }
  st.target = t;
  const text = promptText(t);
  if (text !== st.prompt) {
    st.prompt = text;
    el("carPrompt").textContent = text;
    el("carPrompt").dataset.locked = t && t.locked ? "1" : "0";
    el("carPrompt").dataset.key = t && (t.key || t.own) ? "1" : "0";
    el("carPrompt").hidden = !text;
  }
});

// garageNear opens the window of the garage whose bays are within
// CARS.garageReach of (x, y), and shuts it away from every garage.
function garageNear(x, y) {
  let g = null;
  for (const gar of st.garages) {
    if (gar.bays.some((b) => Math.hypot(b.pos[0] - x, b.pos[1] - y) <= CARS.garageReach)) g = gar;
  }
  if (g !== st.garage) {
    st.garage = g;
    st.view = "";
    el("garageWindow").hidden = !g;
    if (g) note("", false);
  }
  if (g) render(g);
}

// render fills the garage window: its price, keep, and the cars kept
// there with a take-out button each.
function render(g) {
  const view = JSON.stringify([g.id, st.kept, !!st.inCar]);
  if (view === st.view) return;
  st.view = view;
  el("garageTitle").textContent = `Garage ${g.id}`;
  el("garagePrice").textContent = `$${g.price} to keep a car`;
  el("garageKeep").disabled = !st.inCar;
  el("garageKeep").title = st.inCar ? "drive into a free bay, stop, then keep" : "drive the car in first";
  const list = el("garageCars");
  list.textContent = "";
  const here = st.kept.filter((c) => c.garage === g.id);
  if (!here.length) {
    const li = document.createElement("li");
    li.textContent = "no car kept here";
    list.appendChild(li);
  }
  for (const c of here) {
    const li = document.createElement("li");
    li.textContent = `bay ${c.bay + 1}: model ${c.model}, ${c.health} hp `;
    const bt = document.createElement("button");
    bt.type = "button";
    bt.textContent = "Take out";
    bt.dataset.bay = c.bay;
    bt.addEventListener("click", () => send({ type: "takeout", place: g.id, slot: c.bay }, "take out"));
    li.appendChild(bt);
    list.appendChild(li);
  }
}

el("garageKeep").addEventListener("click", () => send({ type: "keep" }, "keep"));

window.addEventListener("keydown", (e) => {
  if (!game.running || e.repeat || e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
  if (e.code !== "KeyL" || !st.target) return;
  const t = st.target;
  send({ type: t.locked ? "unlock" : "lock", target: t.eid }, t.locked ? "unlock" : "lock");
  e.preventDefault();
});

// The browser tests read the cars' state (cars_browser_test.go).
window.foiCars = { state: st };
