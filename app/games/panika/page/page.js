// Panika in the browser: your hand, the shared counter, "Last card!", and everyone's piles.
// The view and the actions are described in docs/games/panika.md ("Client" for this file).
// Phone first (360 px, one thumb); with ctx.table it draws the public view big for a shared
// screen, with no hand and no buttons. With ctx.readOnly (a finished match watched again) it
// offers no action, and a revealed view's secrets (docs/games/panika.md) are drawn too: the
// burst number and every hand.
import {
  ICONS, SAFE_MAX, cardFace, cardName, el, esc, miniCard, playEffect, sameVegetable,
} from "./cards.js";
import { feedback, replay, scrollGameIntoView } from "/static/js/game_page.js";
import { t } from "/static/js/i18n.js";
import { redraw, setText } from "/static/js/dom.js";
import { narration } from "/static/js/narration.js";

const T = (key, params) => t(`game.panika.${key}`, params);

// The server gives the turn after a burst this much more time (docs/games/panika.md, "Turn
// timer"): the burst is shown for it, so the next player's clock starts when it goes.
const BURST_SHOW_MS = 3000;
const FLASH_MS = 3000;
const PENDING_RESET_MS = 2500; // unanswered taps are forgotten after this (a refused tap, say)
const FLASH_KINDS = new Set([
  "reverse", "play_two", "tap_card", "last_card", "last_card_forgotten", "void", "timeout",
  "auto_tap", "penalty", "round",
]);
// Moments that cost a player something: shown as an alert, with a sound and a buzz on their phone.
const ALERT_KINDS = new Set(["penalty", "void", "last_card_forgotten", "timeout"]);
const LAST_CARD_MS = 3000; // the window to call "Last card!" (docs/games/panika.md)

// The room gives this game the whole screen during a match (static/js/room.js, setPlaying).
export const layout = "fill";

export function mount(container, ctx) {
  const table = !!ctx.table;
  const readOnly = !!ctx.readOnly;
  const fx = feedback(ctx);
  let view = null; // the latest view
  let version = -1;
  let selected = []; // card ids, in the order chosen
  let pending = 0; // my taps sent and not yet seen in a state frame
  let pendingTimer = null;
  let playSent = false; // a play was sent; wait for the next frame
  let calledLocally = false; // "Last card!" sent; hide the button until the next frame
  let handKey = "";
  let burstTimer = null;
  let flashTimer = null;

  // --- the skeleton (built once; parts are updated in place so taps never land on a node
  // that a state frame is replacing) ----------------------------------------------------------
  const root = el("div", { class: `panika${table ? " panika--table" : ""}` });
  const info = el("div", { class: "pk-info" });
  const roundEl = el("span", { class: "pk-round", id: "panika-round" });
  const dirEl = el("span", { class: "pk-dir", id: "panika-direction" });
  const lastBurstEl = el("span", { class: "pk-last-burst" });
  const secretEl = el("span", { class: "pk-secret", id: "panika-secret", hidden: true });
  info.append(roundEl, dirEl, lastBurstEl, secretEl);
  const playersEl = el("ol", { class: "pk-players", id: "panika-players", "aria-label": T("players") });
  const statusEl = el("p", { class: "pk-status", id: "panika-status", role: "status" });
  // The notable events, told to the room: the shared narration line, flashed (and an alert
  // when a move cost someone).
  const story = narration(ctx, { kinds: FLASH_KINDS, id: "panika-flash" });
  const flashEl = story.element;
  flashEl.classList.add("pk-flash");

  const counterEl = el("span", { class: "pk-counter-value", id: "panika-count", text: "0" });
  const tapHint = el("span", { class: "pk-tap-hint" });
  const pendingEl = el("span", { class: "pk-pending", "aria-hidden": "true" });
  const counterBox = table
    ? el("div", { class: "pk-counter" }, counterEl, tapHint)
    : el("button", {
      type: "button", class: "pk-counter", id: "panika-tap", disabled: true, onclick: onTap,
    }, el("span", { class: "visually-hidden", text: T("counter") }), counterEl, tapHint, pendingEl);
  const lastPlayEl = el("div", { class: "pk-last-play", id: "panika-last-play" });
  const middle = el("div", { class: "pk-middle" }, lastPlayEl, counterBox);
  const owedEl = el("p", { class: "pk-owed", id: "panika-owed", "aria-live": "polite" });
  const queueEl = el("div", { class: "pk-queue", id: "panika-queue" });

  // Two columns on a phone held sideways (the table beside what this player does, style.css);
  // elsewhere the columns are `display: contents` and the parts stack as one column.
  const handSide = el("div", { class: "pk-hand-side" }, owedEl, queueEl);
  root.append(el("div", { class: "pk-board-side" }, info, playersEl, statusEl, flashEl, middle), handSide);

  let lastCardBtn = null;
  let handEl = null;
  let hintEl = null;
  let playBtn = null;
  if (!table) {
    lastCardBtn = el("button", {
      type: "button", class: "pk-last-card", id: "panika-last-card", hidden: true, disabled: true,
      onclick: onLastCard,
    }, el("span", { class: "pk-last-card-text", text: T("last_card") }),
    el("span", { class: "pk-last-card-left", id: "panika-last-card-left" }),
    el("span", { class: "pk-last-card-bar", "aria-hidden": "true" }));
    handEl = el("div", { class: "pk-hand", id: "panika-hand", role: "group", "aria-label": T("your_hand"), tabindex: "-1" });
    hintEl = el("p", { class: "pk-hint", id: "panika-hint" });
    playBtn = el("button", {
      type: "button", class: "btn big pk-play", id: "panika-play", disabled: true, text: T("play"),
      onclick: onPlay,
    });
    handSide.append(lastCardBtn, handEl, hintEl, playBtn);
  }

  const burstEl = el("div", { class: "pk-burst", id: "panika-burst", hidden: true, "aria-live": "assertive" });
  root.append(burstEl);
  container.replaceChildren(root);

  // --- helpers ---------------------------------------------------------------------------------
  const me = () => (view && typeof view.you === "number" ? view.you : null);
  const name = (seat) => ctx.name(seat);
  const you = (seat) => (seat === me() ? T("you") : name(seat));
  const hand = () => (view && view.hand ? view.hand : []);
  const cardById = (id) => hand().find((c) => c.id === id);
  const myTaps = () => (view && view.legal ? view.legal.taps : 0);
  // The plays the server lists in the state frame's `legal` (docs/protocol.md): the page
  // offers exactly those instead of re-deriving the rules (null from a server without it).
  let legalPlays = null;
  const sameSet = (a, b) => a.length === b.length && a.every((id) => b.includes(id));
  const isLegalPlay = (cards) => legalPlays.some((p) => (view.legal.cards === 2
    ? p.length === 2 && p[0] === cards[0] && p[1] === cards[1] : sameSet(p, cards)));
  const inSomePlay = (id) => legalPlays.some((p) => p.includes(id));
  const owedNow = () => Math.max(0, myTaps() - pending);

  function lastCardApplies() {
    if (readOnly || !view || me() === null || !view.legal || view.phase === "over" || calledLocally) return false;
    if (view.legal.last_card_due) return true;
    const p = view.players[me()];
    if (!p || p.last_card || p.pile > 0) return false;
    if (view.phase === "play" && view.turn === me()) {
      const cards = hand();
      const pair = cards.some((a) => cards.some((b) => sameVegetable(a, b)));
      return p.hand === 2 || (p.hand === 3 && (view.legal.cards === 2 || pair));
    }
    if (view.phase === "tapping" && view.tapping && view.tapping.seat === me()
        && view.last_play && view.last_play.seat === me()) return p.hand === 1;
    return false;
  }

  // --- actions ---------------------------------------------------------------------------------
  function onTap() {
    if (!view || view.phase !== "tapping" || owedNow() <= 0) return;
    ctx.send({ type: "tap" });
    pending += 1;
    clearTimeout(pendingTimer);
    pendingTimer = setTimeout(() => { pending = 0; drawCounter(); }, PENDING_RESET_MS);
    const next = view.counter + pending;
    fx.sound(next > SAFE_MAX ? "tense" : "tap");
    fx.vibrate(12);
    const plus = el("span", { class: "pk-plus", text: "+1" });
    pendingEl.append(plus);
    setTimeout(() => plus.remove(), 700);
    replay(counterBox, "pressed");
    drawCounter();
  }

  function onPlay() {
    if (!view || !view.legal || !view.legal.play || playSent) return;
    if (!selectionValid()) return;
    ctx.send({ type: "play", cards: [...selected] });
    playSent = true;
    drawHand(true);
  }

  function onLastCard() {
    if (!lastCardApplies()) return;
    ctx.send({ type: "last_card" });
    calledLocally = true;
    fx.sound("reveal");
    drawLastCard();
  }

  function onCard(id) {
    if (!view || !view.legal || !view.legal.play || playSent) return;
    const card = cardById(id);
    if (!card) return;
    const at = selected.indexOf(id);
    if (at >= 0) {
      selected.splice(at, 1);
    } else if (view.legal.cards === 2) {
      if (selected.length < 2) selected.push(id);
    } else if (selected.length === 1 && (legalPlays
      ? isLegalPlay([selected[0], id]) : sameVegetable(cardById(selected[0]), card))) {
      selected.push(id); // two identical vegetables together: 0 taps
    } else {
      selected = [id];
    }
    fx.sound("tap");
    drawHand(true);
  }

  function selectionValid() {
    const need = view.legal.cards;
    const cards = selected.map(cardById);
    if (cards.some((c) => !c)) return false;
    if (legalPlays) return isLegalPlay(selected);
    if (need === 2) return cards.length === 2;
    if (cards.length === 1) return true;
    return cards.length === 2 && sameVegetable(cards[0], cards[1]);
  }

  // --- drawing ---------------------------------------------------------------------------------
  // A state frame redraws only what it changed (setText, redraw): a tap comes up to 25 times a
  // second.
  function drawInfo() {
    setText(roundEl, T("round", { round: view.round }));
    const cw = view.direction === "clockwise";
    if (dirEl.dataset.direction !== view.direction) dirEl.innerHTML = `<span class="arrow ${cw ? "cw" : "ccw"}" aria-hidden="true">${cw ? "↻" : "↺"}</span> ${T(cw ? "clockwise" : "counter_clockwise")}`;
    dirEl.dataset.direction = view.direction;
    const b = view.last_burst;
    setText(lastBurstEl, b ? T("last_burst", { name: you(b.seat), number: b.number }) : "");
    secretEl.hidden = !view.revealed;
    setText(secretEl, view.revealed ? t("replay.bursts_at", { number: view.revealed.burst_at }) : "");
  }

  // Redrawn when what it shows changes, except the count a tapping player still owes: that
  // changes with every tap and is written in place.
  function drawPlayers() {
    const tapping = view.tapping ? view.tapping.seat : null;
    const key = JSON.stringify([view.players, view.direction, view.tap_queue.map((q) => q.seat), view.turn,
      view.phase, tapping, view.winners, view.play_two, view.revealed && view.revealed.hands, me(),
      view.players.map((p) => name(p.seat))]);
    if (!redraw(playersEl, key, playerItems) && view.tapping) {
      const mark = playersEl.querySelector(".pk-mark.tapping");
      if (mark) setText(mark, T("mark_taps", { n: view.tapping.owed }));
    }
  }

  function playerItems() {
    const items = [];
    const cw = view.direction === "clockwise";
    const queued = new Map(view.tap_queue.map((t, i) => [t.seat, i]));
    view.players.forEach((p, i) => {
      if (i > 0) items.push(el("li", { class: "pk-arrow", "aria-hidden": "true", text: cw ? "›" : "‹" }));
      const classes = ["pk-player"];
      if (view.turn === p.seat && view.phase === "play") classes.push("turn");
      if (view.tapping && view.tapping.seat === p.seat) classes.push("tapping");
      else if (queued.has(p.seat)) classes.push("queued");
      if (p.seat === me()) classes.push("me");
      if (view.winners.includes(p.seat)) classes.push("winner");
      const marks = [];
      if (view.winners.includes(p.seat)) marks.push(`<span class="pk-mark win" title="${esc(T("mark_wins"))}">${ICONS.trophy}<span class="visually-hidden">${esc(T("mark_wins"))}</span></span>`);
      if (view.play_two === p.seat) marks.push(`<span class="pk-mark two">${T("mark_plays_two")}</span>`);
      if (p.last_card) marks.push(`<span class="pk-mark last" data-last-card="true">${T("last_card")}</span>`);
      if (view.tapping && view.tapping.seat === p.seat) marks.push(`<span class="pk-mark tapping">${T("mark_taps", { n: view.tapping.owed })}</span>`);
      else if (queued.has(p.seat)) marks.push(`<span class="pk-mark queued">${T("mark_taps_next")}</span>`);
      const open = view.revealed ? view.revealed.hands[p.seat] : null;
      items.push(el("li", {
        class: classes.join(" "), "data-seat": p.seat,
        html: `<span class="pk-name">${esc(name(p.seat))}${p.seat === me() ? esc(T("you_suffix")) : ""}</span>`
          + `<span class="pk-counts"><span class="pk-hand-count" title="${esc(T("cards_in_hand"))}">${ICONS.hand}<span class="n">${p.hand}</span></span>`
          + ` <span class="pk-pile-count" title="${esc(T("cards_in_pile"))}">${ICONS.pile}<span class="n">${p.pile}</span></span></span>`
          + `<span class="pk-marks">${marks.join("")}</span>`, // always there: see panika.css, "No jump"
      }, open ? el("span", { class: "pk-open-hand", "data-hand": p.seat }, ...open.map(miniCard)) : null));
    });
    return items;
  }

  function drawStatus() {
    let text = "";
    let mine = false;
    if (view.phase === "over") {
      // Who won is the room's results' to say, once (docs/decisions/0061).
      text = T("over");
    } else if (view.phase === "play") {
      if (view.turn === me()) {
        mine = true;
        text = T(view.play_two === me() ? "your_turn_two" : "your_turn");
      } else {
        text = T(view.play_two === view.turn ? "turn_of_two" : "turn_of", { name: name(view.turn) });
      }
    } else if (view.tapping) {
      if (view.tapping.seat === me()) {
        mine = true;
        text = T("tap_counter");
      } else {
        text = T("is_tapping", { name: name(view.tapping.seat), n: view.tapping.owed });
      }
    }
    setText(statusEl, text);
    statusEl.classList.toggle("mine", mine);
  }

  function drawCounter() {
    if (!view) return;
    setText(counterEl, String(view.counter));
    const tense = view.counter > SAFE_MAX && view.phase !== "over";
    counterBox.classList.toggle("tense", tense);
    counterBox.classList.toggle("danger", view.counter > 25 && view.phase !== "over");
    const myJob = !table && view.phase === "tapping" && myTaps() > 0;
    const owed = owedNow();
    counterBox.classList.toggle("can-tap", myJob);
    if (!table) counterBox.disabled = !myJob || owed <= 0;
    pendingEl.dataset.pending = String(pending);
    if (myJob) {
      setText(tapHint, owed > 0 ? T("tap_word") : "…");
      setText(owedEl, owed > 0 ? T("tap_more", { n: owed }) : T("taps_sent"));
      owedEl.dataset.owed = String(owed);
      owedEl.hidden = false;
    } else {
      setText(tapHint, view.phase === "over" ? "" : T(view.counter > SAFE_MAX ? "careful" : "safe"));
      setText(owedEl, "");
      owedEl.dataset.owed = "0";
      owedEl.hidden = true;
    }
  }

  function drawLastPlay() {
    redraw(lastPlayEl, JSON.stringify([view.last_play, view.discard_top, view.discard_count, me(),
      view.last_play && name(view.last_play.seat)]), lastPlayParts);
  }

  function lastPlayParts() {
    const lp = view.last_play;
    const parts = [];
    if (lp) {
      const cards = el("div", { class: "pk-last-cards" }, ...lp.cards.map(miniCard));
      const what = lp.taps || (lp.cards.length === 2 && lp.cards.every((c) => c.kind === "vegetable")) ? T("taps", { n: lp.taps }) : T("no_taps");
      parts.push(el("div", { class: "pk-last-who", text: lp.seat === me() ? T("you_played") : T("played", { name: name(lp.seat) }) }), cards,
        el("div", { class: "pk-last-taps", text: what }));
    } else if (view.discard_top) {
      parts.push(el("div", { class: "pk-last-cards" }, miniCard(view.discard_top)));
    } else {
      parts.push(el("div", { class: "pk-last-empty", text: T("no_card_yet") }));
    }
    parts.push(el("div", { class: "pk-discard-count", text: T("discard", { n: view.discard_count }) }));
    return parts;
  }

  function drawQueue() {
    const q = view.tap_queue;
    const tapCard = view.phase === "tapping" && view.last_play && q.length
      && !q.some((t) => t.seat === view.last_play.seat);
    if (!tapCard) { redraw(queueEl, "", () => []); queueEl.hidden = true; return; }
    queueEl.hidden = false;
    redraw(queueEl, JSON.stringify([q.map((x) => x.seat), view.last_play.seat, me()]), () => queueItems(q));
  }

  function queueItems(q) {
    const chips = q.map((t, i) => el("span", {
      class: `pk-q${i === 0 ? " now" : ""}${t.seat === me() ? " me" : ""}`,
      "data-seat": t.seat, text: i === 0 ? T("now", { name: you(t.seat) }) : you(t.seat),
    }));
    const items = [];
    chips.forEach((c, i) => { if (i) items.push(el("span", { class: "pk-q-arrow", text: "→" })); items.push(c); });
    return [el("span", { class: "pk-q-title", text: T("tap_for", { name: you(view.last_play.seat) }) }), ...items];
  }

  function drawLastCard() {
    if (!lastCardBtn) return;
    const show = lastCardApplies();
    const due = !!(show && view.legal && view.legal.last_card_due);
    lastCardBtn.hidden = !show;
    lastCardBtn.disabled = !show;
    lastCardBtn.classList.toggle("due", due);
    // The window is short: count it down on the button while it is open.
    if (due && !lastCardDeadline) {
      lastCardDeadline = performance.now() + LAST_CARD_MS;
      tickLastCard();
    } else if (!due) {
      lastCardDeadline = 0;
      lastCardBtn.style.removeProperty("--left");
      lastCardBtn.querySelector(".pk-last-card-left").textContent = "";
    }
  }

  let lastCardDeadline = 0;
  function tickLastCard() {
    if (!lastCardDeadline || !lastCardBtn) return;
    const left = Math.max(0, lastCardDeadline - performance.now());
    lastCardBtn.style.setProperty("--left", String(left / LAST_CARD_MS));
    lastCardBtn.querySelector(".pk-last-card-left").textContent = `${(left / 1000).toFixed(1)} s`;
    if (left > 0) requestAnimationFrame(tickLastCard);
  }

  function drawHand(force = false) {
    if (!handEl) return;
    const legal = view.legal || { play: false, cards: 0 };
    const canPlay = legal.play && !playSent;
    const over = view.phase === "over" || me() === null || readOnly; // over, a spectator, a replay: no play
    playBtn.hidden = over;
    hintEl.hidden = over;
    // A short phone shows the Play button only on the player's turn (style.css).
    root.classList.toggle("pk-my-turn", !!legal.play);
    const key = JSON.stringify([hand().map((c) => c.id), selected, canPlay, legal.cards, over]);
    if (!force && key === handKey) return;
    handKey = key;
    const two = legal.cards === 2;
    const cards = hand();
    handEl.classList.toggle("play-two", two && canPlay);
    // Keyboard players keep their place: the focused card (or the hand) keeps focus.
    const focused = document.activeElement;
    const focusedCard = focused && focused !== handEl && handEl.contains(focused) ? focused.dataset.cardId : null;
    handEl.replaceChildren(...cards.map((card) => {
      const face = cardFace(card);
      const order = selected.indexOf(card.id);
      const b = el("button", {
        type: "button", class: `card pk-card ${face.cls}${order >= 0 ? " selected" : ""}`,
        "data-card-id": card.id, "aria-pressed": String(order >= 0),
        html: face.html, onclick: () => onCard(card.id),
      });
      let disabled = !canPlay || (legalPlays !== null && !inSomePlay(card.id));
      if (canPlay && two && selected.length >= 2 && order < 0) disabled = true;
      b.disabled = disabled;
      if (two && order >= 0) b.append(el("span", { class: "pk-order", text: String(order + 1) }));
      return b;
    }));
    if (focusedCard !== null) {
      const again = handEl.querySelector(`[data-card-id="${focusedCard}"]:not([disabled])`)
        || handEl.querySelector("button.card:not([disabled])");
      (again || handEl).focus();
    }
    // The play button and the hint. A focused Play button that becomes disabled (it was just
    // pressed) hands the keyboard focus to the hand instead of dropping it.
    const valid = canPlay && selectionValid();
    const playFocused = document.activeElement === playBtn;
    playBtn.disabled = !valid;
    if (playFocused && !valid) handEl.focus();
    if (valid) {
      const chosen = selected.map(cardById);
      const { taps, special } = playEffect(chosen);
      const effect = special ? T("then", { a: T("taps", { n: taps }), b: cardName(special) }) : T("taps", { n: taps });
      setText(playBtn, T("play_what", { cards: chosen.map(cardName).join(" + "), effect }));
    } else {
      setText(playBtn, !canPlay ? T(legal.play ? "playing" : "wait_turn")
        : two ? T("play_two_chosen", { n: selected.length }) : T("choose_card"));
    }
    setText(hintEl, hint(canPlay, two));
  }

  function hint(canPlay, two) {
    if (!canPlay) return view.phase === "over" ? "" : (cardsLeftText());
    if (two) {
      const specials = selected.map(cardById).filter((c) => c && c.kind === "special");
      if (selected.length < 2) return T("hint_two");
      return specials.length === 2 ? T("hint_second_special", { card: cardName(specials[1]) }) : T("hint_taps_first");
    }
    if (selected.length === 1) {
      const c = cardById(selected[0]);
      if (c && hand().some((o) => sameVegetable(c, o))) return T("hint_pair", { card: cardName(c) });
    }
    if (!selected.length) return T("hint_choose");
    return "";
  }

  function cardsLeftText() {
    const p = view.players[me()];
    return p ? T("draw_pile", { n: p.pile }) : "";
  }

  // --- events and animations -------------------------------------------------------------------
  function flash(events, alert = false) {
    if (!story.tell(events)) return;
    flashEl.classList.toggle("alert", alert);
    replay(flashEl, "show");
    clearTimeout(flashTimer);
    flashTimer = setTimeout(() => flashEl.classList.remove("show"), FLASH_MS);
  }

  function showBurst(b, events) {
    const penalty = events.find((e) => e.kind === "penalty" && e.seat === b.seat);
    const cards = penalty && penalty.data ? penalty.data.cards : null;
    burstEl.innerHTML = `<div class="pk-burst-inner"><div class="pk-burst-word">${esc(T("burst"))}</div>`
      + `<div class="pk-burst-number" id="panika-burst-number">${esc(b.number)}</div>`
      + `<div class="pk-burst-who">${esc(b.seat === me() ? T("you_burst") : T("burst_by", { name: name(b.seat) }))}</div>`
      + (cards !== null ? `<div class="pk-burst-penalty">${esc(T(b.seat === me() ? "you_take" : "takes", { n: cards }))}</div>` : "")
      + `</div>`;
    burstEl.hidden = false;
    replay(burstEl, "boom");
    flashEl.classList.remove("show");
    fx.sound("burst");
    fx.vibrate([200, 100, 300]);
    clearTimeout(burstTimer);
    burstTimer = setTimeout(() => { burstEl.hidden = true; }, BURST_SHOW_MS);
  }

  function react(prev, frame) {
    const events = frame.events || [];
    const seat = me();
    // Acknowledge my taps.
    let acks = 0;
    for (const e of events) {
      if (e.seat !== seat || seat === null) continue;
      if (e.kind === "tap" || e.kind === "burst") acks += 1;
      if (e.kind === "auto_tap") acks = Infinity;
    }
    pending = Math.max(0, Math.min(pending - acks, myTaps()));
    if (!pending) clearTimeout(pendingTimer);
    if (!prev) return;
    const b = view.last_burst;
    const pb = prev.last_burst;
    const burst = b && (!pb || pb.round !== b.round);
    if (burst) {
      showBurst(b, events);
    } else if (view.counter > prev.counter && view.round === prev.round) {
      replay(counterEl, "bump");
      if (view.counter > SAFE_MAX) {
        replay(counterBox, "shake");
        if (!(view.tapping && view.tapping.seat === seat)) fx.sound("tense");
      }
    }
    const becameMine = (view.phase === "play" && view.turn === seat && !(prev.phase === "play" && prev.turn === seat))
      || (myTaps() > 0 && !(prev.legal && prev.legal.taps > 0));
    if (becameMine && seat !== null && !burst) { fx.sound("reveal"); fx.vibrate(40); }
    const notable = events.filter((e) => !e.transient && FLASH_KINDS.has(e.kind));
    if (notable.length && !burst) {
      const mineHurts = notable.some((e) => ALERT_KINDS.has(e.kind) && e.seat === seat && seat !== null);
      flash(notable, notable.some((e) => ALERT_KINDS.has(e.kind)));
      if (mineHurts) { fx.sound("wrong"); fx.vibrate([90, 50, 90]); }
    }
  }

  // --- the shell's interface ------------------------------------------------------------------
  function update(frame) {
    if (!frame || !frame.view) return;
    const prev = view;
    const fresh = frame.version !== version;
    version = frame.version;
    view = frame.view;
    // Watching a match again: the seat's view as it was, with nothing to do.
    if (readOnly && view.legal) view = { ...view, legal: { play: false, cards: 0, taps: 0, last_card_due: false } };
    legalPlays = Array.isArray(frame.legal)
      ? frame.legal.filter((a) => a.type === "play").map((a) => a.cards) : null;
    root.dataset.phase = view.phase;
    playSent = false;
    calledLocally = false;
    if (!view.legal || !view.legal.play) selected = [];
    selected = selected.filter((id) => cardById(id));
    if (!prev) scrollGameIntoView(table);
    react(fresh ? prev : null, frame);
    drawInfo();
    drawPlayers();
    drawStatus();
    drawCounter();
    drawLastPlay();
    drawQueue();
    drawLastCard();
    drawHand();
  }

  return { update, onEvent() {}, destroy() { container.replaceChildren(); } };
}
