// The player's HUD: the Wanted stars, the cash, the health, the car's
// health while you sit in one (and, wrecked, the warning to get out before
// it blows), the clock; for a client that watches another player, that
// player's (foi.state().watch: their health from the snapshots, their
// Cash and stars from the server's watched frame). Also the first
// minute's help: a short hint as you first join, a line saying what to do
// when no mission runs, the keys' help (?) and the network panel (`),
// both shut until asked for.

import { $, game } from "./game.js";
import * as hooks from "./hooks.js";
import { icon } from "./icons.js";
import { active } from "./missions.js";

// The page's choices: how long the first-run hint stays (ms) and the
// Wanted level's most stars.
const HINT_MS = 14000;
const MAX_STARS = 5;
const HINTED_KEY = "foi.hinted";
const PANELS_KEY = "foi.panels";

const st = { hintTimer: 0, stars: -1 };

// ---- the panels: help and network ------------------------------------------------

function panels() {
  try { return JSON.parse(localStorage.getItem(PANELS_KEY) || "{}"); } catch (e) { return {}; }
}

function setPanel(id, open) {
  $(id).hidden = !open;
  try { localStorage.setItem(PANELS_KEY, JSON.stringify(Object.assign(panels(), { [id]: open }))); } catch (e) { /* storage off */ }
}

window.addEventListener("keydown", (e) => {
  if (!game.running || e.target.tagName === "INPUT" || e.target.tagName === "SELECT" || e.repeat) return;
  if (e.code === "Slash" || e.code === "F1") { setPanel("help", $("help").hidden); dismissHint(); e.preventDefault(); }
  else if (e.code === "Backquote") { setPanel("net", $("net").hidden); e.preventDefault(); }
  else if (e.code === "Escape" && !$("help").hidden) { setPanel("help", false); e.preventDefault(); e.stopImmediatePropagation(); }
});
$("help").addEventListener("click", () => setPanel("help", false));

// ---- the first minute ---------------------------------------------------------------

function dismissHint() {
  clearTimeout(st.hintTimer);
  $("hint").hidden = true;
}

// hint says, once per browser, what a new player needs first.
function hint(m) {
  let seen = false;
  try { seen = localStorage.getItem(HINTED_KEY) === "1"; localStorage.setItem(HINTED_KEY, "1"); } catch (e) { /* storage off */ }
  if (seen || m.spectate) return;
  const h = $("hint");
  h.replaceChildren();
  const add = (tag, text) => { const el = document.createElement(tag); el.textContent = text; h.appendChild(el); return el; };
  add("h3", `Welcome to ${m.room}, ${m.name || "player " + m.player}`);
  add("p", "You start at the wheel of your own car. W A S D drive, E gets out (and in, next to a car).");
  add("p", "Shops, the garage and the hospital are on the map: M opens it. R buys, picks up and opens where the prompt says.");
  add("p", "Guards and the police shoot back: the red arcs show where from. ? lists every key.");
  h.hidden = false;
  clearTimeout(st.hintTimer);
  st.hintTimer = setTimeout(dismissHint, HINT_MS);
}
$("hint").addEventListener("click", dismissHint);

// objective says what to do while no mission runs.
function objective(m) {
  const el = $("objective");
  const rules = m.rules || {};
  const jobs = rules.phone;
  el.replaceChildren();
  const b = document.createElement("b");
  b.textContent = m.game === "free-roam" ? "Free roam" : (m.game || "Free roam");
  const t = document.createElement("span");
  t.textContent = jobs ? " · Jobs come to your phone: P to open it."
    : " · Explore the city: buy at the shops, keep a car at the garage (both on the map, M).";
  el.append(b, t);
}

hooks.onReset(() => {
  dismissHint();
  st.stars = -1;
  const p = panels();
  $("help").hidden = !p.help;
  $("net").hidden = !p.net;
  $("wreck").hidden = true;
  $("carHealth").hidden = true;
});

hooks.onText("welcome", (m) => {
  objective(m);
  hint(m);
});

// ---- the HUD ---------------------------------------------------------------------------

function stars(n) {
  if (n === st.stars) return;
  st.stars = n;
  const el = $("wanted").querySelector(".stars");
  el.replaceChildren();
  for (let i = 0; i < MAX_STARS; i++) {
    const s = icon("star", 22);
    s.classList.add(i < n ? "on" : "off");
    el.appendChild(s);
  }
  el.dataset.stars = n;
  $("wanted").className = n ? "hot" : "";
}

function bar(id, hp, max) {
  $(id).style.width = max ? `${Math.max(0, Math.min(100, 100 * hp / max))}%` : "0%";
}

hooks.onHUD((state) => {
  const w = state && state.watch;
  // Yours, or the watched player's.
  const hp = w ? w.hp : game.status_.maxHp ? game.status_.hp : null;
  const max = w ? w.maxHp : game.status_.maxHp;
  stars(w ? w.stars : (game.wanted.stars || 0));
  $("cash").textContent = "$" + (w ? w.cash : (game.status_.cash ?? game.wanted.cash ?? 0)).toLocaleString("en-US");
  $("health").textContent = hp == null || !max ? "–" : `${hp} / ${max}`;
  $("healthBar").parentElement.hidden = hp == null || !max;
  bar("healthBar", hp || 0, max);
  $("healthBar").className = max && hp / max < 0.3 ? "low" : "";
  $("watchName").hidden = !w;
  if (w) $("watchName").textContent = `watching ${w.name}`;
  if (game.clock) {
    const m = game.clock.minutes + (performance.now() - game.clock.at) / 1000 * game.clock.pace;
    const day = ((m % 1440) + 1440) % 1440;
    $("clock").textContent = `${String(Math.floor(day / 60)).padStart(2, "0")}:${String(Math.floor(day % 60)).padStart(2, "0")}`;
  }
  // The car.
  const v = state && state.vehicle;
  $("carHealth").hidden = !v;
  if (v) {
    $("carModel").textContent = v.model;
    $("carHp").textContent = v.wrecked ? "wrecked" : `${v.hp} / ${v.maxHp}`;
    bar("carBar", v.hp, v.maxHp);
    $("carBar").className = v.wrecked || v.hp / v.maxHp < 0.3 ? "low" : "";
  }
  const wreck = v && v.wrecked && v.blastIn >= 0 && !(state.death);
  $("wreck").hidden = !wreck;
  if (wreck) $("wreck").textContent = w ? `The car is wrecked: it blows in ${Math.ceil(v.blastIn)} s`
    : `Your car is wrecked and burning: it blows in ${Math.ceil(v.blastIn)} s. Get out: E!`;
  // What to do, while no mission runs.
  $("objective").hidden = !game.welcome || game.welcome.spectate || active();
});

// The browser tests read the HUD (hud_browser_test.go).
window.foiHUD = {
  info: () => JSON.stringify({
    cash: $("cash").textContent, health: $("health").textContent, stars: Number($("wanted").querySelector(".stars").dataset.stars || 0),
    watching: $("watchName").hidden ? "" : $("watchName").textContent, car: $("carHealth").hidden ? "" : $("carHp").textContent,
    wreck: $("wreck").hidden ? "" : $("wreck").textContent, objective: $("objective").hidden ? "" : $("objective").textContent,
    help: !$("help").hidden, net: !$("net").hidden, hint: !$("hint").hidden,
  }),
};
