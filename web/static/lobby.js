// The lobby: the rooms (GET /rooms, refreshed while no game runs), the
// games (GET /games), your name and the join form. It needs no client to
// list rooms, so main.js evaluates it first; joining waits for app.js's
// join (ready).
//
// The form's level and game only make a new room: when the room named
// already runs, the form shows its level and game and greys them out, so
// that what it shows is what the join plays. Left at "the server's
// default", a new room plays the server's own.

import { $, game } from "./game.js";

let join = null; // app.js's join(room, opts), once the client is ready
let rooms = [];  // the last GET /rooms

// The name is kept for the next visit (localStorage).
const NAME_KEY = "foi.name";
try { $("playerName").value = localStorage.getItem(NAME_KEY) || ""; } catch (e) { /* storage off */ }
$("playerName").addEventListener("change", () => {
  try { localStorage.setItem(NAME_KEY, $("playerName").value.trim()); } catch (e) { /* storage off */ }
});

function playerName() {
  return $("playerName").value.trim();
}

// refreshRooms lists the rooms, each with a Join and a Watch button.
export async function refreshRooms() {
  try {
    const res = await fetch("/rooms");
    rooms = await res.json();
    const tb = $("rooms").querySelector("tbody");
    tb.innerHTML = "";
    for (const r of rooms) {
      const tr = document.createElement("tr");
      for (const v of [r.name, r.level, r.game, r.players, r.traffic, r.pedestrians]) {
        const td = document.createElement("td");
        td.textContent = v;
        tr.appendChild(td);
      }
      const td = document.createElement("td");
      const jb = document.createElement("button");
      jb.textContent = "Join";
      jb.disabled = !join;
      jb.onclick = () => join(r.name, { webrtc: $("webrtc").checked, name: playerName() });
      const wb = document.createElement("button");
      wb.textContent = "Watch";
      wb.className = "secondary";
      wb.disabled = !join;
      wb.onclick = () => join(r.name, { webrtc: $("webrtc").checked, spectate: true, watch: 0 });
      td.append(jb, wb);
      tr.appendChild(td);
      tb.appendChild(tr);
    }
    $("lobbyError").textContent = "";
    matchRoom();
  } catch (e) {
    $("lobbyError").textContent = "GET /rooms: " + e.message;
  }
}

// matchRoom shows the level and game of the room the form names when it
// runs already, and lets them be chosen again when it does not.
function matchRoom() {
  const r = rooms.find((x) => x.name === $("room").value);
  for (const id of ["level", "gameName", "traffic", "pedestrians"]) $(id).disabled = !!r;
  if (r) {
    pick($("level"), r.level);
    pick($("gameName"), r.game);
    $("roomHint").textContent = `${r.name} runs: it plays ${r.game} on ${r.level}, ${r.players} playing.`;
  } else {
    $("roomHint").textContent = "A new room: it plays the level and game chosen here.";
  }
}

// pick selects the option of sel whose value is v, adding it if missing.
function pick(sel, v) {
  if (![...sel.options].some((o) => o.value === v)) {
    const o = document.createElement("option");
    o.value = o.textContent = v;
    sel.appendChild(o);
  }
  sel.value = v;
}

function formOpts(spectate) {
  return {
    level: $("level").value,
    game: $("gameName").value,
    traffic: $("traffic").value,
    pedestrians: $("pedestrians").value,
    webrtc: $("webrtc").checked,
    name: playerName(),
    spectate,
    watch: spectate ? $("watchN").value : 0,
  };
}

$("create").addEventListener("submit", (e) => {
  e.preventDefault();
  if (join) join($("room").value, formOpts(false));
});
$("spectate").addEventListener("click", () => { if (join) join($("room").value, formOpts(true)); });
$("refresh").addEventListener("click", refreshRooms);
$("room").addEventListener("input", matchRoom);

// ready enables joining through joinFn(room, opts), and offers the levels
// the client has (names).
export function ready(joinFn, levels) {
  join = joinFn;
  $("loading").hidden = true;
  $("join").disabled = false;
  $("spectate").disabled = false;
  const sel = $("level");
  for (const name of levels) {
    if ([...sel.options].some((o) => o.value === name)) continue;
    const o = document.createElement("option");
    o.value = o.textContent = name;
    sel.appendChild(o);
  }
  if (/^#[a-z0-9-]{1,32}$/.test(location.hash)) $("room").value = location.hash.slice(1);
  refreshRooms();
}

// show shows the lobby instead of the game.
export function show() {
  $("game").hidden = true;
  $("lobby").hidden = false;
  history.replaceState(null, "", location.pathname + location.search); // the search keeps the join token
  refreshRooms();
}

refreshRooms();
setInterval(() => { if (!game.running) refreshRooms(); }, 3000);

// The games a new room may play.
fetch("/games").then((r) => r.json()).then((list) => {
  const sel = $("gameName");
  for (const g of list) {
    const o = [...sel.options].find((x) => x.value === g.name) || sel.appendChild(document.createElement("option"));
    o.value = g.name;
    o.textContent = g.label || g.name;
    o.title = g.description || "";
    sel.appendChild(o);
  }
  matchRoom();
}).catch((e) => console.warn("GET /games:", e));
