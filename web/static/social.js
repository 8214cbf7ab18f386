// The room's social side on the page: the roster (Tab), the chat box
// (Enter or T), the quick-chat wheel (V), the emote wheel (B), the vote
// prompt (Y / N) and party invitations, and the emotes over the players.
// It reads the server's text frames and sends commands on the game's
// connection. Everything a player wrote, names included, goes into the
// page as text (textContent), never as markup.

import { ACT, D } from "./client.js";
import { $, game } from "./game.js";
import * as hooks from "./hooks.js";
import { icon, drawIcon, ICON_NAMES } from "./icons.js";

// An emote's icon is the icon of its name (icons.js), drawn from paths:
// an emoji needs a font the player may lack.
const emoteIcon = (name) => (ICON_NAMES.includes(name) ? name : "");
const CHAT_LINES = 8;     // lines the chat box shows: the page's choice
const CHAT_FADE = 15000;  // ms a line stays once the box is closed: the page's choice

const st = {
  me: 0,                  // this client's session
  consts: null,           // the social frame
  roster: new Map(),      // session -> roster line
  vote: null,             // the vote frame while open
  voted: false,
  voteAt: 0,              // performance.now() of the vote frame
  invites: [],            // party frames of invitations standing
  nextId: 1,
  wheel: "",              // "quick", "emote" or ""
};

function conn() { return game.running ? game.conn : null; }

function send(cmd) {
  const c = conn();
  if (!c) return false;
  cmd.id = st.nextId++;
  return c.send(JSON.stringify(cmd));
}

function name(session) {
  const l = st.roster.get(session);
  return l ? l.name : `session ${session}`;
}

// ---- the chat box ----------------------------------------------------------

function line(who, text, cls) {
  const log = $("chatLog");
  const div = document.createElement("div");
  div.className = "line " + (cls || "");
  if (who) {
    const b = document.createElement("span");
    b.className = "who";
    b.textContent = who + ": ";
    div.appendChild(b);
  }
  const t = document.createElement("span");
  t.className = "text";
  t.textContent = text;
  div.appendChild(t);
  div.dataset.at = String(performance.now());
  log.appendChild(div);
  while (log.children.length > 50) log.removeChild(log.firstChild);
  log.scrollTop = log.scrollHeight;
  fade();
}

function system(text) { line("", text, "system"); }

// fade hides the old lines while the chat box is closed.
function fade() {
  const open = document.activeElement === $("chatInput");
  const log = $("chatLog");
  const now = performance.now();
  const n = log.children.length;
  for (let i = 0; i < n; i++) {
    const el = log.children[i];
    const old = now - Number(el.dataset.at) > CHAT_FADE;
    el.hidden = !open && (old || i < n - CHAT_LINES);
  }
}

function openChat() {
  $("chatInput").hidden = false;
  $("chatInput").focus();
  fade();
}

function closeChat() {
  $("chatInput").value = "";
  $("chatInput").blur();
  $("chatInput").hidden = true;
  fade();
}

function sendChat() {
  const text = $("chatInput").value.trim();
  if (text) send({ type: "chat", text });
  closeChat();
}

// ---- the roster ------------------------------------------------------------

function renderRoster() {
  const tb = $("rosterTable").querySelector("tbody");
  tb.textContent = "";
  const mine = st.roster.get(st.me);
  for (const l of [...st.roster.values()].sort((a, b) => a.session - b.session)) {
    const tr = document.createElement("tr");
    if (l.session === st.me) tr.className = "me";
    const cells = [l.player ? `P${l.player}` : "–", l.name, l.party ? `party ${l.party}` : "", l.account ? "yes" : "",
      `${l.ping} ms`, l.state];
    for (const v of cells) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.appendChild(td);
    }
    const td = document.createElement("td");
    if (l.session !== st.me && l.state !== "spectator" && mine && mine.state !== "spectator") {
      if (!l.party || l.party !== mine.party) td.appendChild(button("Invite", () => send({ type: "party", cmd: "invite", session: l.session })));
      td.appendChild(button("Vote kick", () => send({ type: "vote", cmd: "kick", session: l.session }), "danger"));
    }
    if (l.session === st.me && l.party) td.appendChild(button("Leave party", () => send({ type: "party", cmd: "leave" })));
    tr.appendChild(td);
    tb.appendChild(tr);
  }
  $("rosterCount").textContent = `${st.roster.size} in the room`;
}

function button(text, onclick, cls) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  if (cls) b.className = cls;
  b.onclick = onclick;
  return b;
}

function applyRoster(m) {
  if (m.full) st.roster.clear();
  for (const s of m.gone || []) st.roster.delete(s);
  for (const l of m.players || []) st.roster.set(l.session, l);
  renderRoster();
}

// ---- the wheels --------------------------------------------------------------

function openWheel(kind) {
  if (!st.consts) return;
  const items = kind === "quick" ? st.consts.quickChat : st.consts.emotes;
  const w = $("wheel");
  w.textContent = "";
  const title = document.createElement("div");
  title.className = "title";
  title.textContent = kind === "quick" ? "quick chat" : "emotes";
  w.appendChild(title);
  items.forEach((text, i) => {
    const b = document.createElement("button");
    b.type = "button";
    const a = (i / items.length) * 2 * Math.PI - Math.PI / 2;
    b.style.left = `${50 + 38 * Math.cos(a)}%`;
    b.style.top = `${50 + 38 * Math.sin(a)}%`;
    b.textContent = `${i + 1} `;
    if (kind === "emote" && emoteIcon(text)) b.append(icon(emoteIcon(text), 18), " ");
    b.append(text);
    b.dataset.pick = i;
    b.onclick = () => pick(i);
    w.appendChild(b);
  });
  st.wheel = kind;
  w.hidden = false;
}

function closeWheel() {
  st.wheel = "";
  $("wheel").hidden = true;
}

function pick(i) {
  if (st.wheel === "quick") send({ type: "quickchat", line: i });
  if (st.wheel === "emote") send({ type: "emote", emote: i });
  closeWheel();
}

// ---- the vote and the invitations ---------------------------------------------

function onVote(m) {
  if (m.state === "open") {
    if (!st.vote || st.vote.id !== m.id) {
      st.voted = m.starter === st.me;
      const by = m.starter === st.me ? "You" : name(m.starter);
      system(`${by} started a vote to kick ${m.targetName}`);
    }
    st.vote = m;
    st.voteAt = performance.now();
  } else {
    const outcome = { passed: "was voted out", failed: "stays: the vote failed", timeout: "stays: the vote ran out of time",
      "target-left": "left before the vote ended", "too-few": "stays: too few voters left" }[m.state] || m.state;
    system(`${m.targetName || "the player"} ${outcome}`);
    st.vote = null;
  }
  renderVote();
}

function renderVote() {
  const v = st.vote, el = $("votePrompt");
  const mayVote = v && !st.voted && (v.voters || []).includes(st.me);
  if (!v || (!mayVote && v.target !== st.me)) { el.hidden = true; return; }
  const left = Math.max(0, v.seconds - (performance.now() - st.voteAt) / 1000);
  $("voteText").textContent = v.target === st.me
    ? `A vote to kick you is running: ${v.yes} of ${v.need} needed (${left.toFixed(0)} s)`
    : `Kick ${v.targetName}? ${v.yes} yes, ${v.no} no, ${v.need} needed (${left.toFixed(0)} s)`;
  $("voteYes").hidden = $("voteNo").hidden = !mayVote;
  el.hidden = false;
}

function ballot(yes) {
  if (!st.vote || st.voted) return;
  if (send({ type: "vote", cmd: yes ? "yes" : "no" })) st.voted = true;
  renderVote();
}

function renderInvites() {
  const el = $("partyPrompt");
  const now = performance.now();
  st.invites = st.invites.filter((m) => now < m.until);
  el.textContent = "";
  for (const m of st.invites) {
    const row = document.createElement("div");
    const t = document.createElement("span");
    t.textContent = `${m.name} invites you to ${m.party ? "party " + m.party : "a party"} `;
    row.append(t,
      button("Accept", () => answer(m, "accept")),
      button("Decline", () => answer(m, "decline"), "secondary"));
    el.appendChild(row);
  }
  el.hidden = st.invites.length === 0;
}

function answer(m, cmd) {
  send({ type: "party", cmd, session: m.from });
  st.invites = st.invites.filter((x) => x !== m);
  renderInvites();
}

// ---- frames and keys -----------------------------------------------------------

hooks.onText("welcome", (m) => {
  st.me = m.session;
  st.roster.clear();
  st.vote = null;
  st.invites = [];
  $("chatLog").textContent = "";
  closeWheel();
  closeChat();
  renderVote();
  renderInvites();
});
hooks.onText("social", (m) => {
  st.consts = m;
  $("chatInput").maxLength = m.maxChat; // UTF-16 units: at most the characters the server takes
});
hooks.onText("roster", applyRoster);
hooks.onText("chat", (m) => {
  line(m.name, m.quick != null ? `[${m.text}]` : m.text, m.session === st.me ? "mine" : "");
});
hooks.onText("vote", onVote);
hooks.onText("party", (m) => {
  if (m.cmd === "invite") {
    st.invites = st.invites.filter((x) => x.from !== m.from);
    st.invites.push(Object.assign({ until: performance.now() + m.seconds * 1000 }, m));
    renderInvites();
    system(`${m.name} invites you to their party`);
  } else if (m.cmd === "declined") {
    system(`${m.name} declined your invitation`);
  }
});
hooks.onText("reply", (m) => {
  if (!m.ok && ["chat", "quickchat", "emote", "kick", "yes", "no", "invite", "accept", "decline", "leave"].includes(m.cmd)) {
    system(`${m.cmd}: ${m.error}`);
  }
});

window.addEventListener("keydown", (e) => {
  if (!conn()) return;
  if (e.target === $("chatInput")) {
    if (e.key === "Enter") { e.preventDefault(); sendChat(); }
    if (e.key === "Escape") { e.preventDefault(); e.stopPropagation(); closeChat(); }
    return;
  }
  if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
  if (e.code === "Tab") {
    e.preventDefault();
    if (!e.repeat) $("roster").hidden = !$("roster").hidden;
    return;
  }
  if (st.wheel) {
    // A number picks from the open wheel and does nothing else: not the
    // inventory's slot of that number (items.js leaves a key whose
    // default is prevented, and this listener runs first).
    const n = /^Digit[1-9]$/.test(e.code) ? Number(e.code.slice(5)) : 0;
    if (n) { e.preventDefault(); e.stopImmediatePropagation(); if (!e.repeat) pick(n - 1); return; }
    if (e.code === "Escape" || (e.code === "KeyV" && st.wheel === "quick") || (e.code === "KeyB" && st.wheel === "emote")) {
      e.preventDefault(); e.stopImmediatePropagation(); closeWheel(); return;
    }
  }
  if (e.repeat) return;
  switch (e.code) {
    case "Enter": case "KeyT": e.preventDefault(); openChat(); break;
    case "KeyV": openWheel("quick"); break;
    case "KeyB": openWheel("emote"); break;
    case "KeyY": ballot(true); break;
    case "KeyN": ballot(false); break;
  }
}, true); // capturing, before app.js: Esc closes a wheel or the chat, not the game

$("chatInput").addEventListener("blur", () => { $("chatInput").hidden = true; fade(); });
$("voteYes").onclick = () => ballot(true);
$("voteNo").onclick = () => ballot(false);
$("rosterClose").onclick = () => { $("roster").hidden = true; };
setInterval(() => {
  if (!conn()) { st.vote = null; st.invites = []; closeWheel(); } // the connection is gone: nothing to answer
  renderVote();
  renderInvites();
  fade();
}, 500);

// emoteLabel returns the name of the emote a person whose action is act
// plays, or "" for no emote.
function emoteLabel(act) {
  if (!st.consts || act < st.consts.emoteAct) return "";
  return st.consts.emotes[act - st.consts.emoteAct] || "";
}

// The emotes, over the players playing one, in screen space: the icon in
// a bubble, or the emote's name when it has no icon.
hooks.onDraw("screen", (v) => {
  const { ctx, f, n } = v;
  for (let i = 0; i < n; i++) {
    const b = i * D.stride;
    if (!f[b + D.player] || f[b + D.act] < ACT.emote) continue;
    const emote = emoteLabel(f[b + D.act]);
    if (!emote) continue;
    const x = v.sx(f[b + D.x]), y = v.sy(f[b + D.y]) - 40;
    ctx.fillStyle = "rgba(255,255,255,0.92)";
    ctx.beginPath();
    ctx.arc(x, y, 14, 0, 2 * Math.PI);
    ctx.fill();
    if (emoteIcon(emote)) drawIcon(ctx, emoteIcon(emote), x, y, 20, "#1b1f24");
    else { ctx.fillStyle = "#1b1f24"; ctx.fillText(emote, x, y + 4); }
  }
});

// The browser tests read the social state (social_browser_test.go).
window.foiSocial = { state: st, emoteLabel };
