// The room page: members, waiting room, timers, results, event log and chat, for any game.
// The game itself is drawn by static/js/games/<game>.js, which exports
//   mount(container, ctx) -> { update(stateFrame), destroy() }
// where ctx = { seat, table, send(action), name(seat), members(), sound(name), vibrate(pattern) },
// and optionally onEvent(event) (live events only, transient ones included) and onRoom(roomFrame).
import {
  RoomSocket, forgetToken, saveNickname, saveToken, savedNickname, savedToken,
} from "./protocol.js";
import { Sounds } from "./sounds.js";

const root = document.getElementById("room");
const code = root.dataset.code;
const gameId = root.dataset.game;
const tableMode = root.dataset.table === "true";
const optionsSchema = JSON.parse(root.dataset.optionsSchema || "{}");
const $ = (id) => document.getElementById(id);

const state = {
  me: null, seat: null, room: null, frame: null, version: -1, game: null, gameModule: null,
  nickname: savedNickname(),
};
const sounds = new Sounds();

function joinFrame() {
  if (tableMode) return { type: "join", watch: true };
  const token = savedToken(code);
  if (token) return { type: "join", token };
  return { type: "join", nickname: state.nickname };
}

const socket = new RoomSocket(code, joinFrame, { onFrame, onStatus: setStatus });

function setStatus(text, ok) {
  const line = $("status-line");
  line.textContent = text;
  line.classList.toggle("ok", !!ok);
}

function start() {
  if (!tableMode && !savedToken(code) && !state.nickname) {
    showJoin();
    return;
  }
  socket.connect();
}

function showJoin() {
  $("join-panel").hidden = false;
  $("nickname").value = state.nickname;
  $("nickname").focus();
  setStatus("Choose a nickname to join.", false);
}

$("join-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const name = $("nickname").value.trim();
  if (!name) return;
  state.nickname = name;
  saveNickname(name);
  $("join-panel").hidden = true;
  if (socket.ws) socket.ws.close();
  socket.stopped = false;
  socket.connect();
});

// --- frames from the server ----------------------------------------------------------------
function onFrame(frame) {
  switch (frame.type) {
    case "welcome":
      state.me = frame.member;
      state.seat = frame.seat;
      saveToken(code, frame.token);
      setStatus(frame.watching ? "Table view: watching." : "Connected.", true);
      break;
    case "room": onRoom(frame); break;
    case "state": onState(frame); break;
    case "history":
      for (const e of frame.events) addEvent(e, false);
      for (const c of frame.chat) addChat(c, false);
      break;
    case "chat": addChat(frame, true); break;
    case "ping": updateRtts(frame.rtt || {}); break;
    case "saving":  // moves wait for the server's database (docs/protocol.md, "Saving")
      setStatus(frame.waiting ? "Saving… the game resumes in a moment." : "Connected.", !frame.waiting);
      break;
    case "error": onError(frame); break;
    default: break;
  }
}

function onError(frame) {
  if (frame.code === "bad_token") {
    forgetToken(code);
    if (state.nickname) { socket.ws.close(); return; }
    socket.stopped = true;
    showJoin();
    return;
  }
  if (frame.code === "removed") {
    forgetToken(code);
    socket.stop();
    setStatus("The host removed you from this room.", false);
    return;
  }
  if (frame.code === "no_such_room") {
    socket.stop();
    setStatus("This room does not exist any more.", false);
    return;
  }
  toast(frame.message);
}

function onRoom(room) {
  state.room = room;
  const mine = room.members.find((m) => m.id === state.me);
  if (mine) state.seat = mine.seat;
  renderMembers();
  renderWaiting();
  renderResult();
  $("seed-hash").textContent = room.seed_hash || "—";
  // A shared screen shows how to join while the room waits.
  if (tableMode) $("share").hidden = room.status !== "waiting";
  if (room.status !== "waiting") ensureGame();
  if (state.game && state.game.onRoom) state.game.onRoom(room);
}

function onState(frame) {
  if (frame.version < state.version && state.frame) return;
  if (state.version >= 0 && frame.version > state.version + 1 && frame.events.length === 0) {
    socket.send({ type: "resync" });
  }
  state.version = frame.version;
  state.frame = frame;
  state.seat = frame.seat;
  for (const e of frame.events) addEvent(e);
  renderTimers(frame.timers);
  renderMembers();
  ensureGame().then((g) => g && g.update(frame));
}

// --- the game module -------------------------------------------------------------------------
async function ensureGame() {
  if (state.game) return state.game;
  if (!state.gameModule) state.gameModule = import(`/static/js/games/${gameId}.js`);
  const mod = await state.gameModule;
  if (!state.game) {
    state.game = mod.mount($("game"), {
      get seat() { return state.seat; },
      table: tableMode,
      send: (action) => socket.send({ type: "action", action }),
      name: seatName,
      members: () => (state.room ? state.room.members : []),
      sound: (name) => sounds.play(name),
      vibrate: (pattern) => { if (navigator.vibrate) navigator.vibrate(pattern); },
    });
  }
  return state.game;
}

function seatName(seat) {
  const m = state.room && state.room.members.find((x) => x.seat === seat);
  return m ? m.nickname : `Seat ${seat + 1}`;
}

// --- members ---------------------------------------------------------------------------------
function renderMembers() {
  const room = state.room;
  if (!room) return;
  const active = new Set(state.frame ? state.frame.active : []);
  const amHost = room.host === state.me && state.me !== null;
  const box = $("members");
  box.replaceChildren(...room.members.map((m) => {
    const chip = document.createElement("div");
    chip.className = "member";
    chip.dataset.member = m.id;
    if (m.seat !== null && active.has(m.seat) && room.status === "playing") chip.classList.add("active");
    if (m.id === state.me) chip.classList.add("me");
    const dot = document.createElement("span");
    dot.className = `dot ${m.connected ? "on" : "off"}`;
    dot.title = m.connected ? "connected" : "disconnected";
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = m.nickname + (m.id === room.host ? " ★" : "") + (m.player ? "" : " (watching)");
    const rtt = document.createElement("span");
    rtt.className = "rtt";
    rtt.dataset.rtt = m.id;
    rtt.textContent = m.connected && m.rtt_ms ? `${m.rtt_ms} ms` : "";
    chip.append(dot, name, rtt);
    if (amHost && m.id !== state.me && !tableMode) {
      const menu = document.createElement("span");
      menu.className = "host-tools";
      menu.append(
        button("Make host", () => socket.send({ type: "make_host", member: m.id }), "tiny ghost"),
        button("Remove", () => { if (confirm(`Remove ${m.nickname}?`)) socket.send({ type: "kick", member: m.id }); }, "tiny ghost"),
      );
      chip.append(menu);
    }
    return chip;
  }));
  if (room.watchers) {
    const w = document.createElement("div");
    w.className = "member watchers";
    w.textContent = `${room.watchers} table view${room.watchers > 1 ? "s" : ""}`;
    box.append(w);
  }
}

function updateRtts(rtts) {
  for (const [id, ms] of Object.entries(rtts)) {
    const el = document.querySelector(`[data-rtt="${id}"]`);
    if (el) el.textContent = ms ? `${ms} ms` : "";
    const m = state.room && state.room.members.find((x) => String(x.id) === id);
    if (m) m.rtt_ms = ms;
  }
}

// --- waiting room and options ----------------------------------------------------------------
function renderWaiting() {
  const room = state.room;
  const waiting = room.status === "waiting" && !tableMode;
  $("waiting").hidden = !waiting;
  if (!waiting) return;
  const amHost = room.host === state.me;
  const players = room.members.filter((m) => m.player).length;
  renderOptions(room.options, amHost);
  const min = Number(root.dataset.minPlayers), max = Number(root.dataset.maxPlayers);
  const ready = players >= min && players <= max;
  $("start-btn").hidden = !amHost;
  $("start-btn").disabled = !ready;
  $("waiting-note").textContent = !amHost
    ? `Waiting for ${seatHostName()} to start the match…`
    : ready
      ? `${players} player${players === 1 ? "" : "s"} in the room. Start when everyone is here.`
      : `${players} player${players === 1 ? "" : "s"} in the room: this game needs ${min} to ${max}. Share the code!`;
}

function seatHostName() {
  const h = state.room.members.find((m) => m.id === state.room.host);
  return h ? h.nickname : "the host";
}

function renderOptions(values, editable) {
  const form = $("options-form");
  const props = optionsSchema.properties || {};
  form.replaceChildren();
  for (const [key, prop] of Object.entries(props)) {
    const label = document.createElement("label");
    label.className = "option";
    const title = document.createElement("span");
    title.textContent = prop.title || key;
    if (prop.description) label.title = prop.description;
    let input;
    const choices = prop.enum || (prop.anyOf ? null : null);
    if (prop.type === "boolean") {
      input = document.createElement("input");
      input.type = "checkbox";
      input.checked = !!values[key];
      label.classList.add("check");
    } else if (choices) {
      input = document.createElement("select");
      for (const c of choices) input.append(new Option(String(c).replaceAll("_", " "), c, false, values[key] === c));
    } else {
      input = document.createElement("input");
      input.type = "number";
      if (prop.minimum !== undefined) input.min = prop.minimum;
      if (prop.maximum !== undefined) input.max = prop.maximum;
      input.value = values[key];
    }
    input.name = key;
    input.disabled = !editable;
    input.addEventListener("change", () => {
      const v = input.type === "checkbox" ? input.checked : input.type === "number" ? Number(input.value) : input.value;
      socket.send({ type: "set_options", options: { ...state.room.options, [key]: v } });
    });
    if (prop.description) {
      const hint = document.createElement("small");
      hint.textContent = prop.description;
      label.append(title, input, hint);
    } else label.append(title, input);
    form.append(label);
  }
}

$("start-btn").addEventListener("click", () => socket.send({ type: "start" }));
$("rematch-btn").addEventListener("click", () => socket.send({ type: "rematch" }));

// --- timers ----------------------------------------------------------------------------------
let timerDeadlines = [];
function renderTimers(timers) {
  const now = performance.now();
  timerDeadlines = timers.map((t) => ({ ...t, deadline: now + t.remaining_ms, total: t.remaining_ms }));
  drawTimers();
}

function drawTimers() {
  const box = $("timers");
  const now = performance.now();
  box.replaceChildren(...timerDeadlines.filter((t) => t.label).map((t) => {
    const left = Math.max(0, t.deadline - now);
    const el = document.createElement("div");
    el.className = "timer";
    const who = t.seats.length ? ` · ${t.seats.map(seatName).join(", ")}` : "";
    el.textContent = `${t.label}${who}: ${Math.ceil(left / 1000)} s`;
    const bar = document.createElement("span");
    bar.className = "bar";
    bar.style.width = `${t.total ? (100 * left) / t.total : 0}%`;
    el.append(bar);
    if (left < 5000) el.classList.add("urgent");
    return el;
  }));
}
setInterval(drawTimers, 250);

// --- result ----------------------------------------------------------------------------------
function renderResult() {
  const room = state.room;
  const r = room.result;
  $("result").hidden = !r;
  if (!r) return;
  if (room.status === "finished") timerDeadlines = [];
  $("result-summary").textContent = r.summary;
  $("result-rows").replaceChildren(...[...r.players].sort((a, b) => a.rank - b.rank).map((p) => {
    const tr = document.createElement("tr");
    if (p.winner) tr.className = "winner";
    for (const v of [p.rank, p.nickname, p.score]) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.append(td);
    }
    if (p.winner) {
      const badge = document.createElement("span");
      badge.className = "winner-badge";
      badge.textContent = "winner";
      tr.children[1].append(" ", badge);
    }
    return tr;
  }));
  $("result-seed").textContent = r.seed;
  $("result-link").innerHTML = room.match_id ? `<a href="/matches/${room.match_id}">Saved as match ${room.match_id}</a>` : "Saving the match…";
  $("rematch-btn").hidden = !(room.host === state.me && room.status === "finished") || tableMode;
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
  li.textContent = e.text;
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
  if (live && !$("chat-panel").open) {
    const badge = $("chat-unread");
    badge.hidden = false;
    badge.textContent = String(Number(badge.textContent || 0) + 1);
  }
}

$("chat-panel").addEventListener("toggle", () => {
  if ($("chat-panel").open) { $("chat-unread").hidden = true; $("chat-unread").textContent = ""; }
});

$("chat-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const text = $("chat-input").value.trim();
  if (!text) return;
  socket.send({ type: "chat", text });
  $("chat-input").value = "";
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

$("share-toggle").addEventListener("click", () => {
  const panel = $("share");
  panel.hidden = !panel.hidden;
  $("share-toggle").setAttribute("aria-expanded", String(!panel.hidden));
});
$("copy-link").addEventListener("click", async () => {
  const input = $("join-link");
  try { await navigator.clipboard.writeText(input.value); toast("Link copied"); } catch { input.select(); }
});

const muteBtn = $("mute-btn");
const SPEAKER = '<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true"><path d="M3 9h4l5-4v14l-5-4H3z" fill="currentColor"/>';
function drawMute() {
  muteBtn.innerHTML = SPEAKER + (sounds.muted
    ? '<path d="M16 9l6 6M22 9l-6 6" stroke="currentColor" stroke-width="2"/></svg>'
    : '<path d="M16 8a5 5 0 0 1 0 8M19 5a9 9 0 0 1 0 14" stroke="currentColor" stroke-width="2" fill="none"/></svg>');
  muteBtn.setAttribute("aria-pressed", String(sounds.muted));
  muteBtn.title = sounds.muted ? "Sound is off" : "Sound is on";
}
muteBtn.addEventListener("click", () => { sounds.setMuted(!sounds.muted); drawMute(); });
drawMute();

start();
