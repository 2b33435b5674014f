// A finished match watched again on its own board (templates/match.html; docs/protocol.md,
// "Watching a match again"). The board is the live room's drawing: the game's page module (its
// package's page/page.js, named by the page: data-module) mounted with a read-only ctx
// (`readOnly: true`, no socket, no sound) and fed state frames built from `GET /api/matches/<id>/replay`, one step per move.
// A step forward updates the mounted board (its animations play as they did live); any other
// jump mounts it afresh at that move. `?move=N` in the address follows the board, so the page's
// link is always a link to the move shown. The move list below holds one page of the moves (the
// page the board opened at); a move on another page is told from its step (`stepText`), in the
// words the server's list uses (app/api/finished/story.py).
// The step buttons and the arrow keys go a play at a time: a step that `joins` the one before
// (a Panika tap paying for its card) is shown with it; the jump buttons go to the next move that
// carries their mark (a burst, a round). Each game says both (`Game.replay_step`,
// docs/decisions/0063).
import { t, wording } from "./i18n.js";
import { eventLine, eventText } from "./texts.js";

const root = document.getElementById("replay");
const $ = (id) => document.getElementById(id);
const matchId = root.dataset.match;
const gameId = root.dataset.game;
const title = root.dataset.title;
const names = JSON.parse(root.dataset.names || "{}");
const total = Number(root.dataset.moves);
const SPEEDS = { slow: 1600, normal: 800, fast: 300 }; // milliseconds per play while playing
const WALK = 60; // a step on of at most this many moves plays each of them on the board

const state = {
  move: Number(root.dataset.move), // the move on the board (0: the set-up)
  eyes: "all",
  data: null, // the replay of the current eyes
  module: null,
  board: null, // the mounted game
  shown: null, // the step the board shows
  ends: [0], // the moves where a play ends (0: the set-up), in order
  timer: 0,
};
const loads = new Map(); // eyes -> Promise of the replay's JSON

function seatName(seat) {
  return names[seat] ?? t("room.seat_name", { n: seat + 1 });
}

function eyesSeat() {
  return state.eyes === "all" ? null : Number(state.eyes);
}

// --- loading -----------------------------------------------------------------------------------
async function load(eyes) {
  if (!loads.has(eyes)) {
    loads.set(eyes, fetch(`/api/matches/${matchId}/replay?eyes=${eyes}`).then(async (res) => {
      const body = await res.json().catch(() => ({}));
      if (!res.ok) throw Object.assign(new Error(body.detail || res.statusText), { status: res.status, code: body.code });
      return body;
    }));
  }
  try {
    return await loads.get(eyes);
  } catch (error) {
    loads.delete(eyes); // a failed load may be tried again
    throw error;
  }
}

function notice(text) {
  $("replay-notice").textContent = text;
  $("replay-notice").hidden = false;
}

// --- the board ---------------------------------------------------------------------------------
function frameOf(step) {
  return {
    type: "state", match: 1, version: step.move, seat: eyesSeat(), view: step.view,
    active: step.active, timers: step.timers, events: step.events,
  };
}

function mount() {
  if (state.board) state.board.destroy();
  $("replay-board").replaceChildren();
  state.board = state.module.mount($("replay-board"), {
    seat: eyesSeat(),
    table: false,
    readOnly: true,
    send() {},
    name: seatName,
    text: (text) => eventText(text, seatName, null),
    event: (e) => eventLine(e, gameId, seatName, null, title),
    members: () => Object.entries(names).map(([seat, nickname]) => ({ id: Number(seat), nickname, seat: Number(seat), player: true })),
    sound() {},
    vibrate() {},
  });
  state.shown = null;
}

// The board at move `move`. The next move, or a step on to the next play's end (`walk`) of a
// few moves, plays each move in turn (a card and its taps animate as they did live); any other
// jump (the slider, a mark, the list) mounts the board afresh there.
function show(move, { scroll = false, walk: stepping = false } = {}) {
  const steps = state.data.steps;
  const last = steps.length - 1;
  const n = Math.max(0, Math.min(move, last));
  const ahead = state.shown === null ? 0 : n - state.shown;
  const walk = ahead === 1 || (stepping && ahead > 0 && ahead <= WALK);
  if (!walk) mount();
  for (let k = walk ? state.shown + 1 : n; k <= n; k += 1) {
    for (const e of steps[k].events) if (state.board.onEvent) state.board.onEvent(e);
    state.board.update(frameOf(steps[k]));
  }
  state.shown = n;
  state.move = n;
  describe(steps[n]);
  if (scroll) root.scrollIntoView({ block: "start" });
}

// --- plays and marks ---------------------------------------------------------------------------
// The moves where a play ends: the set-up, and every move whose next move does not join it.
function playEnds(steps) {
  const ends = [0];
  for (let k = 1; k < steps.length; k += 1) if (!(steps[k + 1] && steps[k + 1].joins)) ends.push(k);
  return ends;
}

// The end of the play after the one at `n` (+1), or before it (-1); `n` itself at either end.
function playFrom(n, delta) {
  const ends = state.ends;
  if (delta > 0) return ends.find((e) => e > n) ?? n;
  for (let k = ends.length - 1; k >= 0; k -= 1) if (ends[k] < n) return ends[k];
  return n;
}

// The marks on the slider's track: a tick at every move that carries one (the game's bursts,
// rounds or turns), from the replay of everything (the marks are the same through any eyes).
function drawMarks() {
  const list = $("replay-marks");
  if (!list) return;
  list.replaceChildren(...state.data.steps.filter((s) => s.marks && s.marks.length).map((s) => {
    const option = document.createElement("option");
    option.value = String(s.move);
    return option;
  }));
}

// The next move after `n` that carries `mark`, or null.
function nextMark(n, mark) {
  const steps = state.data.steps;
  for (let k = n + 1; k < steps.length; k += 1) if (steps[k].marks && steps[k].marks.includes(mark)) return k;
  return null;
}

// --- what the page says about the move -----------------------------------------------------------
function clock(ms) {
  const minutes = Math.floor(ms / 60000);
  return `${minutes}:${((ms % 60000) / 1000).toFixed(1).padStart(4, "0")}`;
}

// A move that caused no event (a counter's tap) is told by its action's type
// (app/api/finished/story.py, `describe_action`).
function actionText(action) {
  const { type = "", ...details } = action || {};
  const key = `game.${gameId}.move.${type}`;
  if (wording(key) !== undefined) return t(key, details);
  const extra = Object.entries(details).map(([k, v]) => `${k} ${v}`).join(", ");
  return String(type).replaceAll("_", " ") + (extra ? ` (${extra})` : "");
}

// A move as the move list tells it (app/api/finished/story.py, `match_story` and `move_line`): its
// events in the page's words, else its action; "Ann: plays a 5", not "Ann: Ann plays a 5".
function stepText(step) {
  const said = step.events.filter((e) => e.text).map((e) => eventLine(e, gameId, seatName, null, title));
  let text = said.length ? said.join("; ") : actionText(step.action);
  if (step.seat === null) return text;
  const who = seatName(step.seat);
  if (text.startsWith(`${who} `)) text = text.slice(who.length + 1);
  return `${who}: ${text}`;
}

function moveText(n) {
  if (n === 0) return t("replay.start");
  const line = document.querySelector(`.move-list li[data-move="${n}"]`);
  if (!line) return state.data.steps[n] ? stepText(state.data.steps[n]) : "";
  const who = line.querySelector(".move-who");
  const text = line.querySelector(".move-text").textContent.trim();
  return who.classList.contains("system") ? text : `${who.textContent.trim()}: ${text}`;
}

function describe(step) {
  const n = step.move;
  const where = t("replay.move_of", { n, total });
  $("replay-counter").textContent = where;
  $("replay-clock").textContent = n ? clock(step.at_ms) : "";
  $("replay-text").textContent = moveText(n);
  const timers = step.timers.filter((x) => x.label);
  $("replay-timers").textContent = timers.map((x) => {
    const label = t(`timer.${gameId}.${String(x.key).split(":")[0]}`, {}, x.label);
    const who = x.seats.length ? ` · ${x.seats.map(seatName).join(", ")}` : "";
    return `${label}${who}: ${Math.ceil(x.remaining_ms / 1000)} s`;
  }).join(" · ");
  const end = n === total && state.data.complete;
  $("replay-result").hidden = !end;
  const slider = $("replay-slider");
  slider.value = String(n);
  slider.setAttribute("aria-valuetext", where);
  const last = state.data.steps.length - 1;
  $("replay-first").disabled = n === 0;
  $("replay-back").disabled = n === 0;
  $("replay-forward").disabled = n >= last;
  $("replay-last").disabled = n >= last;
  for (const button of document.querySelectorAll(".replay-jump")) button.disabled = nextMark(n, button.dataset.mark) === null;
  for (const li of document.querySelectorAll(".move-list li[aria-current]")) li.removeAttribute("aria-current");
  const current = document.querySelector(`.move-list li[data-move="${n}"]`);
  if (current) current.setAttribute("aria-current", "step");
  const url = `${location.pathname}?move=${n}`;
  $("replay-link").href = url;
  history.replaceState(null, "", url);
  document.title = `${title} · ${t("match.heading", { id: matchId })} · ${where} · Panic Party`;
}

// --- controls ----------------------------------------------------------------------------------
function go(move, options) {
  if (!state.data) return;
  show(move, options);
  if (state.move >= state.data.steps.length - 1) pause();
}

function play() {
  if (!state.data) return;
  if (state.move >= state.data.steps.length - 1) show(0);
  clearInterval(state.timer);
  state.timer = setInterval(() => go(playFrom(state.move, 1), { walk: true }), SPEEDS[$("replay-speed").value] || SPEEDS.normal);
  drawPlay(true);
}

function pause() {
  clearInterval(state.timer);
  state.timer = 0;
  drawPlay(false);
}

function drawPlay(playing) {
  $("replay-play").setAttribute("aria-pressed", String(playing));
  $("replay-play").classList.toggle("playing", playing);
  $("replay-play-text").textContent = t(playing ? "replay.pause" : "replay.play");
  // A screen reader hears each move when stepping, not a stream of them while playing.
  $("replay-text").setAttribute("aria-live", playing ? "off" : "polite");
}

const stepBy = (delta) => { pause(); if (state.data) go(playFrom(state.move, delta), { walk: delta > 0 }); };
$("replay-first").addEventListener("click", () => { pause(); go(0); });
$("replay-back").addEventListener("click", () => stepBy(-1));
$("replay-forward").addEventListener("click", () => stepBy(1));
$("replay-last").addEventListener("click", () => { pause(); go(total); });
$("replay-play").addEventListener("click", () => (state.timer ? pause() : play()));
$("replay-speed").addEventListener("change", () => { if (state.timer) play(); });
for (const button of document.querySelectorAll(".replay-jump")) {
  button.addEventListener("click", () => {
    pause();
    const k = state.data ? nextMark(state.move, button.dataset.mark) : null;
    if (k !== null) go(k);
  });
}
$("replay-slider").addEventListener("input", (ev) => { pause(); go(Number(ev.target.value)); });

// The arrow keys step, Home and End go to the ends, the space bar plays and pauses; not while
// typing or choosing in a field (the slider takes its own arrow keys).
document.addEventListener("keydown", (ev) => {
  if (ev.altKey || ev.ctrlKey || ev.metaKey || ev.defaultPrevented) return;
  if (ev.target.closest && ev.target.closest("input, select, textarea, [contenteditable]")) return;
  const onButton = ev.target.closest && ev.target.closest("button, a, summary");
  const keys = {
    ArrowLeft: () => stepBy(-1),
    ArrowRight: () => stepBy(1),
    Home: () => { pause(); go(0); },
    End: () => { pause(); go(total); },
  };
  if (ev.key === " " && !onButton) keys[" "] = () => (state.timer ? pause() : play());
  const act = keys[ev.key];
  if (!act || !state.data) return;
  ev.preventDefault();
  act();
});

// The move list's times are links to their moves: on this page they move the board instead.
for (const link of document.querySelectorAll(".move-list a.move-time")) {
  link.addEventListener("click", (ev) => {
    if (!state.data) return;
    ev.preventDefault();
    pause();
    go(Number(link.closest("li").dataset.move), { scroll: true });
  });
}

$("replay-copy").addEventListener("click", async () => {
  const url = new URL(`?move=${state.move}`, location.href).href;
  try {
    await navigator.clipboard.writeText(url);
    $("replay-copied").textContent = t("replay.copied");
  } catch {
    $("replay-copied").textContent = t("replay.copy_failed");
  }
});

$("replay-eyes").addEventListener("change", async (ev) => {
  const eyes = ev.target.value;
  try {
    const data = await load(eyes);
    state.eyes = eyes;
    state.data = data;
    state.ends = playEnds(data.steps);
    show(state.move);
  } catch {
    ev.target.value = state.eyes;
    notice(t("replay.failed"));
  }
});

// A phone's screen has room for the page's heading or for the board above the controls' bar:
// when the board would start low on it (a small phone, a phone on its side), the page opens
// scrolled to the move's text and the board (on its side, to the board itself).
function showBoard() {
  if (!matchMedia("(max-width: 699px), (max-height: 500px)").matches) return;
  const target = matchMedia("(max-height: 500px)").matches ? $("replay-board") : root.querySelector(".replay-body");
  if (target.getBoundingClientRect().top > innerHeight * 0.4) target.scrollIntoView({ block: "start" });
}

// --- start: the board at ?move=N (else the end) ---------------------------------------------------
async function start() {
  $("replay-board").textContent = t("replay.loading"); // in the board's reserved place: nothing moves
  // The replay and the game's drawing load side by side; the replay's answer says first why not.
  const drawing = root.dataset.known === "true" ? import(root.dataset.module)
    : Promise.reject(new Error(`no game ${gameId}`)); // a game no longer on the site has no drawing
  const [data, module] = await Promise.allSettled([load("all"), drawing]);
  if (data.status === "rejected" || module.status === "rejected") {
    root.hidden = true; // the page keeps its place for the board until it knows there is none
    const error = data.status === "rejected" ? data.reason : {};
    const why = error.status === 409 ? t(`replay.unreplayable.${error.code}`, {}, t("replay.unreplayable.other")) : null;
    notice(why ? t("replay.unreplayable", { why }) : t("replay.failed"));
    return;
  }
  state.data = data.value;
  state.ends = playEnds(state.data.steps);
  drawMarks();
  state.module = module.value;
  if (!state.data.complete) {
    const refused = state.data.refused;
    notice(t("replay.refused", { n: refused.move, last: refused.move - 1 }));
    $("replay-result").hidden = true;
  }
  show(state.move);
  showBoard();
}

start();

// Test hook: the page's replay state (read by the browser tests).
window.panicParty = { replay: state };
