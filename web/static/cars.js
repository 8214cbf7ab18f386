// The cars that belong to someone, on the page: the car prompt (the car
// before you, whether it is locked, yours or opened by a key you carry; L
// locks or unlocks it), and the garage window near a garage (its price,
// keep the car you drive, take out a car you keep). It reads the welcome's
// garages and the server's "keys" and "garage" frames; app.js calls
// foiCars.onText, foiCars.draw and foiCars.reset. The constants (D_*, K_*)
// and `game` are app.js's.
"use strict";

const foiCars = (() => {
  const F_LOCKED = 64;       // components.FlagLocked
  const PROMPT_REACH = 4;    // m: a car this near is the prompt's
  const GARAGE_REACH = 20;   // m: systems/cars GarageReach
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

  function reset() {
    st.garages = []; st.tags = []; st.own.clear(); st.keys.clear(); st.kept = [];
    st.target = null; st.garage = null; st.prompt = ""; st.view = "";
    el("carPrompt").hidden = true;
    el("garageWindow").hidden = true;
  }

  function onText(m) {
    switch (m.type) {
      case "welcome":
        st.garages = m.garages || [];
        break;
      case "keys":
        st.tags = m.tags || [];
        st.own = new Set(m.own || []);
        st.keys = new Set(m.keys || []);
        el("keyRing").textContent = st.tags.length ? "🔑 " + st.tags.join(", ") : "";
        el("keyRing").hidden = !st.tags.length;
        break;
      case "garage":
        st.kept = m.cars || [];
        st.view = "";
        break;
      case "reply": {
        const what = st.asked.get(m.id);
        if (!what) break;
        st.asked.delete(m.id);
        if (what === "lock" || what === "unlock") {
          if (!m.ok) toastCar(`${what}: ${m.error}`);
        } else {
          note(m.ok ? `${what}: done` : `${what}: ${m.error}`, !m.ok);
        }
        break;
      }
    }
  }

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

  // draw updates the car prompt and the garage window from this frame's
  // draw list.
  function draw(f, n, focus) {
    const own = focus >= 0 ? focus * D_STRIDE : -1;
    let t = null;
    st.inCar = 0;
    if (own >= 0) {
      const x = f[own + D_X], y = f[own + D_Y];
      const onFoot = f[own + D_KIND] === K_CHARACTER;
      let bestD = PROMPT_REACH;
      for (let i = 0; i < n; i++) {
        const b = i * D_STRIDE;
        if (f[b + D_KIND] !== K_CAR) continue;
        const eid = f[b + D_EID];
        const d = Math.hypot(f[b + D_X] - x, f[b + D_Y] - y);
        if (!onFoot && b === own) st.inCar = eid;
        if (onFoot ? d <= bestD : b === own) {
          bestD = d;
          t = { eid, locked: (f[b + D_FLAGS] & F_LOCKED) !== 0, own: st.own.has(eid), key: st.keys.has(eid) };
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
  }

  // garageNear opens the window of the garage whose bays are within
  // GARAGE_REACH of (x, y), and shuts it away from every garage.
  function garageNear(x, y) {
    let g = null;
    for (const gar of st.garages) {
      if (gar.bays.some((b) => Math.hypot(b.pos[0] - x, b.pos[1] - y) <= GARAGE_REACH)) g = gar;
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

  return { onText, draw, reset, state: st };
})();
window.foiCars = foiCars;
