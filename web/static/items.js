// What a player holds and what lies about: the inventory bar (slots, the
// weapon in hand, Cash), a prompt near a loose item, a container or a
// shop's counter (R acts on it), the container and shop windows, and the
// grenade's arc while its pin is out (G held). The places are labelled by
// map.js, the blasts drawn by combat.js. The commands and frames are
// textframe/items.go's.

import { foi, K, D, WEAPON, ITEMS, GRENADE, TICK_RATE } from "./client.js";
import { game } from "./game.js";
import * as hooks from "./hooks.js";

const el = (id) => document.getElementById(id);
// The throw (systems/weapons): the pin held for chargeTicks throws at
// throwMax; the arc drawn is where the grenade would land.
const CHARGE_MS = GRENADE.chargeTicks / TICK_RATE * 1000;
const st = {
  inv: null,        // the last inventory frame
  box: null,        // the last container frame (id "" when none is open)
  shop: null,       // the level's shop whose window is open
  target: null,     // what R acts on: {kind: "item"|"container"|"shop", ...}
  prompt: "",
  pinSince: 0,      // performance.now() when G went down, 0 when up
  nextId: 1,
};

const items = () => (game.welcome && game.welcome.items) || [];
const item = (id) => items()[id - 1];
const labelOf = (id) => (item(id) ? item(id).label : `item ${id}`);

function send(cmd) {
  cmd.id = st.nextId++;
  const err = foi.command(JSON.stringify(cmd));
  if (err) toast(err);
}

function toast(text) {
  const t = el("itemToast");
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (t.hidden = true), 2500);
}

hooks.onReset(() => {
  st.inv = null; st.box = null; st.shop = null; st.target = null; st.prompt = "";
  st.pinSince = 0;
  el("containerWindow").hidden = true;
  el("shopWindow").hidden = true;
  el("itemPrompt").hidden = true;
  renderInventory();
});

// A spectator holds nothing: no bar.
hooks.onText("welcome", (m) => {
  el("inventory").hidden = !!m.spectate;
});
hooks.onText("inventory", (m) => {
  st.inv = m;
  renderInventory();
  renderContainer();
});
hooks.onText("container", (m) => {
  st.box = m;
  renderContainer();
});
hooks.onText("reply", (m) => {
  if (!m.ok && m.error) toast(`${m.cmd}: ${m.error}`);
});

// ---- the inventory bar ----------------------------------------------------

function slotEl(s, i, hand, onClick) {
  const d = document.createElement("div");
  d.className = "slot";
  d.dataset.slot = i;
  if (s && s.item) {
    const it = item(s.item);
    d.dataset.item = it ? it.name : "";
    d.innerHTML = `<span class="n">${i === 9 ? 0 : i + 1}</span><span class="l"></span>` +
      (s.count > 1 ? `<span class="c">×${s.count}</span>` : "");
    d.querySelector(".l").textContent = labelOf(s.item);
    if (it && it.weapon && it.weapon === hand) d.classList.add("hand");
    d.title = labelOf(s.item) + (it ? ` (${it.kind})` : "");
  } else {
    d.classList.add("empty");
    d.innerHTML = `<span class="n">${i === 9 ? 0 : i + 1}</span>`;
  }
  if (onClick) d.addEventListener("click", (e) => onClick(i, e));
  return d;
}

function renderInventory() {
  const box = el("slots");
  box.innerHTML = "";
  const inv = st.inv;
  const n = inv ? inv.slots.length : 10;
  for (let i = 0; i < n; i++) {
    box.appendChild(slotEl(inv && inv.slots[i], i, inv && inv.hand, (k, e) => {
      if (!st.inv || !st.inv.slots[k].item) return;
      send(e.shiftKey ? { type: "drop", slot: k } : { type: "use", slot: k });
    }));
  }
  el("invCash").textContent = "$" + ((inv && inv.cash) || 0).toLocaleString("en-US");
}

// ---- the container and shop windows ----------------------------------------

function renderContainer() {
  const w = el("containerWindow");
  const b = st.box;
  if (!b || !b.id) { w.hidden = true; return; }
  w.hidden = false;
  el("containerTitle").textContent = foi.title(b.id) + (b.kind && !foi.title(b.id).toLowerCase().includes(b.kind) ? ` (${b.kind})` : "");
  const cs = el("containerSlots");
  cs.innerHTML = "";
  b.slots.forEach((s, i) => cs.appendChild(slotEl(s, i, 0, (k) => {
    if (st.box.slots[k].item) send({ type: "take", slot: k });
  })));
  const is = el("containerInv");
  is.innerHTML = "";
  if (st.inv) st.inv.slots.forEach((s, i) => is.appendChild(slotEl(s, i, st.inv.hand, (k) => {
    if (st.inv.slots[k].item) send({ type: "put", slot: k });
  })));
}

function openShop(shop) {
  st.shop = shop;
  el("shopTitle").textContent = foi.title(shop.id);
  const tb = el("shopItems").querySelector("tbody");
  tb.innerHTML = "";
  for (const name of shop.items) {
    const it = items().find((x) => x.name === name);
    const tr = document.createElement("tr");
    const price = it && it.price;
    tr.innerHTML = `<td class="l"></td><td class="p"></td><td></td>`;
    tr.querySelector(".l").textContent = it ? it.label : name;
    tr.querySelector(".p").textContent = price ? "$" + price : "not sold";
    const bt = document.createElement("button");
    bt.type = "button";
    bt.textContent = "Buy";
    bt.dataset.buy = name;
    bt.disabled = !price;
    bt.addEventListener("click", () => send({ type: "buy", place: shop.id, item: name }));
    tr.lastChild.appendChild(bt);
    tb.appendChild(tr);
  }
  el("shopWindow").hidden = false;
}

el("containerClose").addEventListener("click", () => send({ type: "close" }));
el("shopClose").addEventListener("click", () => { el("shopWindow").hidden = true; st.shop = null; });

// ---- the prompt and R -------------------------------------------------------

// nearest finds what R would act on: the nearest loose item (from the
// draw list), container or shop counter (from the level) within reach.
function nearest(f, n, x, y) {
  let best = null, bestD = ITEMS.reach;
  for (let i = 0; i < n; i++) {
    const b = i * D.stride;
    if (f[b + D.kind] !== K.item) continue;
    const d = Math.hypot(f[b + D.x] - x, f[b + D.y] - y);
    if (d <= bestD) { bestD = d; best = { kind: "item", eid: f[b + D.eid], item: f[b + D.model] }; }
  }
  const l = game.level;
  for (const c of (l && l.containers) || []) {
    const d = Math.hypot(c.pos[0] - x, c.pos[1] - y);
    if (d <= bestD) { bestD = d; best = { kind: "container", c }; }
  }
  for (const s of (l && l.shops) || []) {
    const d = Math.hypot(s.pos[0] - x, s.pos[1] - y);
    if (d <= bestD) { bestD = d; best = { kind: "shop", s }; }
  }
  return best;
}

function promptText(t) {
  if (!t) return "";
  switch (t.kind) {
    case "item": return `R: pick up ${labelOf(t.item)}`;
    case "container": return `R: open ${foi.title(t.c.id)}${t.c.locked ? " (locked: its key, or a crowbar for a crate)" : ""}`;
    case "shop": return `R: shop at ${foi.title(t.s.id)}`;
  }
  return "";
}

function act() {
  const t = st.target;
  if (!t) return;
  switch (t.kind) {
    case "item": send({ type: "pickup", target: t.eid }); break;
    case "container": send({ type: "open", place: t.c.id }); break;
    case "shop": openShop(t.s); break;
  }
}

window.addEventListener("keydown", (e) => {
  if (!game.running || e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
  if (e.code === "KeyR") {
    if (!e.repeat) act();
    e.preventDefault();
  } else if (e.code === "KeyG") {
    if (!st.pinSince) st.pinSince = performance.now();
  } else if (/^Digit[0-9]$/.test(e.code) && !e.repeat && !e.defaultPrevented) { // a wheel's pick takes the key first (social.js)
    const k = (Number(e.code.slice(5)) + 9) % 10; // 1..9, 0 -> slots 0..9
    if (st.inv && st.inv.slots[k] && st.inv.slots[k].item) send({ type: "use", slot: k });
  }
});
window.addEventListener("keyup", (e) => { if (e.code === "KeyG") st.pinSince = 0; });
window.addEventListener("blur", () => { st.pinSince = 0; });

// ---- drawing -----------------------------------------------------------------

function holds(weapon) {
  if (!st.inv) return false;
  return st.inv.slots.some((s) => s.item && item(s.item) && item(s.item).weapon === weapon);
}

// Over the entities, under the world's transform (metres, y north): the
// containers, the grenades in flight, the grenade's arc while its pin is
// out; and the prompt.
hooks.onDraw("over", ({ ctx, s, f, n, focus, now }) => {
  const l = game.level;
  const px = 1 / s;
  if (l) {
    for (const c of l.containers || []) {
      ctx.fillStyle = c.kind === "locker" ? "#8d96a3" : "#9a6b3c";
      ctx.fillRect(c.pos[0] - 0.6, c.pos[1] - 0.6, 1.2, 1.2);
    }
  }
  // Grenades: drawn over app.js's dots.
  for (let i = 0; i < n; i++) {
    const b = i * D.stride, k = f[b + D.kind];
    if (k === K.projectile) {
      ctx.fillStyle = "#2f4f2f";
      ctx.strokeStyle = Math.floor(now / 150) % 2 ? "#ff3b3b" : "#ffffff";
      ctx.lineWidth = 2 * px;
      ctx.beginPath();
      ctx.arc(f[b + D.x], f[b + D.y], Math.max(0.2, 3 * px), 0, 2 * Math.PI);
      ctx.fill();
      ctx.stroke();
    }
  }
  const own = focus >= 0 ? focus * D.stride : -1;
  const onFoot = own >= 0 && f[own + D.kind] === K.character;
  // The arc: where a grenade thrown now would land.
  if (onFoot && st.pinSince && holds(WEAPON.grenade)) {
    const held = Math.min(1, (now - st.pinSince) / CHARGE_MS);
    const v = GRENADE.throwMin + (GRENADE.throwMax - GRENADE.throwMin) * held;
    const h = v * Math.cos(GRENADE.throwAngle), c = v * Math.sin(GRENADE.throwAngle);
    const t = (c + Math.sqrt(c * c + 2 * GRENADE.gravity * GRENADE.throwHeight)) / GRENADE.gravity;
    const x0 = f[own + D.x], y0 = f[own + D.y], yaw = f[own + D.yaw];
    ctx.strokeStyle = "rgba(255,210,63,0.9)";
    ctx.lineWidth = 2 * px;
    ctx.setLineDash([4 * px, 4 * px]);
    ctx.beginPath();
    for (let k = 0; k <= 16; k++) {
      const tt = t * k / 16, d = h * tt, z = GRENADE.throwHeight + c * tt - GRENADE.gravity * tt * tt / 2;
      // Height drawn as a lift toward the top of the screen, so the arc reads as one.
      const x = x0 + Math.cos(yaw) * d, y = y0 + Math.sin(yaw) * d + z * 0.35;
      k ? ctx.lineTo(x, y) : ctx.moveTo(x, y);
    }
    ctx.stroke();
    ctx.setLineDash([]);
    const lx = x0 + Math.cos(yaw) * h * t, ly = y0 + Math.sin(yaw) * h * t;
    ctx.strokeStyle = "rgba(255,90,60,0.8)";
    ctx.beginPath();
    ctx.arc(lx, ly, GRENADE.blastRadius, 0, 2 * Math.PI);
    ctx.stroke();
  }
  // The prompt.
  st.target = onFoot ? nearest(f, n, f[own + D.x], f[own + D.y]) : null;
  const text = promptText(st.target);
  if (text !== st.prompt) {
    st.prompt = text;
    el("itemPrompt").textContent = text;
    el("itemPrompt").hidden = !text;
  }
  if (st.shop && (!st.target || st.target.kind !== "shop" || st.target.s.id !== st.shop.id)) {
    el("shopWindow").hidden = true; // walked away from the counter
    st.shop = null;
  }
});

// The console reads the items' state.
window.foiItems = { state: st };
