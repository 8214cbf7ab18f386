// Missions on the page: the tracker (the mission, its objective, the time
// left, a marker on the map), the notices, and the phone (the contacts'
// messages with Accept and Decline on an open offer, a screen the world
// opened with its options, Abandon while on a mission). P, or using the
// phone in the inventory, opens the phone. The frames and the phone
// commands are textframe/missions.go's.

import { TICK_RATE } from "./client.js";
import { game } from "./game.js";
import * as hooks from "./hooks.js";

const NOTICE_MS = 6000; // how long a notice stays: the page's choice
const st = {
  tracker: null, // the last tracker frame, null for no mission
  trackerAt: 0,  // performance.now() when it came
  phone: null,   // the last phone frame
  open: false,   // the phone shown
  notices: [],   // {text, kind, at}
  nextId: 1,
  reply: "",     // the last phone command's refusal
};

const el = (id) => document.getElementById(id);

// The overlays, made once beside the page's others.
function build() {
  if (el("tracker")) return;
  const root = el("game") || document.body;
  const add = (html) => { root.insertAdjacentHTML("beforeend", html); };
  add(`<div id="tracker" class="overlay" hidden><div id="trackerTitle"></div><div id="trackerObjective"></div><div id="trackerTimer"></div></div>`);
  add(`<div id="notices" class="overlay"></div>`);
  add(`<button id="phoneButton" class="overlay" type="button" title="your phone (P)">Phone</button>`);
  add(`<div id="phone" class="overlay window" hidden><h3>Phone</h3><div id="phoneScreen" hidden></div>` +
    `<div id="phoneMessages"></div><div id="phoneReply" hidden></div>` +
    `<button id="phoneAbandon" type="button" class="danger" hidden>Abandon the mission</button> ` +
    `<button id="phoneClose" type="button">Close</button></div>`);
  el("phoneButton").addEventListener("click", () => show(!st.open));
  el("phoneClose").addEventListener("click", () => show(false));
  el("phoneAbandon").addEventListener("click", () => send({ cmd: "abandon" }));
  window.addEventListener("keydown", (e) => {
    if (!game.running || e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if (e.code === "KeyP" && !e.repeat) { show(!st.open); e.preventDefault(); }
  });
}

function send(cmd) {
  const c = game.running ? game.conn : null;
  if (!c) return false;
  cmd.type = "phone";
  cmd.id = st.nextId++;
  st.pending = cmd.id;
  return c.send(JSON.stringify(cmd));
}

hooks.onReset(() => {
  build();
  st.tracker = null; st.phone = null; st.notices = []; st.reply = "";
  show(false);
  drawTracker();
  drawNotices();
});

function show(open) {
  st.open = open;
  el("phone").hidden = !open;
  if (open) drawPhone();
}

// The phone's button shows in a game whose players carry a phone (the
// rules' phone): elsewhere it would open an empty phone.
hooks.onText("welcome", (m) => {
  el("phoneButton").hidden = !(m.rules && m.rules.phone);
});

hooks.onText("tracker", (m) => {
  st.tracker = m.mission ? m : null;
  st.trackerAt = performance.now();
  drawTracker();
  if (st.open) drawPhone();
});
hooks.onText("notice", (m) => {
  st.notices.push({ text: m.text, kind: m.kind, at: performance.now() });
  if (st.notices.length > 4) st.notices.shift();
  drawNotices();
});
hooks.onText("phone", (m) => {
  st.phone = m;
  if (m.open) show(true);
  else if (st.open) drawPhone();
  el("phoneButton").classList.toggle("unread", m.messages.some((x) => x.open));
});
hooks.onText("reply", (m) => {
  if (m.id && m.id === st.pending) {
    st.reply = m.ok ? "" : m.error;
    if (st.open) drawPhone();
  }
});

// secondsLeft is the tracker's timer, counted down on the page from the
// server's tick it was sent at.
function secondsLeft() {
  const t = st.tracker;
  if (!t || !t.ends) return null;
  return Math.max(0, (t.ends - t.tick) / TICK_RATE - (performance.now() - st.trackerAt) / 1000);
}

function drawTracker() {
  const box = el("tracker");
  if (!box) return;
  const t = st.tracker;
  box.hidden = !t;
  if (!t) return;
  el("trackerTitle").textContent = t.title || t.mission;
  el("trackerObjective").textContent = t.objective || "";
  drawTimer();
}

function drawTimer() {
  const s = secondsLeft();
  const tm = el("trackerTimer");
  tm.hidden = s === null;
  if (s === null) return;
  const whole = Math.ceil(s);
  tm.textContent = `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
  tm.className = s < 15 ? "low" : "";
}

function drawNotices() {
  const box = el("notices");
  if (!box) return;
  const now = performance.now();
  st.notices = st.notices.filter((n) => now - n.at < NOTICE_MS);
  box.replaceChildren(...st.notices.map((n) => {
    const d = document.createElement("div");
    d.className = "notice " + n.kind;
    d.textContent = n.text;
    return d;
  }));
}

function button(text, cls, onclick) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  if (cls) b.className = cls;
  b.addEventListener("click", onclick);
  return b;
}

function drawPhone() {
  const p = st.phone;
  const list = el("phoneMessages");
  list.replaceChildren();
  const msgs = p ? p.messages.slice().reverse() : [];
  if (!msgs.length) list.textContent = "No messages.";
  for (const m of msgs) {
    const d = document.createElement("div");
    d.className = "message" + (m.open ? " offer" : "");
    d.dataset.mission = m.mission || "";
    const from = document.createElement("b");
    from.textContent = m.from + (m.title ? ` · ${m.title}` : "") + (m.reward ? ` · $${m.reward}` : "");
    const text = document.createElement("p");
    text.textContent = m.text;
    d.append(from, text);
    if (m.open) {
      const a = button("Accept", "accept", () => send({ cmd: "accept", offer: m.offer }));
      a.dataset.offer = m.offer;
      const no = button("Decline", "secondary decline", () => send({ cmd: "decline", offer: m.offer }));
      no.dataset.offer = m.offer;
      d.append(a, no);
    }
    list.append(d);
  }
  const sc = el("phoneScreen");
  const s = p && p.screen;
  sc.hidden = !s;
  sc.replaceChildren();
  if (s) {
    const h = document.createElement("h4");
    h.textContent = s.title;
    const t = document.createElement("p");
    t.textContent = s.text;
    sc.append(h, t);
    s.options.forEach((o, i) => {
      const b = button(o, "option", () => send({ cmd: "screen", choice: i }));
      b.dataset.choice = i;
      sc.append(b);
    });
    sc.append(button("Close", "secondary", () => send({ cmd: "close" })));
  }
  el("phoneAbandon").hidden = !st.tracker;
  const r = el("phoneReply");
  r.hidden = !st.reply;
  r.textContent = st.reply;
}

// The tracker's marker, under the entities: an area as a ring, a point
// as a pin that keeps its size on screen.
hooks.onDraw("under", ({ ctx, s }) => {
  const t = st.tracker;
  if (!t || !t.marker) return;
  const [x, y] = t.marker;
  const pulse = 0.5 + 0.5 * Math.sin(performance.now() / 250);
  ctx.save();
  ctx.strokeStyle = "#ffd54f";
  ctx.fillStyle = "rgba(255,213,79,0.15)";
  ctx.lineWidth = 3 / s;
  if (t.radius) {
    ctx.beginPath();
    ctx.arc(x, y, t.radius, 0, 2 * Math.PI);
    ctx.fill();
    ctx.stroke();
  }
  const r = (8 + 4 * pulse) / s;
  ctx.beginPath();
  ctx.moveTo(x, y + r); ctx.lineTo(x + r, y); ctx.lineTo(x, y - r); ctx.lineTo(x - r, y); ctx.closePath();
  ctx.fillStyle = "#ffd54f";
  ctx.fill();
  ctx.restore();
});

hooks.onHUD(() => {
  if (st.tracker) drawTimer();
  if (st.notices.length) drawNotices();
});

// info is what the page shows, for the tests and the console.
function info() {
  return JSON.stringify({
    tracker: st.tracker, secondsLeft: secondsLeft(), notices: st.notices.map((n) => n.kind + ": " + n.text),
    messages: st.phone ? st.phone.messages.length : 0, screen: !!(st.phone && st.phone.screen), open: st.open,
  });
}

// active reports whether a mission runs (the tracker shows).
export function active() {
  return !!st.tracker;
}

// marker returns where the tracker's marker is ([x, y]), or null.
export function marker() {
  return (st.tracker && st.tracker.marker) || null;
}

// The browser tests read foiMissions.info() and marker()
// (missions_browser_test.go).
window.foiMissions = { info, marker, show };
