// The cars on the page: the car prompt and the garage window. The prompt
// names the keys that work where you stand, at the reach the server
// honours (the wasm measures it the server's way: foi.carToEnter is the
// car E gets you into, within systems/seats Reach of its body;
// foi.carToLock the one L locks or unlocks, within systems/cars
// LockReach): "E: get in", whether it is locked, yours or opened by a key
// you carry. Near a garage its window shows its price, keeps the car you
// drive and takes out a car you keep. It reads the welcome's garages and
// the server's "keys" and "garage" frames.

import { foi, F, D, CARS, MODEL_NAMES } from "./client.js";
import { game } from "./game.js";
import * as hooks from "./hooks.js";
import { icon } from "./icons.js";

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
  el("keyRing").replaceChildren(icon("key", 16), document.createTextNode(" " + st.tags.join(", ")));
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

// modelLabel is a car model's name as a player reads it ("Sedan").
export function modelLabel(m) {
  const n = MODEL_NAMES[m] || "car";
  return n[0].toUpperCase() + n.slice(1);
}

// prompt says what the prompt shows of car t: its icon and its text.
function prompt(t) {
  if (!t) return null;
  const parts = [];
  if (t.inside) parts.push("E: get out");
  else if (t.enter && (!t.locked || t.own || t.key)) parts.push(`E: get in the ${modelLabel(t.model).toLowerCase()}`);
  parts.push(t.locked ? "locked" : "open");
  if (t.own) parts.push("yours");
  else if (t.key) parts.push("you have its key");
  if (t.own || t.key) parts.push(`L: ${t.locked ? "unlock" : "lock"}`);
  else if (t.locked && !t.inside) parts.push("a crowbar forces it (use it from the bar)");
  return { icon: t.locked ? "lock" : "unlock", text: parts.join(" · ") };
}

// Each frame: the car prompt and the garage window, from the draw list
// and the cars in reach.
hooks.onDraw("over", ({ f, n, focus }) => {
  const own = focus >= 0 ? focus * D.stride : -1;
  let t = null;
  st.inCar = 0;
  if (own >= 0) {
    const enter = foi.carToEnter(), lock = foi.carToLock();
    const inside = lock && lock === f[own + D.eid] ? lock : 0; // in a car the camera follows it
    st.inCar = inside;
    const eid = enter || lock;
    for (let i = 0; eid && i < n; i++) {
      const b = i * D.stride;
      if (f[b + D.eid] !== eid) continue;
      t = { eid, locked: (f[b + D.flags] & F.locked) !== 0, own: st.own.has(eid), key: st.keys.has(eid),
        enter: enter === eid, inside: inside === eid, model: f[b + D.model] };
    }
    garageNear(f[own + D.x], f[own + D.y]);
  }
  st.target = t;
  const p = prompt(t);
  const text = p ? p.text : "";
  if (text !== st.prompt) {
    st.prompt = text;
    el("carPrompt").replaceChildren(...(p ? [icon(p.icon, 16), document.createTextNode(" " + p.text)] : []));
    el("carPrompt").dataset.locked = t && t.locked ? "1" : "0";
    el("carPrompt").dataset.key = t && (t.key || t.own) ? "1" : "0";
    el("carPrompt").dataset.enter = t && t.enter ? "1" : "0";
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
  el("garageTitle").textContent = foi.title(g.id);
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
    li.textContent = `Bay ${c.bay + 1}: ${modelLabel(c.model)}, ${c.health} hp `;
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
