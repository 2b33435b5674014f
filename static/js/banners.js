// The room's banners, one look and one behaviour on every game's screens, phone and TV alike
// (docs/decisions/0062): who is away from a running match and when a computer player takes over
// (docs/protocol.md, "Presence"), and the running clocks (a turn, a choice: the state frame's
// `timers`). The room page (room.js) owns them and draws them above the game; a game's page draws
// no banner of its own. They name no game: a clock's label comes from the caller (`label`).
import { setText } from "./dom.js";
import { T } from "./texts.js";

const BACK_MS = 4000; // how long "Ben is back" shows

/** A seated person away from a running match (a computer player never is). */
export function isAway(member, room) {
  return !member.bot && member.seat !== null && !member.connected && !!room && room.status === "playing";
}

/**
 * The away banner in `list` (a <ul>): each seated player away from the match, with the seconds
 * until a bot takes over (counted down here from the room frame's `bot_in_ms`), and "back" for a
 * few seconds when they return. `update` takes each room frame, `draw` runs four times a second.
 */
export function awayBanner(list) {
  let deadlines = new Map(); // member id -> performance.now() when the bot takes over (or null)
  const backNotes = new Map(); // member id -> until when "back" shows
  let members = [];

  function update(previous, room, me) {
    const now = performance.now();
    const next = new Map();
    for (const m of room.members) {
      if (!isAway(m, room) || m.id === me) continue;
      next.set(m.id, m.played_by_bot ? 0 : m.bot_in_ms === null || m.bot_in_ms === undefined ? null : now + m.bot_in_ms);
    }
    if (previous && room.status === "playing") {
      for (const id of deadlines.keys()) {
        const m = room.members.find((x) => x.id === id);
        if (m && m.connected) backNotes.set(id, now + BACK_MS);
      }
    }
    deadlines = next;
    members = room.members;
    draw();
  }

  function draw() {
    const now = performance.now();
    const name = (id) => (members.find((m) => m.id === id) || {}).nickname;
    const items = [];
    for (const [id, deadline] of deadlines) {
      const who = name(id);
      if (!who) continue;
      const text = deadline === null ? T.away(who)
        : deadline - now > 0 ? T.awayBotIn(who, Math.ceil((deadline - now) / 1000)) : T.awayBotNow(who);
      items.push(["away", id, text]);
    }
    for (const [id, until] of backNotes) {
      if (until < now || deadlines.has(id) || !name(id)) { backNotes.delete(id); continue; }
      items.push(["back", id, T.back(name(id))]);
    }
    if (list.hidden !== (items.length === 0)) list.hidden = items.length === 0;
    const shown = [...list.children].map((li) => li.textContent).join("|");
    if (shown === items.map((i) => i[2]).join("|")) return;
    list.replaceChildren(...items.map(([kind, id, text]) => {
      const li = document.createElement("li");
      li.className = `banner ${kind}`;
      li.dataset.member = id;
      li.textContent = text;
      return li;
    }));
  }

  return { update, draw };
}

/**
 * The clock banner in `box`: one bar per running timer of the state frame, "Turn · Anna: 12 s",
 * urgent under 5 s; a paused timer (the match waits for a person) stands still. `label(timer)`
 * names a timer in the page's language, `name(seat)` a seat.
 *
 * Drawn four times a second on every page and the TV: the timers' elements are made again only
 * when the set of timers changes; otherwise each keeps its element and only what changed is
 * written (the seconds once a second, the bar as a transform), so a running timer repaints its
 * bar and no layout of the page (docs/testing.md, "Browser tests").
 */
export function clockBanner(box, { label, name }) {
  let clocks = [];

  function set(timers) {
    const now = performance.now();
    clocks = timers.map((t) => ({ ...t, deadline: t.paused ? null : now + t.remaining_ms, total: t.remaining_ms }));
    draw();
  }

  function draw() {
    const now = performance.now();
    const shown = clocks.filter((t) => t.label);
    if (box.hidden !== (shown.length === 0)) box.hidden = shown.length === 0;
    const keys = shown.map((t) => t.key).join("\n");
    if (box.dataset.keys !== keys) {
      box.dataset.keys = keys;
      box.replaceChildren(...shown.map((t) => {
        const el = document.createElement("div");
        el.className = "timer banner";
        el.dataset.key = t.key;
        const text = document.createElement("span");
        const bar = document.createElement("span");
        bar.className = "bar";
        el.append(text, bar);
        return el;
      }));
    }
    shown.forEach((t, i) => drawClock(box.children[i], t, now));
  }

  function drawClock(el, t, now) {
    const left = t.deadline === null ? t.remaining_ms : Math.max(0, t.deadline - now);
    const [text, bar] = el.children;
    if ((t.deadline === null) !== (el.dataset.paused === "true")) {
      if (t.deadline === null) el.dataset.paused = "true";
      else delete el.dataset.paused;
    }
    const who = t.seats.length ? ` · ${t.seats.map(name).join(", ")}` : "";
    setText(text, `${label(t)}${who}: ${Math.ceil(left / 1000)} s`);
    const scale = `scaleX(${t.total ? (left / t.total).toFixed(3) : 0})`;
    if (bar.style.transform !== scale) bar.style.transform = scale;
    el.classList.toggle("urgent", left < 5000);
  }

  return { set, draw, clear() { clocks = []; } };
}
