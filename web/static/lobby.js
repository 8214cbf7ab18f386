// The lobby: the rooms (GET /rooms, refreshed while no game runs), the
// games (GET /games) and the join form. It needs no client to list rooms,
// so main.js evaluates it first; joining waits for app.js's join (ready).

import { $, game } from "./game.js";

let join = null; // app.js's join(room, opts), once the client is ready

// refreshRooms lists the rooms, each with a Join and a Watch button.
export async function refreshRooms() {
  try {
    const res = await fetch("/rooms");
    const rooms = await res.json();
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
      jb.onclick = () => join(r.name, { webrtc: $("webrtc").checked });
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
  } catch (e) {
    $("lobbyError").textContent = "GET /rooms: " + e.message;
  }
}

function formOpts(spectate) {
  return {
    level: $("level").value,
    game: $("gameName").value,
    traffic: $("traffic").value,
    pedestrians: $("pedestrians").value,
    webrtc: $("webrtc").checked,
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

// ready enables joining through joinFn(room, opts), and offers the levels
// the client has (names).
export function ready(joinFn, levels) {
  join = joinFn;
  $("loading").hidden = true;
  $("join").disabled = false;
  $("spectate").disabled = false;
  const sel = $("level");
  for (const name of levels) {
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

// The games a new room may run.
fetch("/games").then((r) => r.json()).then((list) => {
  const sel = $("gameName");
  for (const g of list) {
    const o = document.createElement("option");
    o.value = g.name;
    o.textContent = g.label || g.name;
    o.title = g.description || "";
    sel.appendChild(o);
  }
}).catch((e) => console.warn("GET /games:", e));
