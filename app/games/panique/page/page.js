// Panique in the browser: the haunted house's track as an SVG board, each heir a coloured figure
// with its initial, the Circle of Life die, the encounter card, Life Points as hearts, and the
// Roll button or the choice buttons of whoever the game waits on. The view and the actions are
// described in docs/games/panique.md ("The view", "Actions", "Client").
//
// The board is drawn in screen pixels (its viewBox is the box's own size) and rebuilt when the
// box changes size, so its text is never scaled below 12 px. The whole game fits one screen:
// while a match runs the room gives it the full screen (layout "fill"); otherwise fit() gives
// it the height left under the room's header. With ctx.readOnly (a finished match watched again)
// it has no buttons; Panique hides nothing, so its revealed view is its public view.
//
// Hooks for tests: #pq-roll, .pq-choice[data-option], .pq-target[data-target], .pq-root
// [data-phase], .pq-heir[data-seat] [data-life], .pq-space[data-index], .pq-token[data-seat],
// #pq-circle [data-value], #pq-card [data-entry].

import { t } from "/static/js/i18n.js";
import { el as html } from "/static/js/dom.js";
import { narration } from "/static/js/narration.js";
import { labelSpaces } from "./labels.js";

const T = (key, params) => t(`game.panique.${key}`, params);
const SVG_NS = "http://www.w3.org/2000/svg";
const COLOURS = ["#ff6b6b", "#4dabf7", "#51cf66", "#fcc419", "#cc5de8"];
const ROLL_MS = 700;
/** A player who asks for less motion sees a die's value at once and the tokens jump. */
const REDUCED_MOTION = window.matchMedia("(prefers-reduced-motion: reduce)");
const SENT_RESET_MS = 2500;
/** The events the news line tells (the heirs' fates; a die's roll shows on the die itself). */
const NEWS_KINDS = ["space", "life", "move", "lost_turn", "skip", "out", "roller", "sunrise", "win", "rest",
  "panique", "vampire", "choice"];
const KIND = {
  0: "start", 3: "good", 5: "bad", 8: "table", 10: "move", 13: "good", 15: "bad", 17: "bad",
  19: "table", 21: "table", 23: "table", 25: "table", 27: "move", 29: "goal",
};
// Button labels short enough for a phone (the card above them quotes the rulebook in full).
const LABELS = Object.fromEntries(["accept", "decline", "A", "B", "C", "rest", "stay"]
  .map((option) => [option, T(`option.${option}`)]));
// The board's names in the page's language (the events' words: event.panique.space.<index>).
const roomName = (room) => t(`game.panique.room.${room.replace(/ /g, "_")}`, {}, room);
const spaceName = (s) => t(`event.panique.space.${s.index}`, {}, s.name);
const spaceText = (s) => t(`event.panique.space_text.${s.index}`, {}, s.text);
const ROOM_TINT = {
  Hall: "#2f2650", Library: "#263a4f", Cellar: "#2c3a2a", Gallery: "#3f2c4a", Passages: "#2a2f45",
  Chapel: "#3a3550", Tower: "#3d2a2a", Laboratory: "#1f3b3b", Conservatory: "#24402c",
  Kitchen: "#45332a", Crypt: "#2a2a2a", "Grand Stairs": "#3c3a24",
};


function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

// The best snake of `cols` columns for a box: the largest square-ish cell, among those at least
// 48 px wide when there are such (a five-letter mark fits that width; a phone's short box would
// otherwise get ten columns of narrow spaces).
function chooseGrid(w, h) {
  let best = null;
  const wide = [3, 5, 6, 10, 15].filter((cols) => w / cols >= 48);
  for (const cols of wide.length ? wide : [3, 5, 6, 10, 15]) {
    const rows = 30 / cols;
    const cell = Math.min(w / cols, h / rows);
    if (!best || cell > best.cell) best = { cols, rows, cell };
  }
  return best;
}

// While a match runs the room gives the game the whole screen (body.in-game; as the other games).
export const layout = "fill";

export function mount(container, ctx) {
  const table = !!ctx.table;
  const readOnly = !!ctx.readOnly;
  let view = null;
  let sent = false;
  let sentTimer = 0;
  let picking = null; // "B" or "C" while the Ally's target is being chosen
  let boardKey = "";
  let rollSerial = null;
  let settled = false; // after the first frame, new rolls animate

  const root = html("div", { class: `pq-root${table ? " pq-table" : ""}`, "data-phase": "" });
  const heirsEl = html("ol", { class: "pq-heirs", id: "pq-heirs", "aria-label": T("heirs") });
  const boardEl = html("div", { class: "pq-board", id: "pq-board" });
  const circleEl = html("div", { class: "pq-die circle", id: "pq-circle", role: "img", "aria-label": T("circle_not_rolled") });
  const rollEl = html("div", { class: "pq-die last", id: "pq-last-roll", role: "img", "aria-label": T("no_roll") });
  const promptEl = html("p", { class: "pq-prompt", id: "pq-prompt", role: "status", "aria-live": "polite" });
  const diceEl = html("div", { class: "pq-dice" },
    html("figure", { class: "pq-die-box" }, circleEl, html("figcaption", { text: T("circle") })),
    html("figure", { class: "pq-die-box" }, rollEl, html("figcaption", { class: "pq-last-caption", text: T("last_roll") })),
    promptEl);
  // What just happened, told to the room: the shared narration line (its latest news).
  const story = narration(ctx, { kinds: NEWS_KINDS, id: "pq-news", latest: true });
  const newsEl = story.element;
  newsEl.classList.add("pq-news");
  const cardEl = html("section", { class: "pq-card", id: "pq-card", "aria-label": T("encounter_card"), hidden: true });
  const actionsEl = html("div", { class: "pq-actions", id: "pq-actions" });
  // What its person can do now comes first, under the prompt that asks it; the news
  // and the card (which gives way first on a phone) follow.
  const side = html("div", { class: "pq-side" }, diceEl, table || readOnly ? null : actionsEl, newsEl, cardEl);
  root.append(heirsEl, html("div", { class: "pq-main" }, boardEl, side));
  container.replaceChildren(root);

  const name = (seat) => ctx.name(seat);
  const me = () => (view && typeof view.you === "number" ? view.you : null);
  const you = (seat) => (seat === me() ? T("you") : name(seat));
  const initial = (seat) => (Array.from((name(seat) || "?").trim())[0] || "?").toUpperCase();

  // --- fitting one screen ----------------------------------------------------------------------
  function fit() {
    if (document.body.classList.contains("in-game")) { root.style.height = ""; return; } // the room sizes it
    const phone = window.innerWidth < 700 && !table;
    const rect = container.getBoundingClientRect();
    let avail;
    if (phone) {
      const header = document.querySelector(".site-header");
      const sticky = header && getComputedStyle(header).position === "sticky" ? header.offsetHeight : 0;
      const timers = document.getElementById("timers");
      avail = window.innerHeight - sticky - (timers ? timers.offsetHeight : 0) - 16;
    } else {
      avail = window.innerHeight - (rect.top + window.scrollY) - 10;
    }
    root.style.height = `${Math.max(300, Math.floor(avail))}px`;
  }

  function scrollIntoPlace() {
    if (table || window.innerWidth >= 700 || window.scrollY > 0) return;
    const anchor = document.getElementById("timers") || container;
    requestAnimationFrame(() => {
      if (document.body.classList.contains("in-game")) return;
      const header = document.querySelector(".site-header");
      const offset = header && getComputedStyle(header).position === "sticky" ? header.offsetHeight : 0;
      window.scrollTo({ top: anchor.getBoundingClientRect().top + window.scrollY - offset - 6 });
    });
  }

  // --- the board ---------------------------------------------------------------------------------
  let layout = null;
  let tokensG = null;
  function buildBoard() {
    const w = Math.max(120, Math.floor(boardEl.clientWidth));
    const h = Math.max(120, Math.floor(boardEl.clientHeight));
    const key = `${w}x${h}`;
    if (key === boardKey || !view) return;
    boardKey = key;
    const g = chooseGrid(w, h);
    const cw = w / g.cols;
    const ch = h / g.rows;
    const centres = view.board.map((s) => {
      const r = Math.floor(s.index / g.cols);
      const c0 = s.index % g.cols;
      const c = r % 2 === 0 ? c0 : g.cols - 1 - c0;
      return { x: c * cw + cw / 2, y: r * ch + ch / 2 };
    });
    const big = Math.min(cw, ch) >= 84;
    const house = svg("svg", {
      class: "pq-house", viewBox: `0 0 ${w} ${h}`, width: w, height: h, role: "img",
      "aria-label": T("house"),
    });
    const track = svg("polyline", {
      class: "pq-track", points: centres.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" "),
    });
    // The rooms: one floor per room and row, under the track and the spaces.
    const floors = {};
    for (const s of view.board) {
      const r = Math.floor(s.index / g.cols);
      const key = `${s.room}|${r}`;
      const p = centres[s.index];
      const f = (floors[key] ||= { room: s.room, x0: p.x, x1: p.x, y: p.y });
      f.x0 = Math.min(f.x0, p.x);
      f.x1 = Math.max(f.x1, p.x);
    }
    for (const f of Object.values(floors)) {
      const floor = svg("rect", {
        class: "pq-floor", x: (f.x0 - cw / 2 + 1).toFixed(1), y: (f.y - ch / 2 + 1).toFixed(1),
        width: (f.x1 - f.x0 + cw - 2).toFixed(1), height: (ch - 2).toFixed(1), rx: 10,
        fill: ROOM_TINT[f.room] || "#2a1f47",
      });
      floor.append(svg("title", {}, roomName(f.room)));
      house.append(floor);
    }
    house.append(track);
    const pad = Math.max(2, Math.min(cw, ch) * 0.05);
    const cells = [];
    for (const s of view.board) {
      const p = centres[s.index];
      const kind = KIND[s.index] || "blank";
      const cell = svg("g", { class: `pq-space ${kind}`, "data-index": s.index });
      const box = { x: p.x - cw / 2 + pad, y: p.y - ch / 2 + pad, w: cw - 2 * pad, h: ch - 2 * pad };
      cells[s.index] = box;
      cell.append(svg("rect", {
        x: box.x.toFixed(1), y: box.y.toFixed(1), width: box.w.toFixed(1), height: box.h.toFixed(1), rx: 8,
        fill: ROOM_TINT[s.room] || "#2a1f47",
      }));
      cell.append(svg("title", {}, s.blank ? T("space_blank", { n: s.index, room: roomName(s.room) })
        : T("space_named", { n: s.index, name: spaceName(s), text: spaceText(s) })));
      house.append(cell);
    }
    tokensG = svg("g", { class: "pq-tokens" });
    house.append(tokensG);
    boardEl.replaceChildren(house);
    // On large cells the discs sit at the foot of the space, under its labels.
    const r = Math.max(10, Math.min(cw, ch) * (big ? 0.14 : 0.2));
    const discY = (index) => cells[index].y + cells[index].h - r - 3;
    labelSpaces(house, view.board, cells, big, (index) => discY(index) - r, roomName, spaceName);
    layout = { centres, cw, ch, big, r, discY };
    drawTokens(true);
  }

  function drawTokens(instant) {
    if (!layout || !view) return;
    const bySpace = {};
    for (const h of view.heirs) if (h.status !== "out") (bySpace[h.space] ||= []).push(h.seat);
    const have = new Map([...tokensG.children].map((n) => [n.dataset.seat, n]));
    for (const h of view.heirs) {
      let node = have.get(String(h.seat));
      if (h.status === "out") { if (node) node.remove(); continue; }
      if (!node) {
        node = svg("g", { class: "pq-token", "data-seat": h.seat });
        node.append(svg("circle", { r: layout.r, fill: COLOURS[h.seat % COLOURS.length] }));
        node.append(svg("text", { "text-anchor": "middle", dy: "0.35em", "font-size": Math.max(13, Math.round(layout.r * 1.05)) }, initial(h.seat)));
        tokensG.append(node);
        instant = true;
      }
      node.querySelector("text").textContent = initial(h.seat);
      node.classList.toggle("active", view.turn === h.seat);
      node.classList.toggle("vampire", !!h.vampire);
      const here = bySpace[h.space];
      const k = here.indexOf(h.seat);
      const n = here.length;
      const c = layout.centres[h.space];
      let x;
      let y;
      if (layout.big) {
        const step = Math.min(layout.r * 2.1, (layout.cw - 2 * layout.r - 12) / Math.max(n - 1, 1));
        x = c.x + (k - (n - 1) / 2) * step;
        y = layout.discY(h.space);
      } else {
        const spread = Math.min(layout.cw, layout.ch) * 0.22;
        const angle = (2 * Math.PI * k) / Math.max(n, 1) - Math.PI / 2;
        x = c.x + (n > 1 ? spread * Math.cos(angle) : 0);
        y = c.y + 4 + (n > 1 ? spread * Math.sin(angle) * 0.8 : 0);
      }
      if (instant) node.style.transition = "none";
      node.style.transform = `translate(${x.toFixed(1)}px, ${y.toFixed(1)}px)`;
      if (instant) { void node.getBoundingClientRect(); node.style.transition = ""; }
    }
  }

  // --- heirs, dice, card -------------------------------------------------------------------------
  // Four or five heirs on a phone: the compact list, one column per heir (the CSS), with the short
  // badges (docs/games/panique.md, "Five heirs on a phone").
  const narrow = window.matchMedia("(max-width: 699px)");
  function drawHeirs() {
    const compact = !table && view.heirs.length >= 4 && narrow.matches;
    root.classList.toggle("pq-many", compact);
    const badge = (key, params) => T(compact && (key === "skip" || key === "escaped") ? `badge_short.${key}` : `badge.${key}`, params);
    heirsEl.replaceChildren(...view.heirs.map((h) => {
      const hearts = html("span", { class: "pq-hearts", "data-life": h.life, "aria-label": T("life", { n: h.life }), role: "img" });
      for (let i = 0; i < 3; i += 1) hearts.append(html("span", { class: i < h.life ? "heart full" : "heart", "aria-hidden": "true", text: "♥" }));
      const badges = [];
      if (h.lost_turns) badges.push(html("span", { class: "pq-badge lost", text: badge("skip", { n: h.lost_turns }) }));
      if (h.vampire) badges.push(html("span", { class: "pq-badge vamp", text: badge("vampire") }));
      if (h.status === "out") badges.push(html("span", { class: "pq-badge out", text: badge("out") }));
      if (h.status === "escaped") badges.push(html("span", { class: "pq-badge won", text: badge("escaped") }));
      const disc = html("span", { class: "pq-disc", "aria-hidden": "true", text: initial(h.seat) });
      // Through the CSSOM: the site's Content-Security-Policy refuses style attributes.
      disc.style.background = COLOURS[h.seat % COLOURS.length];
      const li = html("li", {
        class: `pq-heir${h.seat === me() ? " me" : ""}${view.turn === h.seat ? " turn" : ""}${h.status !== "in" ? ` ${h.status}` : ""}`,
        "data-seat": h.seat, "data-life": h.life, "data-space": h.space,
      },
      disc,
      html("span", { class: "pq-heir-name", text: name(h.seat) }),
      hearts, ...badges);
      return li;
    }));
  }

  function drawDice() {
    const c = view.circle;
    circleEl.dataset.value = c ?? "";
    circleEl.textContent = c ?? "?";
    circleEl.setAttribute("aria-label", c ? T("circle_value", { n: c }) : T("circle_not_rolled"));
    const r = view.last_roll;
    const caption = root.querySelector(".pq-last-caption");
    if (!r) { // a new match: nothing rolled yet
      rollEl.textContent = "–";
      rollEl.dataset.value = "";
      rollEl.setAttribute("aria-label", T("no_roll"));
      caption.textContent = T("last_roll");
      rollSerial = null;
      return;
    }
    const what = T(r.die === "circle" ? "die.circle" : r.die === "detail" ? "die.detail" : "die.own");
    caption.textContent = T("roll_caption", { name: you(r.seat), what });
    rollEl.setAttribute("aria-label", T("last_roll_by", { n: r.value, name: name(r.seat) }));
    rollEl.dataset.value = r.value;
    const key = `${r.serial}:${r.seat}:${r.value}`;
    if (!settled || key === rollSerial) { // the page's first frame shows the die as it lies
      rollEl.textContent = r.value;
      rollSerial = key;
      return;
    }
    rollSerial = key;
    animateDie(rollEl, r.value);
    if (r.die === "circle") animateDie(circleEl, c);
    ctx.sound("tap");
  }

  function animateDie(node, value) {
    node.classList.remove("rolling");
    if (REDUCED_MOTION.matches) { node.textContent = value; return; } // no tumble, no flicker
    void node.offsetWidth;
    node.classList.add("rolling");
    const start = performance.now();
    const step = () => {
      if (performance.now() - start < ROLL_MS) {
        node.textContent = 1 + Math.floor(Math.random() * 8);
        requestAnimationFrame(step);
      } else {
        node.textContent = value;
        node.classList.remove("rolling");
      }
    };
    requestAnimationFrame(step);
  }

  function drawCard() {
    const card = view.card;
    cardEl.hidden = !card;
    if (!card) return;
    const lines = card.lines.map((l, i) => html("li", {
      class: i === card.lines.length - 1 ? "latest" : "", "data-entry": l.entry,
    }, html("b", { class: "pq-roll-n", text: `${l.roll}` }), ` ${t(`event.panique.entry.${l.entry}`, {}, l.text)}`));
    const last = card.lines[card.lines.length - 1];
    cardEl.dataset.entry = last ? last.entry : "";
    const parts = [
      html("h3", { id: "pq-card-title", text: `${t(`event.panique.table_title.${card.table}`, {}, card.title)} · ${name(card.heir)}` }),
      // The lines scroll: focusable so a keyboard reaches them, named by the card's title.
      html("ol", { class: "pq-lines", tabindex: "0", "aria-labelledby": "pq-card-title" }, ...lines),
    ];
    if (card.outcome) parts.push(html("p", { class: "pq-outcome", id: "pq-outcome", text: outcomeText(card.outcome) }));
    cardEl.replaceChildren(...parts);
    const list = cardEl.querySelector(".pq-lines");
    list.scrollTop = list.scrollHeight;
  }

  function outcomeText(o) {
    const parts = [];
    if (o.life > 0) parts.push(`+${o.life} ♥`);
    if (o.life < 0) parts.push(`${o.life} ♥`.replace("-", "−"));
    if (o.steps > 0) parts.push(T("outcome.forward", { n: o.steps }));
    if (o.steps < 0) parts.push(T("outcome.back", { n: -o.steps }));
    if (o.lost_turns) parts.push(T("outcome.lost_turns", { n: o.lost_turns }));
    if (o.vampire) parts.push(T("outcome.vampire"));
    if (o.status === "out") parts.push(T("outcome.out"));
    if (o.status === "escaped") parts.push(T("outcome.escaped"));
    return T("outcome", { what: parts.length ? parts.join(" · ") : T("outcome.nothing") });
  }

  // --- what the game waits on, and the buttons ---------------------------------------------------
  function promptText() {
    // How the night ended, and who won, is the room's results' to say, once (decision 0061).
    if (view.phase === "over") return T("over.nobody");
    const p = view.pending;
    if (!p) return "";
    const mine = p.seats.includes(me());
    const heir = p.heir !== null && p.heir !== undefined ? p.heir : null;
    const yours = heir === me() ? "_your" : "";
    const roller = p.seats.length === 1 ? you(p.seats[0]) : "";
    const params = { roller, name: heir === null ? "" : name(heir), table: p.table ? t(`event.panique.table_title.${p.table}`, {}, p.table_title) : p.table_title };
    switch (p.purpose) {
      case "encounter": return T(mine ? `prompt.encounter${yours}` : `prompt.encounter_other${yours}`, params);
      case "table": return T(mine ? `prompt.table${yours}` : "prompt.table_other", params);
      case "order": case "circle": case "move": case "butler": case "ally": case "rest":
        return T(mine ? `prompt.${p.purpose}` : `prompt.${p.purpose}_other`, params);
      default: return "";
    }
  }

  function send(action) {
    if (sent) return;
    sent = true;
    picking = null;
    ctx.send(action);
    // A refused or lost move gets no new frame: the buttons come back after a moment.
    clearTimeout(sentTimer);
    sentTimer = setTimeout(() => { sent = false; if (view) drawActions(); }, SENT_RESET_MS);
    ctx.vibrate(20);
    drawActions();
  }

  function drawActions() {
    if (table || readOnly) return;
    const legal = (view && view.legal) || [];
    const p = view && view.pending;
    const nodes = [];
    if (legal.some((a) => a.type === "roll")) {
      nodes.push(html("button", {
        type: "button", class: "btn big pq-roll", id: "pq-roll", disabled: sent,
        text: T("roll"), onclick: () => send({ type: "roll" }),
      }));
    } else if (legal.length && p && p.options) {
      if (picking) {
        const targets = legal.filter((a) => a.option === picking);
        nodes.push(html("p", { class: "pq-ask", text: T(`whose.${picking}`) }));
        const row = html("div", { class: "pq-choices" });
        for (const a of targets) {
          row.append(html("button", {
            type: "button", class: "btn pq-target", "data-target": a.target, disabled: sent,
            text: name(a.target), onclick: () => send(a),
          }));
        }
        row.append(html("button", { type: "button", class: "btn ghost pq-back", text: T("back"), onclick: () => { picking = null; drawActions(); } }));
        nodes.push(row);
      } else {
        const row = html("div", { class: "pq-choices" });
        for (const o of p.options) {
          const label = LABELS[o.option] || o.label;
          row.append(html("button", {
            type: "button", class: `btn pq-choice${o.option === p.default ? " default" : ""}`,
            "data-option": o.option, disabled: sent, text: label,
            onclick: () => {
              if (o.option === "B" || o.option === "C") { picking = o.option; drawActions(); } else send({ type: "choose", option: o.option });
            },
          }));
        }
        nodes.push(row);
      }
    }
    actionsEl.replaceChildren(...nodes);
  }

  // --- frames ------------------------------------------------------------------------------------
  function update(frame) {
    const first = view === null;
    view = frame.view;
    sent = false;
    clearTimeout(sentTimer);
    if (picking && !(view.pending && view.pending.purpose === "ally")) picking = null;
    root.dataset.phase = view.phase;
    root.dataset.pending = view.pending ? view.pending.purpose : "";
    drawHeirs();
    drawDice();
    drawCard();
    promptEl.textContent = promptText();
    promptEl.classList.toggle("mine", !!(view.pending && view.pending.seats.includes(me())));
    drawActions();
    if (first) { fit(); if (!readOnly) scrollIntoPlace(); }
    buildBoard();
    drawTokens(false);
    settled = true;
  }

  function onEvent(e) {
    if (!e) return;
    if (e.kind === "start") { story.clear(); return; }
    story.onEvent(e);
  }

  function onResize() {
    if (view) drawHeirs(); // the compact list follows the screen's width
    fit();
    buildBoard();
    drawTokens(true);
  }
  window.addEventListener("resize", onResize);
  requestAnimationFrame(fit);
  // The board's box changes without a window resize too (the room takes the full screen).
  const boardObserver = new ResizeObserver(() => buildBoard());
  boardObserver.observe(boardEl);

  return {
    update,
    onEvent,
    destroy() { window.removeEventListener("resize", onResize); boardObserver.disconnect(); clearTimeout(sentTimer); },
  };
}
