// Run rooms on the page: a room that plays one run mission for a roster of
// seats in teams (docs/operations.md, "Run rooms"). The run panel shows the
// mission, its phase and the time left while waiting, and the roster of
// seats by team: who is connected, who dropped, is out or gone, the scores
// and the teams' scores. The countdown shows in big numbers, the result in
// a window of its own once the run ends. A player the run took out, and a
// spectator, watch someone: the spectate bar says whom, and [ and ] (or a
// click on a name in the roster) switch to the previous or next player
// still in the run. The frames are textframe/runs.go's: "run" as the page
// joins and whenever the run changes, "spectate" whenever whom the page
// watches changes; the command {"type":"spectate","session":N} switches.

import { TICK_RATE } from "./client.js";
import { game } from "./game.js";
import * as hooks from "./hooks.js";

const st = {
  run: null,          // the last run frame; null outside a run room
  spect: null,        // the last spectate frame; null before one
  tick: 0, tickAt: 0, // the server's tick as last read, and when (performance.now)
  liveAt: 0,          // performance.now() when the page saw the run go live
  nextId: 0x40000000, // the spectate commands' ids: clear of the other modules'
  pending: 0,         // the id of the spectate command waiting for its reply
  reply: "",          // its refusal, shown in the spectate bar
  resultClosed: false, // the result window closed by the player
};

const el = (id) => document.getElementById(id);

// What a seat's state says in the roster.
const SEAT_STATES = {
  empty: "not here yet",
  playing: "playing",
  dropped: "dropped: held for them",
  out: "out",
  "out-dropped": "out, dropped",
  gone: "gone",
};

// The overlays, made once beside the page's others.
function build() {
  if (el("runPanel")) return;
  const root = el("game") || document.body;
  const add = (html) => { root.insertAdjacentHTML("beforeend", html); };
  add(`<div id="runPanel" class="overlay" hidden><div id="runTitle"></div><div id="runPhase"></div>` +
    `<div id="runPay" hidden>a debug command was used: this run pays nothing</div>` +
    `<table id="runSeats"><tbody></tbody></table></div>`);
  add(`<div id="runCountdown" class="overlay" hidden></div>`);
  add(`<div id="runSpectate" class="overlay" hidden><span id="runWatching"></span>` +
    ` <button id="runPrev" type="button" class="secondary" title="the previous player ([)">[</button>` +
    `<button id="runNext" type="button" class="secondary" title="the next player (])">]</button>` +
    `<div id="runReply" hidden></div></div>`);
  add(`<div id="runResult" class="overlay window" hidden><h3 id="runOutcome"></h3><p id="runText"></p>` +
    `<p id="runNoPay" hidden>paid nothing: a debug command was used</p>` +
    `<table id="runScores"><tbody></tbody></table><p id="runCloses" class="hint"></p>` +
    `<button id="runResultClose" type="button" class="secondary">Close</button> ` +
    `<button id="runResultLeave" type="button">Back to the lobby</button></div>`);
  el("runPrev").addEventListener("click", () => cycle(-1));
  el("runNext").addEventListener("click", () => cycle(1));
  el("runResultClose").addEventListener("click", () => { st.resultClosed = true; drawResult(); });
  el("runResultLeave").addEventListener("click", () => el("leave").click());
  el("runSeats").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-session]");
    if (b) watch(Number(b.dataset.session));
  });
  window.addEventListener("keydown", (e) => {
    if (!game.running || !watching() || e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if (e.code === "BracketLeft" || e.code === "BracketRight") {
      if (!e.repeat) cycle(e.code === "BracketRight" ? 1 : -1);
      e.preventDefault();
    }
  });
}

hooks.onReset(() => {
  build();
  st.run = null; st.spect = null; st.liveAt = 0; st.pending = 0; st.reply = ""; st.resultClosed = false;
  st.tick = 0; st.tickAt = 0;
  draw();
});

hooks.onText("run", (m) => {
  const was = st.run ? st.run.phase : "";
  st.run = m;
  st.tick = m.tick || 0;
  st.tickAt = performance.now();
  if (m.phase === "live" && was !== "live") {
    st.liveAt = performance.now();
    setTimeout(drawCountdown, 1000); // "GO" goes, whether the tab draws frames or not
  }
  draw();
});

hooks.onText("spectate", (m) => {
  st.spect = m;
  drawSpectate();
  drawSeats();
});

hooks.onText("reply", (m) => {
  if (!st.pending || m.id !== st.pending) return;
  st.pending = 0;
  st.reply = m.ok ? "" : m.error || "refused";
  drawSpectate();
});

// The HUD takes the client's tick: the countdown and the time left count
// from it.
hooks.onHUD((state) => {
  if (state && state.tick && state.tick > now()) {
    st.tick = state.tick;
    st.tickAt = performance.now();
  }
  if (st.run) {
    drawPhase();
    drawCountdown();
  }
});

// The countdown counts down every frame the run counts down.
hooks.onDraw("screen", () => {
  if (st.run && (st.run.phase === "countdown" || st.liveAt)) drawCountdown();
});

// now returns the server's tick as the page reckons it: the last one read
// and the time since.
function now() {
  if (!st.tickAt) return 0;
  return st.tick + (performance.now() - st.tickAt) * TICK_RATE / 1000;
}

// secondsLeft returns the seconds until the phase ends (the frame's ends),
// null for a phase with no end.
function secondsLeft() {
  const r = st.run;
  if (!r || !r.ends) return null;
  return Math.max(0, (r.ends - now()) / TICK_RATE);
}

function clock(s) {
  const t = Math.ceil(s);
  return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, "0")}`;
}

function draw() {
  const r = st.run;
  el("runPanel").hidden = !r;
  if (!r) {
    el("runCountdown").hidden = true;
    el("runSpectate").hidden = true;
    el("runResult").hidden = true;
    return;
  }
  el("runTitle").textContent = r.title || r.mission;
  el("runPay").hidden = r.paying || !!r.result;
  drawPhase();
  drawSeats();
  drawCountdown();
  drawSpectate();
  drawResult();
}

// drawPhase writes the phase and the time left in it.
function drawPhase() {
  const r = st.run, left = secondsLeft();
  let text = r.phase;
  switch (r.phase) {
    case "waiting": text = "Waiting for the players" + (left != null ? ` · starts by ${clock(left)}` : ""); break;
    case "countdown": text = "Starting" + (left != null ? ` in ${Math.ceil(left)}` : ""); break;
    case "live": text = r.mode === "coop" ? "Live · co-op" : "Live"; break;
    case "ended": text = "Over" + (left != null ? ` · the room closes in ${clock(left)}` : ""); break;
    case "closed": text = "Over · the room closes"; break;
  }
  const p = el("runPhase");
  if (p.textContent !== text) p.textContent = text;
  p.dataset.phase = r.phase;
  if (r.phase === "ended" || r.phase === "closed") {
    const c = el("runCloses");
    c.textContent = left != null && r.phase === "ended" ? `The room closes in ${clock(left)}.` : "The room closes.";
  }
}

// drawCountdown shows the countdown's seconds in big numbers, and "GO"
// for a second once live.
function drawCountdown() {
  const c = el("runCountdown"), r = st.run;
  let text = "";
  if (r && r.phase === "countdown") {
    const left = secondsLeft();
    text = left == null ? "" : String(Math.max(1, Math.ceil(left)));
  } else if (r && r.phase === "live" && st.liveAt && performance.now() - st.liveAt < 1000) {
    text = "GO";
  } else {
    st.liveAt = 0;
  }
  if (c.textContent !== text) c.textContent = text;
  c.hidden = text === "";
}

// teamName returns team t's name.
function teamName(t) {
  const team = st.run && st.run.teams[t];
  return team ? team.name : `team ${t + 1}`;
}

// mySeat returns this page's seat of the run frame, null for a spectator.
function mySeat() {
  const r = st.run;
  return r && r.you >= 0 ? r.seats.find((s) => s.seat === r.you) || null : null;
}

// watching reports whether this page watches rather than plays: a
// spectator, or a player out of the run.
function watching() {
  const r = st.run;
  if (!r) return false;
  const me = mySeat();
  return !me || me.state === "out" || me.state === "out-dropped";
}

// watchable returns the seats a watcher may switch to, in seat order: the
// players still in the run (a dropped one's body is still in the world).
function watchable() {
  const r = st.run;
  if (!r) return [];
  return r.seats.filter((s) => s.session && s.seat !== r.you && (s.state === "playing" || s.state === "dropped"));
}

// watch asks the server to watch the player of session.
function watch(session) {
  if (!game.conn || !session) return;
  st.pending = st.nextId++;
  st.reply = "";
  game.conn.send(JSON.stringify({ type: "spectate", id: st.pending, session }));
}

// cycle switches to the next (dir 1) or previous (dir -1) player still in
// the run.
function cycle(dir) {
  const list = watchable();
  if (!list.length) {
    st.reply = "nobody else in the run to watch";
    drawSpectate();
    return;
  }
  const at = st.spect ? list.findIndex((s) => s.session === st.spect.session) : -1;
  const next = at < 0 ? (dir > 0 ? 0 : list.length - 1) : (at + dir + list.length) % list.length;
  watch(list[next].session);
}

// drawSeats writes the roster: the teams, each with its score and its
// seats (name, state, score). A watcher's names of players still in the
// run are buttons that switch to them.
function drawSeats() {
  const r = st.run, tb = el("runSeats").querySelector("tbody");
  tb.innerHTML = "";
  if (!r) return;
  fillScores(tb, r, watching());
}

// fillScores fills tb with run r's teams and seats; clickable, the names
// of the players a watcher may switch to are buttons.
function fillScores(tb, r, clickable) {
  const can = new Set(clickable ? watchable().map((s) => s.session) : []);
  const watched = st.spect ? st.spect.session : 0;
  r.teams.forEach((team, t) => {
    const th = document.createElement("tr");
    th.className = "team";
    th.dataset.team = t;
    const tn = document.createElement("td");
    tn.colSpan = 2;
    tn.textContent = team.name;
    const ts = document.createElement("td");
    ts.className = "score";
    ts.textContent = team.score;
    th.append(tn, ts);
    tb.appendChild(th);
    for (const s of r.seats) {
      if (s.team !== t) continue;
      const tr = document.createElement("tr");
      tr.className = "seat " + s.state + (s.connected ? " connected" : "") + (s.seat === r.you ? " me" : "") +
        (watched && s.session === watched ? " watched" : "");
      tr.dataset.seat = s.seat;
      const name = document.createElement("td");
      if (can.has(s.session)) {
        const b = document.createElement("button");
        b.type = "button";
        b.dataset.session = s.session;
        b.textContent = s.name;
        b.title = "watch them";
        name.appendChild(b);
      } else {
        name.textContent = s.name;
      }
      if (s.seat === r.you) name.append(" (you)");
      const state = document.createElement("td");
      state.className = "state";
      state.textContent = (SEAT_STATES[s.state] || s.state) + (s.late ? ", late" : "");
      const score = document.createElement("td");
      score.className = "score";
      score.textContent = s.score;
      if (s.teamHits) score.title = `${s.teamHits} hits on teammates`;
      tr.append(name, state, score);
      tb.appendChild(tr);
    }
  });
}

// drawSpectate shows whom this page watches, for a watcher in a run room.
function drawSpectate() {
  const bar = el("runSpectate");
  bar.hidden = !st.run || !watching();
  if (bar.hidden) return;
  const s = st.spect;
  el("runWatching").textContent = !s ? "Watching…"
    : s.session ? `Watching ${s.name || "player " + s.player}${s.team >= 0 ? ` (${teamName(s.team)})` : ""} · [ and ] switch`
      : "Nobody to watch";
  const reply = el("runReply");
  reply.textContent = st.reply;
  reply.hidden = !st.reply;
}

// outcomeText is the result's heading.
function outcomeText(res) {
  switch (res.outcome) {
    case "won": return `${teamName(res.winner)} wins`;
    case "forfeit": return `${teamName(res.winner)} wins by forfeit`;
    case "success": return "Success";
    case "failure": return "Failed";
    case "abandoned": return "Abandoned";
  }
  return res.outcome;
}

// drawResult shows the result window once the run has one.
function drawResult() {
  const r = st.run, w = el("runResult");
  const res = r && r.result;
  w.hidden = !res || st.resultClosed;
  if (!res) return;
  const me = mySeat();
  const mine = me && res.winner >= 0 && me.team === res.winner;
  el("runOutcome").textContent = outcomeText(res) + (mine ? ": your team!" : "");
  w.dataset.outcome = res.outcome;
  el("runText").textContent = res.text || "";
  el("runNoPay").hidden = !res.noPay;
  const tb = el("runScores").querySelector("tbody");
  tb.innerHTML = "";
  fillScores(tb, r, false);
  drawPhase();
}

// The browser tests read the run as the page holds it (foiRuns.info()).
window.foiRuns = {
  info() {
    return JSON.stringify({
      run: st.run, spect: st.spect, watching: watching(), reply: st.reply,
      countdown: el("runCountdown") ? el("runCountdown").textContent : "",
    });
  },
};
