// The room page: members, invite, waiting room, timers, results, event log and chat, for any game.
// The game itself is drawn by its package's page module (page/page.js, named by the page's
// data-module; docs/adding-a-game.md, "The page"), which exports
//   mount(container, ctx) -> { update(stateFrame), destroy() }
// where ctx = { seat, table, send(action), name(seat), text(eventText), members(), sound(name),
// vibrate(pattern), recent(listen): the events told before this page joined, handed to `listen`
// now and when they come (the narration line's, narration.js) }, and optionally onEvent(event) (live events only, transient ones included)
// and onRoom(roomFrame). A new match (the state frame's `match` number, or a new seed hash in the
// room frame from a server that does not send it) mounts the game afresh. A finished match's page
// mounts the same modules with ctx.readOnly = true (static/js/replay.js): draw the frames handed
// over, offer no action.
import {
  RoomSocket, forgetToken, saveNickname, saveToken, savedNickname, savedToken,
} from "./protocol.js";
import { redraw, setText } from "./dom.js";
import { renderResults } from "./results.js";
import { Sounds } from "./sounds.js";
import { awayBanner, clockBanner, isAway as isAwayFrom } from "./banners.js";
import { T, eventLine, eventText, plural } from "./texts.js";
import { lang, t } from "./i18n.js";

const root = document.getElementById("room");
const code = root.dataset.code;
const gameId = root.dataset.game;
const tableMode = root.dataset.table === "true";
const optionsSchema = JSON.parse(root.dataset.optionsSchema || "{}");
const $ = (id) => document.getElementById(id);

const state = {
  me: null, seat: null, room: null, frame: null, version: -1, game: null, gameModule: null,
  nickname: savedNickname(), fill: false, match: null, stale: null, watchingReason: null,
  connected: false, recent: [], recentListeners: new Set(),
};
const sounds = new Sounds();

function joinFrame() {
  if (tableMode) return { type: "join", watch: true };
  const token = savedToken(code);
  if (token) return { type: "join", token };
  state.wantedName = state.nickname; // told below if the room gave them another name
  return { type: "join", nickname: state.nickname };
}

// A removed member sees only the removal and the way back to the lobby, also after a reload
// (the page remembers it for this room: its token is void, and so is its nickname).
const REMOVED_KEY = `pp:removed:${code}`;
function showRemoved() {
  try { localStorage.setItem(REMOVED_KEY, "1"); } catch { /* private mode */ }
  document.body.classList.add("removed");
  $("removed-panel").hidden = false;
  closeSide();
}

const socket = new RoomSocket(code, joinFrame, {
  onFrame, onState: setConnection, onForget: () => forgetToken(code),
});

// --- connection state: always visible in the room header -----------------------------------
const CONN_OK = new Set(["connected"]);
const CONN_FINAL = new Set(["removed", "roomClosed", "noRoom", "takenOver", "disconnected"]);
// The pill stays hidden until there is a connection to speak of: the join form (a newcomer
// typing their name) shows no connection state (docs/decisions/0056).
function setConnection(name, detail) {
  const pill = $("conn");
  if (name === "disconnected" && !$("join-panel").hidden) return;
  pill.hidden = false;
  state.connected = CONN_OK.has(name);
  pill.dataset.state = name;
  let text = T[name] || name;
  if (name === "connected" && tableMode) text = T.watchingTable;
  // The wait in whole seconds; under one, only "reconnecting…" (not "in 0.3 s").
  if (name === "lost" && detail >= 1) text = T.retryIn(Math.round(detail));
  $("conn-text").textContent = text;
  pill.classList.toggle("final", CONN_FINAL.has(name));
  if (name === "removed") showRemoved();
  showTakenOver(name === "takenOver");
  document.body.classList.toggle("offline", !state.connected);
}

// The seat is open in another tab (close 4005, docs/protocol.md): that tab plays; this one says
// so, sends nothing and does not reconnect until its person takes the seat back here (a join
// with the same token, which closes the other tab the same way).
function showTakenOver(on) {
  const was = !$("taken-over-panel").hidden;
  document.body.classList.toggle("taken-over", on);
  $("taken-over-panel").hidden = !on;
  if (on && !was) { closeSide(); $("take-back-btn").focus(); }  // read out, and one key away
}
$("take-back-btn").addEventListener("click", () => socket.restart());

function setStatus(text) {
  $("status-line").textContent = text || "";
  delete $("status-line").dataset.kind;
}

function start() {
  if (!tableMode && localStorage.getItem(REMOVED_KEY)) {
    setConnection("removed");
    return;
  }
  if (!tableMode && !savedToken(code) && !state.nickname) {
    showJoin();
    return;
  }
  socket.connect();
}

// The join page: whose room, which game and who is in are the server's (templates/room.html);
// no connection state is shown before there is a connection to lose.
// The join page's list of who is in (drawn by the server, docs/decisions/0056), kept current
// while the newcomer types: the room's public summary, asked again every few seconds while the
// panel shows and when the page comes back into focus (no socket: nothing is connected before
// the newcomer joins).
const JOIN_REFRESH_MS = 4000;
let joinRefresh = 0;

function drawJoinWho(members) {
  const who = $("join-who");
  if (!members.length) {
    const none = document.createElement("p");
    none.className = "join-in";
    none.textContent = t("room.join_nobody");
    who.replaceChildren(none);
    return;
  }
  const label = document.createElement("p");
  label.className = "join-in";
  label.id = "join-in-label";
  label.textContent = `${t("room.join_in")} (${members.length})`;
  const list = document.createElement("ul");
  list.className = "join-members";
  list.setAttribute("aria-labelledby", "join-in-label");
  for (const m of members) {
    const li = document.createElement("li");
    li.textContent = m.nickname;
    if (m.bot) {
      li.className = "bot";
      const mark = document.createElement("span");
      mark.className = "join-bot";
      mark.textContent = `(${t("room.bots.mark")})`;
      li.append(" ", mark);
    }
    list.append(li);
  }
  who.replaceChildren(label, list);
}

async function refreshJoinWho() {
  if ($("join-panel").hidden) { clearInterval(joinRefresh); joinRefresh = 0; return; }
  try {
    const answer = await fetch(`/api/rooms/${code}`, { cache: "no-store" });
    if (!answer.ok) return;
    const room = await answer.json();
    if (!$("join-panel").hidden && Array.isArray(room.members)) {
      drawJoinWho(room.members.filter((m) => !m.left));
    }
  } catch { /* no network: the list stays as it was */ }
}

window.addEventListener("focus", () => { if (!$("join-panel").hidden) refreshJoinWho(); });

function showJoin() {
  $("join-panel").hidden = false;
  if (!joinRefresh) joinRefresh = setInterval(refreshJoinWho, JOIN_REFRESH_MS);
  $("conn").hidden = true;
  document.body.classList.remove("offline");
  $("nickname").value = state.nickname;
  $("nickname").focus();
  setStatus(T.chooseNickname);
}

$("join-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const name = $("nickname").value.trim();
  if (!name) return;
  state.nickname = name;
  saveNickname(name);
  $("join-panel").hidden = true;
  setStatus("");
  socket.restart();
});

// --- frames from the server ----------------------------------------------------------------
function onFrame(frame) {
  switch (frame.type) {
    case "welcome": onWelcome(frame); break;
    case "room": onRoom(frame); break;
    case "state": onState(frame); break;
    case "history":
      $("event-log").replaceChildren();
      for (const e of frame.events) addEvent(e, false);
      // What happened before this page joined (a reload, a TV switched on mid-match): the
      // narration line (narration.js) says the last of it, without a live event's highlight.
      state.recent = frame.events;
      for (const listen of state.recentListeners) listen(state.recent);
      $("chat-log").replaceChildren();
      for (const c of frame.chat) addChat(c, false);
      break;
    case "chat": addChat(frame, true); break;
    case "ping": updateRtts(frame.rtt || {}); break;
    case "saving":  // moves wait for the server's database (docs/protocol.md, "Saving")
      setStatus(frame.waiting ? T.savingMoves : "");
      break;
    case "error": onError(frame); break;
    default: break;
  }
}

function onWelcome(frame) {
  state.me = frame.member;
  state.seat = frame.seat;
  // A join brings the whole state, and its version is the truth, even one below what this page
  // saw before (a restart may drop moves the rules no longer accept: docs/protocol.md, "Saving").
  state.version = -1;
  state.stale = null;
  saveToken(code, frame.token);
  setConnection("connected");
  state.watchingReason = frame.member !== null && frame.seat === null && !tableMode
    ? (frame.watching_reason || "other") : null;
  renderWatching();
}

// A member who watches (joined after the start, or when the seats were full) is told so, and why.
function renderWatching() {
  const room = state.room;
  const mine = room && room.members.find((m) => m.id === state.me);
  const watching = !tableMode && !!mine && !mine.player;
  if (!watching || !state.watchingReason) {
    if ($("join-panel").hidden && $("status-line").dataset.kind === "watching") setStatus("");
    return;
  }
  const text = { started: T.watchingStarted, full: T.watchingFull }[state.watchingReason] || T.watchingOther;
  setStatus(text);
  $("status-line").dataset.kind = "watching";
}

// A running match that no person is connected to is paused (docs/protocol.md, "Computer
// players"): what still watches (a table view) says so, and its timers stand still.
function renderPaused(room) {
  const line = $("status-line");
  if (room.paused) {
    setStatus(T.paused);
    line.dataset.kind = "paused";
  } else if (line.dataset.kind === "paused") {
    setStatus("");
  }
}

function onError(frame) {
  if (frame.code === "bad_token") {
    forgetToken(code);
    if (state.nickname) { socket.restart(); return; }
    socket.stop();
    showJoin();
    return;
  }
  // removed, room_closed, no_such_room, ...: the close that follows sets the connection state.
  if (["removed", "room_closed", "no_such_room", "too_slow", "join_timeout", "too_many_connections", "taken_over", "throttled", "unavailable"].includes(frame.code)) return;
  // English pages show the server's own words; other languages the catalog's, where it has the
  // code (errors with details, an illegal move say, keep the server's words).
  toast(lang === "en" ? frame.message : t(`room.error.${frame.code}`, {}, frame.message));
}

function onRoom(room) {
  const previous = state.room;
  state.room = room;
  // A new match: the room's match number grew (the state frame's `match` tells it too).
  if (state.match !== null && room.match_number > state.match) newMatch(room.match_number);
  const mine = room.members.find((m) => m.id === state.me);
  if (mine) state.seat = mine.seat;
  if (mine && state.wantedName) {
    // A taken nickname gets a number ("Nicole 2"): the newcomer is told what they became.
    if (mine.nickname !== state.wantedName) {
      setStatus(T.renamed(state.wantedName, mine.nickname));
      $("status-line").dataset.kind = "renamed";
    }
    state.wantedName = null;
  }
  renderMembers();
  if (previous && inviteUpFront() !== wasUpFront(previous)) inviteForced = null;
  renderInvite();
  renderWaiting();
  renderResult();
  renderWatching();
  renderPaused(room);
  renderAway(previous, room);
  if (room.status !== "waiting") ensureGame();
  setPlaying();
  if (state.game && state.game.onRoom) state.game.onRoom(room);
  wakeLock(room.status === "playing");
  // A frame dropped as old may belong to the match that just started.
  if (state.stale && state.version < 0) {
    const stale = state.stale;
    state.stale = null;
    onState(stale);
  }
}

function wasUpFront(room) {
  const current = state.room;
  state.room = room;
  const upFront = inviteUpFront();
  state.room = current;
  return upFront;
}

function newMatch(number) {
  state.match = number;
  state.version = -1;
  state.frame = null;
  if (state.game) { state.game.destroy(); state.game = null; }
  state.recent = [];
  state.recentListeners.clear();
  $("event-log").replaceChildren();
}

function onState(frame) {
  if (state.match === null) state.match = frame.match;
  else if (frame.match > state.match) newMatch(frame.match);
  else if (frame.match < state.match) return;
  if (frame.version < state.version && state.frame) {
    state.stale = frame; // kept in case a room frame says a new match began
    return;
  }
  state.stale = null;
  if (state.version >= 0 && frame.version > state.version + 1 && frame.events.length === 0) {
    socket.send({ type: "resync" });
  }
  state.version = frame.version;
  state.frame = frame;
  state.seat = frame.seat;
  for (const e of frame.events) addEvent(e);
  renderTimers(frame.timers);
  renderMembers();
  ensureGame().then((g) => { if (g) { g.update(frame); setPlaying(); } });
}

// While a match runs, a game module that exports `layout = "fill"` gets the whole viewport: the
// room shrinks to one header line, the side panel becomes a sheet (a column on wide screens) and
// nothing scrolls (body.in-game, static/css/site.css). Other games keep the page as it flows.
function setPlaying() {
  const playing = !!(state.room && state.room.status === "playing" && state.game)
    && !(inviteForced === null && inviteUpFront());
  document.body.classList.toggle("in-game", playing && state.fill);
  document.body.classList.toggle("playing", playing);
  // Once a match is over its results name the winner; the narration line (which would say the
  // winning move's "Ben wins!") keeps its place, silent (docs/decisions/0061).
  document.body.classList.toggle("match-over", !!(state.room && state.room.status === "finished"));
  if (!playing || !state.fill) closeSide();
}

// --- the game module -------------------------------------------------------------------------
async function ensureGame() {
  if (state.game) return state.game;
  // The page names the module's versioned URL (app/web/assets.py), so it and what it imports
  // load once, from the browser's cache after the first visit.
  if (!state.gameModule) state.gameModule = import(root.dataset.module);
  const mod = await state.gameModule;
  state.fill = mod.layout === "fill";
  if (!state.game) {
    state.game = mod.mount($("game"), {
      get seat() { return state.seat; },
      table: tableMode,
      send: (action) => socket.send({ type: "action", action }),
      name: seatName,
      text: expandMarkers,
      event: describeEvent,
      members: () => (state.room ? state.room.members : []),
      sound: (name) => sounds.play(name),
      vibrate: (pattern) => { if (sounds.vibration && navigator.vibrate) navigator.vibrate(pattern); },
      recent: (listen) => { state.recentListeners.add(listen); if (state.recent.length) listen(state.recent); },
    });
  }
  return state.game;
}

function seatName(seat) {
  const m = state.room && state.room.members.find((x) => x.seat === seat);
  return m ? m.nickname : T.seatName(seat);
}

// An engine's `{seat:N}` markers as nicknames. The result is only ever set as text (textContent
// or a text node), never as HTML, so a nickname cannot inject markup.
// On a player's own page their marker reads "You" (texts.js, eventText).
function expandMarkers(text) {
  return eventText(text, seatName, tableMode ? null : state.seat);
}

// A game event in the page's language, from the catalogs (texts.js, eventLine).
function describeEvent(e) {
  return eventLine(e, gameId, seatName, tableMode ? null : state.seat, root.dataset.title);
}

// --- members ---------------------------------------------------------------------------------
function memberChip(m, room, active, amHost) {
  const chip = document.createElement("div");
  chip.className = "member";
  chip.dataset.member = m.id;
  if (m.seat !== null && active.has(m.seat) && room.status === "playing") chip.classList.add("active");
  if (m.id === state.me) chip.classList.add("me");
  if (m.left) chip.classList.add("left");
  const dot = document.createElement("span");
  dot.className = `dot ${m.connected ? "on" : "off"}`;
  dot.setAttribute("role", "img");
  dot.setAttribute("aria-label", m.connected ? T.connectedDot : T.disconnectedDot);
  const name = document.createElement("span");
  name.className = "name";
  const tags = [];
  if (m.id === room.host) tags.push(T.host);
  if (m.id === state.me) tags.push(T.you);
  if (!m.player) tags.push(T.watching);
  if (m.left) tags.push(T.left);
  else if (isAway(m)) tags.push(T.awayTag);
  if (m.bot) tags.push(T.botTag(T.botLevels[m.bot] || m.bot));
  if (m.played_by_bot) tags.push(T.playedByBot);
  name.textContent = m.nickname + (tags.length ? ` (${tags.join(", ")})` : "");
  if (m.bot || m.played_by_bot) {
    chip.classList.add(m.bot ? "bot" : "bot-played");
    name.prepend(botMark());
  }
  const rtt = document.createElement("span");
  rtt.className = "rtt";
  rtt.dataset.rtt = m.id;
  rtt.textContent = m.connected && m.rtt_ms ? `${m.rtt_ms} ms` : "";
  chip.append(dot, name, rtt);
  if (amHost && m.id !== state.me && !tableMode) chip.append(hostMenu(m));
  return chip;
}

// The host's tools for one member, folded in a small menu.
function hostMenu(m) {
  const menu = document.createElement("details");
  menu.className = "host-menu";
  const summary = document.createElement("summary");
  summary.setAttribute("aria-label", T.hostTools(m.nickname));
  summary.textContent = "⋯";
  const list = document.createElement("div");
  list.className = "host-menu-list";
  if (m.bot) {
    list.append(button(T.remove, () => {
      menu.open = false;
      socket.send({ type: "remove_bot", member: m.id });
    }, "danger"));
    menu.append(summary, list);
    return menu;
  }
  list.append(
    button(T.makeHost, () => { menu.open = false; socket.send({ type: "make_host", member: m.id }); }),
    button(T.remove, () => {
      menu.open = false;
      if (confirm(T.confirmRemove(m.nickname))) socket.send({ type: "kick", member: m.id });
    }, "danger"),
  );
  menu.append(summary, list);
  return menu;
}

function renderMembers() {
  const room = state.room;
  if (!room) return;
  const active = new Set(state.frame ? state.frame.active : []);
  const amHost = room.host === state.me && state.me !== null;
  const openMenu = document.querySelector(".host-menu[open]");
  const openFor = openMenu ? openMenu.parentElement.dataset.member : null;
  // Drawn again only when a chip would change (every state frame comes here; the round trips
  // are written in place by each ping: updateRtts).
  const key = JSON.stringify([room.members.map((m) => [{ ...m, rtt_ms: null }, isAway(m)]), [...active],
    amHost, room.host, state.me, room.status, room.watchers]);
  for (const box of [$("members"), $("people")]) {
    redraw(box, key, () => {
      const chips = room.members.map((m) => memberChip(m, room, active, amHost));
      if (room.watchers) {
        const w = document.createElement("div");
        w.className = "member watchers";
        w.textContent = T.tableViews(room.watchers);
        chips.push(w);
      }
      return chips;
    });
  }
  if (openFor) {
    const again = document.querySelector(`#people [data-member="${openFor}"] .host-menu, #members [data-member="${openFor}"] .host-menu`);
    if (again) again.open = true;
  }
}

// Every ping (each second) brings the round trips: a figure that did not change is not written
// again (a write is a style and layout pass of the page).
function updateRtts(rtts) {
  for (const [id, ms] of Object.entries(rtts)) {
    const text = ms ? `${ms} ms` : "";
    for (const el of document.querySelectorAll(`[data-rtt="${id}"]`)) setText(el, text);
    const m = state.room && state.room.members.find((x) => String(x.id) === id);
    if (m) m.rtt_ms = ms;
  }
}

// --- invite ------------------------------------------------------------------------------------
// While the room waits, the invite (code, link, QR code) is up front; during play it opens from
// the room badge.
// An open-table game (the counter) plays from the start: its invite is up front while the host
// is alone in the room.
let inviteForced = null;
function inviteUpFront() {
  const room = state.room;
  if (!room) return false;
  // Folded away (the room badge opens it) once someone else has joined: the next step leads.
  // The table view keeps it up front: it is the room's way in.
  if (room.status === "waiting") return tableMode || room.members.filter((m) => !m.bot && !m.left).length < 2;
  return root.dataset.openTable === "true" && room.members.filter((m) => m.player && !m.left).length < 2;
}

function renderInvite() {
  const show = inviteForced === null ? inviteUpFront() : inviteForced;
  $("invite").hidden = !show;
  $("share-toggle").setAttribute("aria-expanded", String(show));
  document.body.classList.toggle("inviting", !!show && tableMode);
}

$("share-toggle").addEventListener("click", () => {
  inviteForced = $("invite").hidden;
  renderInvite();
  setPlaying();
  if (!$("invite").hidden) {
    if (document.body.classList.contains("in-game")) document.body.classList.add("invite-over");
    $("invite").scrollIntoView({ block: "nearest" });
    $("copy-link").focus();
  } else {
    document.body.classList.remove("invite-over");
  }
});

$("copy-link").addEventListener("click", async () => {
  const input = $("join-link");
  try {
    await navigator.clipboard.writeText(input.value);
    toast(T.copied);
  } catch {
    input.focus();
    input.select();
    toast(T.linkCopyFailed);
  }
});

if (navigator.share && !tableMode) {
  $("share-link").hidden = false;
  $("share-link").addEventListener("click", () => {
    navigator.share({ title: T.shareTitle(root.dataset.title), url: $("join-link").value }).catch(() => {});
  });
}

// --- waiting room and options ----------------------------------------------------------------
function renderWaiting() {
  const room = state.room;
  const waiting = room.status === "waiting" && !tableMode;
  $("waiting").hidden = !waiting;
  $("next-step").hidden = !waiting;
  if (!waiting) return;
  const amHost = room.host === state.me;
  const players = room.members.filter((m) => m.player && !m.left).length;
  if (amHost) renderOptions(room.options);
  else renderOptionsText(room.options);
  $("options-form").hidden = !amHost;
  $("options-text").hidden = amHost;
  const min = Number(root.dataset.minPlayers), max = Number(root.dataset.maxPlayers);
  const ready = players >= min && players <= max;
  renderBots(amHost, players, max);
  // The one thing this person can do now leads the page (docs/architecture.md, "The room
  // page"): the host's Start (sticky on a phone), a player's word that they are in.
  const mine = room.members.find((m) => m.id === state.me);
  $("start-btn").hidden = !amHost;
  $("start-btn").disabled = !ready;
  $("next-step").classList.toggle("with-start", amHost);
  $("waiting-note").textContent = !amHost
    ? (mine && mine.player ? T.youreIn(mine.nickname, hostName()) : T.waitingForHost(hostName()))
    : ready ? T.readyToStart(players) : T.needPlayers(players, min, max);
}

function hostName() {
  const h = state.room.members.find((m) => m.id === state.room.host);
  return h ? h.nickname : T.theHost;
}

function optionChoiceText(value, key) {
  if (value === true) return T.yes;
  if (value === false) return T.no;
  return t(`game.${gameId}.option.${key}.${value}`, {}, String(value).replaceAll("_", " "));
}

function renderOptionsText(values) {
  const props = optionsSchema.properties || {};
  const list = $("options-text");
  list.replaceChildren();
  for (const [key, prop] of Object.entries(props)) {
    const dt = document.createElement("dt");
    dt.textContent = t(`game.${gameId}.option.${key}`, {}, prop.title || key);
    const dd = document.createElement("dd");
    dd.textContent = optionChoiceText(values[key], key);
    list.append(dt, dd);
  }
}

function renderOptions(values) {
  const form = $("options-form");
  const props = optionsSchema.properties || {};
  const focused = document.activeElement && form.contains(document.activeElement) ? document.activeElement.name : null;
  // The field being edited keeps what it shows: a room frame (someone joining, the answer to an
  // earlier change) rebuilds the form, and the field would fall back to the room's old value
  // while its own change is on the way (a change sent from it then would send the old value).
  const draft = focused && form.elements[focused] && form.elements[focused].type !== "checkbox"
    ? form.elements[focused].value : null;
  form.replaceChildren();
  // The options a group seldom changes (`"expert": true` in the game's schema) are folded away
  // under "More options", which stays as the host left it while the form is drawn again.
  let more = null;
  for (const [key, prop] of Object.entries(props)) {
    const label = document.createElement("label");
    label.className = "option";
    const title = document.createElement("span");
    title.textContent = t(`game.${gameId}.option.${key}`, {}, prop.title || key);
    let input;
    const choices = prop.enum || null;
    if (prop.type === "boolean") {
      input = document.createElement("input");
      input.type = "checkbox";
      input.checked = !!values[key];
      label.classList.add("check");
    } else if (choices) {
      input = document.createElement("select");
      for (const c of choices) input.append(new Option(optionChoiceText(c, key), c, false, values[key] === c));
    } else {
      input = document.createElement("input");
      input.type = "number";
      if (prop.minimum !== undefined) input.min = prop.minimum;
      if (prop.maximum !== undefined) input.max = prop.maximum;
      input.value = values[key];
    }
    input.name = key;
    input.addEventListener("change", () => {
      const v = input.type === "checkbox" ? input.checked : input.type === "number" ? Number(input.value) : input.value;
      socket.send({ type: "set_options", options: { ...state.room.options, [key]: v } });
    });
    if (prop.description) {
      const hint = document.createElement("small");
      hint.textContent = t(`game.${gameId}.option.${key}.hint`, {}, prop.description);
      label.append(title, input, hint);
    } else label.append(title, input);
    if (!prop.expert) form.append(label);
    else {
      if (!more) more = moreOptions();
      more.append(label);
    }
  }
  if (more) form.append(more);
  if (focused && form.elements[focused]) {
    if (draft !== null) form.elements[focused].value = draft;
    form.elements[focused].focus();
  }
}

let moreOpen = false;
function moreOptions() {
  const more = document.createElement("details");
  more.id = "more-options";
  more.className = "more-options";
  more.open = moreOpen;
  const summary = document.createElement("summary");
  summary.textContent = t("room.more_options");
  more.append(summary);
  more.addEventListener("toggle", () => { moreOpen = more.open; });
  return more;
}

// --- computer players (docs/bots.md, "In a room"): the host adds bots to free seats ----------
function botMark() {
  const mark = document.createElement("span");
  mark.className = "bot-mark";
  mark.setAttribute("role", "img");
  mark.setAttribute("aria-label", T.botMark);
  return mark;
}

function renderBots(amHost, players, max) {
  const room = state.room;
  const show = amHost && !!room.bots;
  $("bots-panel").hidden = !show;
  if (!show) return;
  $("bots-title").textContent = T.botsTitle;
  $("bot-level-label").textContent = T.botDifficulty;
  for (const opt of $("bot-level").options) opt.textContent = T.botLevels[opt.value];
  showLevel();
  $("add-bot-btn").textContent = T.addBot;
  $("add-bot-btn").disabled = players >= max;
  $("bots-note").textContent = players >= max ? T.botsFull : "";
  $("takeover-label").textContent = T.takeoverSeconds;
  const input = $("takeover-seconds");
  const seconds = room.room_options ? room.room_options.bot_takeover_seconds : 20;
  if (document.activeElement !== input) input.value = seconds;
}

// What the chosen level means in this game: its speed or skill, from the game's texts (each
// option's data-about, rendered by the server; docs/bots.md, "Levels").
function showLevel() {
  $("bot-level-about").textContent = $("bot-level").selectedOptions[0]?.dataset.about ?? "";
}
$("bot-level").addEventListener("change", showLevel);
$("add-bot-btn").addEventListener("click", () => {
  socket.send({ type: "add_bot", difficulty: $("bot-level").value });
});
$("takeover-seconds").addEventListener("change", (e) => {
  const seconds = Math.max(0, Math.min(600, Math.round(Number(e.target.value) || 0)));
  socket.send({ type: "set_options", room: { bot_takeover_seconds: seconds } });
});

$("start-btn").addEventListener("click", () => socket.send({ type: "start" }));
$("rematch-btn").addEventListener("click", () => socket.send({ type: "rematch" }));

// --- the banners (banners.js, the same for every game): who is away, the running clocks ------
const awayLine = awayBanner($("away-line"));
const clocks = clockBanner($("timers"), { label: timerLabel, name: seatName });
function isAway(m) { return isAwayFrom(m, state.room); }
function renderAway(previous, room) { awayLine.update(previous, room, state.me); }
function renderTimers(timers) { clocks.set(timers); }

// A timer's label in the page's language: `timer.<game>.<the key's prefix>` ("turn:12" -> turn).
function timerLabel(timer) {
  return t(`timer.${gameId}.${String(timer.key).split(":")[0]}`, {}, timer.label);
}
setInterval(() => { clocks.draw(); awayLine.draw(); }, 250);

// --- result: the shared results part (results.js) --------------------------------------------
function renderResult() {
  const room = state.room;
  const r = room.result;
  if (r && room.status === "finished") clocks.clear();
  renderResults({
    room, game: gameId, seat: state.seat, me: state.me, table: tableMode,
    sound: (name) => sounds.play(name), botMark,
  });
  if (!r) return;
  const link = $("result-link");
  const saved = room.match_id && (room.save_state === undefined || room.save_state === null || room.save_state === "saved");
  link.dataset.saveState = saved ? "saved" : (room.save_state || "saving");
  if (saved) {
    const a = document.createElement("a");
    a.href = `/matches/${room.match_id}`;
    a.textContent = T.savedAs(room.match_id);
    const again = document.createElement("a"); // the match's own board, from its first move
    again.href = `/matches/${room.match_id}?move=0`;
    again.id = "watch-again";
    again.textContent = t("replay.watch");
    link.replaceChildren(a, " · ", again);
  } else {
    link.textContent = room.save_state === "retrying" ? T.retryingSave : T.savingMatch;
  }
  const finished = room.status === "finished";
  const amHost = room.host === state.me && state.me !== null;
  $("rematch-btn").hidden = !(amHost && finished) || tableMode;
  $("rematch-note").hidden = !finished || amHost || tableMode;
  $("rematch-note").textContent = T.waitingForHostAgain(hostName());
}

// --- event log and chat ----------------------------------------------------------------------
function addEvent(e, live = true) {
  const notify = live && state.game && state.game.onEvent;
  if (e.transient) {
    if (notify) state.game.onEvent(e);
    return;
  }
  const li = document.createElement("li");
  li.className = `ev ev-${e.kind}`;
  li.textContent = describeEvent(e);
  const log = $("event-log");
  log.prepend(li);
  while (log.children.length > 100) log.lastChild.remove();
  if (notify) state.game.onEvent(e);
}

function addChat(c, live) {
  const li = document.createElement("li");
  const who = document.createElement("b");
  who.textContent = `${c.nickname}: `;
  li.append(who, document.createTextNode(c.text));
  $("chat-log").append(li);
  $("chat-log").scrollTop = 1e9;
  if (live && !($("chat-panel").open && sideVisible())) {
    for (const badge of [$("chat-unread"), $("side-unread")]) {
      badge.hidden = false;
      badge.textContent = String(Number(badge.textContent || 0) + 1);
    }
  }
}

function clearUnread() {
  for (const badge of [$("chat-unread"), $("side-unread")]) { badge.hidden = true; badge.textContent = ""; }
}

$("chat-panel").addEventListener("toggle", () => { if ($("chat-panel").open) clearUnread(); });

$("chat-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const text = $("chat-input").value.trim();
  if (!text) return;
  socket.send({ type: "chat", text });
  $("chat-input").value = "";
});

// --- the side panel (people, log, chat): a sheet over the game on small screens ------------------
function sideVisible() {
  return getComputedStyle($("side")).display !== "none";
}

function closeSide() {
  document.body.classList.remove("side-open");
  $("side-btn").setAttribute("aria-expanded", "false");
}

$("side-btn").addEventListener("click", () => {
  const open = !document.body.classList.contains("side-open");
  document.body.classList.toggle("side-open", open);
  $("side-btn").setAttribute("aria-expanded", String(open));
  if (open) { clearUnread(); $("side-close").focus(); }
});
$("side-close").addEventListener("click", () => { closeSide(); $("side-btn").focus(); });
document.addEventListener("keydown", (ev) => {
  if (ev.key === "Escape" && document.body.classList.contains("side-open")) { closeSide(); $("side-btn").focus(); }
});

// --- the screen stays awake during a match ------------------------------------------------------
// The browser releases the lock when the page is hidden; it is asked for again when it shows.
let wakeLockSentinel = null; // the lock, or the promise of it while the request runs
async function wakeLock(on) {
  if (!("wakeLock" in navigator)) return;
  if (on && !wakeLockSentinel && document.visibilityState === "visible") {
    wakeLockSentinel = navigator.wakeLock.request("screen").then((lock) => {
      lock.addEventListener("release", () => { if (wakeLockSentinel === lock) wakeLockSentinel = null; });
      wakeLockSentinel = lock;
      return lock;
    }).catch(() => { wakeLockSentinel = null; });
  } else if (!on && wakeLockSentinel) {
    const lock = await wakeLockSentinel;
    wakeLockSentinel = null;
    if (lock) lock.release().catch(() => {});
  }
}
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && state.room && state.room.status === "playing") wakeLock(true);
});

// --- small helpers ---------------------------------------------------------------------------
function button(text, onClick, cls = "") {
  const b = document.createElement("button");
  b.type = "button";
  b.className = `btn ${cls}`;
  b.textContent = text;
  b.addEventListener("click", onClick);
  return b;
}

let toastTimer = null;
function toast(text) {
  let el = document.getElementById("toast");
  if (!el) {
    el = document.createElement("div");
    el.id = "toast";
    el.className = "toast";
    el.setAttribute("role", "alert");
    document.body.append(el);
  }
  el.textContent = text;
  el.classList.add("show");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => el.classList.remove("show"), 2500);
}

const muteBtn = $("mute-btn");
const SPEAKER = '<svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true"><path d="M3 9h4l5-4v14l-5-4H3z" fill="currentColor"/>';
function drawMute() {
  muteBtn.innerHTML = SPEAKER + (sounds.muted
    ? '<path d="M16 9l6 6M22 9l-6 6" stroke="currentColor" stroke-width="2"/></svg>'
    : '<path d="M16 8a5 5 0 0 1 0 8M19 5a9 9 0 0 1 0 14" stroke="currentColor" stroke-width="2" fill="none"/></svg>');
  muteBtn.setAttribute("aria-pressed", String(sounds.muted));
  muteBtn.setAttribute("aria-label", T.mute);
  muteBtn.title = sounds.muted ? T.soundOff : T.soundOn;
}
muteBtn.addEventListener("click", () => { sounds.setMuted(!sounds.muted); drawMute(); });
drawMute();

// Test hook: the page's own view of the connection and the match (read by the browser tests).
window.panicParty = { state, socket, plural };

start();
