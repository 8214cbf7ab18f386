// Calling your car back (the callcar command and the carcall frame,
// textframe/cars.go). C, or the phone's "Call your car" button where the
// game has a phone, asks the server to bring your car to you: the line
// over the car prompt counts the delivery down, or says why the server
// refused; the server's notices (missions.js shows them) say it in words.
// While the car is on its way, and for a while after it arrived, a blip
// marks it on the minimap and the full map, and a ring on the view where
// it stands.

import { foi, D, TICK_RATE } from "./client.js";
import { game } from "./game.js";
import * as hooks from "./hooks.js";
import { drawIcon } from "./icons.js";

// The page's choices: how long a refusal or an arrival shows (ms), the
// colour of your car's blip, and how near the frame's place (m) the drawn
// car must come before the blip follows it again after an arrival.
const CALL_NOTE_MS = 6000;
const CAR_BLIP = "#ffd23f";
const CAUGHT_M = 10;

const st = {
  call: null,     // the last carcall frame
  callAt: 0,      // performance.now() when it came
  pos: null,      // where your car's blip is: [x, y]
  caught: false,  // after an arrival, the drawn car came to where the frame put it
  note: "",       // the line's text
  bad: false,     // it is a refusal
  noteAt: 0,
  asked: new Set(), // the ids of the calls waiting for their reply
  nextId: 1 << 21,
  sent: 0,        // calls sent, for the tests
  refusals: [],   // the server's refusals, for the tests
};

const el = (id) => document.getElementById(id);

// call asks the server to bring your car.
function call() {
  const id = st.nextId++;
  st.asked.add(id);
  st.sent++;
  const err = foi.command(JSON.stringify({ type: "callcar", id }));
  if (err) show(err, true);
}

function show(text, bad) {
  st.note = text;
  st.bad = bad;
  st.noteAt = performance.now();
  draw();
}

// build makes the line and, where the page has a phone, its button, once
// per page.
function build() {
  if (!el("carCall")) {
    (el("game") || document.body).insertAdjacentHTML("beforeend", `<div id="carCall" class="overlay" role="status" hidden></div>`);
  }
  const phone = el("phone");
  if (phone && !el("phoneCallCar")) {
    const b = document.createElement("button");
    b.type = "button";
    b.id = "phoneCallCar";
    b.textContent = "Call your car (C)";
    b.title = "your car comes to you in a few seconds, for a fee";
    b.addEventListener("click", call);
    phone.insertBefore(b, el("phoneClose"));
  }
}

hooks.onReset(() => {
  build();
  st.call = null; st.pos = null; st.caught = false; st.note = ""; st.asked.clear(); st.refusals = [];
  draw();
});

hooks.onText("reply", (m) => {
  if (!st.asked.has(m.id)) return;
  st.asked.delete(m.id);
  if (!m.ok) {
    st.refusals.push(m.error);
    show("Can't call your car: " + m.error, true);
  }
});

hooks.onText("carcall", (m) => {
  st.call = m;
  st.callAt = performance.now();
  st.pos = m.at || null;
  st.caught = false;
  if (m.state === "off") show("Car delivery called off: " + m.why, true);
  else if (m.state === "arrived") show("Your car is here", false);
  else draw();
});

// secondsLeft is the delivery's time left, counted down on the page from
// the frame's tick.
function secondsLeft() {
  const c = st.call;
  if (!c || c.state !== "coming") return 0;
  return Math.max(0, (c.ends - c.tick) / TICK_RATE - (performance.now() - st.callAt) / 1000);
}

// shown reports whether the car's blip shows: on its way, and a while
// after it arrived.
function shown() {
  const c = st.call;
  return !!(c && st.pos && (c.state === "coming" || (c.state === "arrived" && performance.now() - st.callAt < CALL_NOTE_MS)));
}

function draw() {
  const box = el("carCall");
  if (!box) return;
  const c = st.call;
  let text = "", bad = false;
  if (c && c.state === "coming") text = `Your car is on its way: ${Math.ceil(secondsLeft())} s, $${c.fee} on arrival`;
  else if (st.note && performance.now() - st.noteAt < CALL_NOTE_MS) { text = st.note; bad = st.bad; }
  box.hidden = !text;
  box.textContent = text;
  box.className = "overlay" + (bad ? " bad" : "");
}

hooks.onHUD(draw);

// Your car's place from the draw list, while the snapshots hold it.
hooks.onDraw("over", ({ f, n }) => {
  const c = st.call;
  if (!c || !c.car || c.state === "off") return;
  for (let i = 0; i < n; i++) {
    const b = i * D.stride;
    if (f[b + D.eid] !== c.car) continue;
    const x = f[b + D.x], y = f[b + D.y];
    // On arrival the blip stays where the frame says until the drawn car
    // gets there: the snapshot that moves the car comes after the frame,
    // and the drawing runs behind the snapshots.
    if (c.state === "arrived" && c.at && !st.caught) {
      if (Math.hypot(x - c.at[0], y - c.at[1]) > CAUGHT_M) return;
      st.caught = true;
    }
    st.pos = [x, y];
    return;
  }
});

// A ring round your car on the view.
hooks.onDraw("under", ({ ctx, s }) => {
  if (!shown()) return;
  const [x, y] = st.pos;
  const pulse = 0.5 + 0.5 * Math.sin(performance.now() / 200);
  ctx.save();
  ctx.strokeStyle = CAR_BLIP;
  ctx.lineWidth = 3 / s;
  ctx.beginPath();
  ctx.arc(x, y, 3.5 + pulse, 0, 2 * Math.PI);
  ctx.stroke();
  ctx.restore();
});

// The blip on the minimap and the full map.
hooks.onDraw("map", (m) => {
  if (!shown()) return;
  drawIcon(m.ctx, "car", m.sx(st.pos[0]), m.sy(st.pos[1]), m.full ? 18 : 12, CAR_BLIP, 1);
});

window.addEventListener("keydown", (e) => {
  if (!game.running || e.repeat || e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
  if (e.code !== "KeyC" || (game.welcome && game.welcome.spectate)) return;
  call();
  e.preventDefault();
});

// The browser tests read the call's state (carcall_browser_test.go).
window.foiCarCall = {
  info: () => JSON.stringify({ call: st.call, pos: st.pos, blip: shown(), line: el("carCall") && !el("carCall").hidden ? el("carCall").textContent : "",
    sent: st.sent, refusals: st.refusals }),
  call,
};
