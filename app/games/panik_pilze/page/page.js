// Panik Pilze in the browser: the baskets (a live scoring pad), the pile and the display, your
// action hand, and the final scoring pad. The view and the actions are described in
// docs/games/panik-pilze.md ("The view", "Actions", "Client"). Phone first: the whole game
// fits one screen (the sizes shrink to the height available); with ctx.table it draws the
// public view big for a shared screen, with no hand and no buttons. With ctx.readOnly (a finished
// match watched again) it offers no action and keeps its size, and a revealed view's secrets
// (docs/games/panik-pilze.md) are drawn too: every down side, every hand.
import {
  ICONS, MUSHROOMS, NAMES, actionFace, actionName, el, esc, face, mushroomSvg,
} from "./art.js";
import { t } from "/static/js/i18n.js";
import { narration } from "/static/js/narration.js";

const T = (key, params) => t(`game.panik_pilze.${key}`, params);

const FLIP_MS = 1400; // a card leaving the pile: its pile side, then its display side
const FLIP_STAGGER_MS = 350;
const SENT_RESET_MS = 3000;
const SCALES = [2, 1.8, 1.6, 1.45, 1.3, 1.2, 1.15, 1.1, 1.05, 1, 0.96, 0.92, 0.85, 0.78, 0.72];

export function mount(container, shell) {
  const table = !!shell.table;
  const readOnly = !!shell.readOnly;
  // Sound and vibration only once the page has had a user gesture (browsers refuse them before).
  const active = () => !navigator.userActivation || navigator.userActivation.hasBeenActive;
  const ctx = {
    send: (action) => shell.send(action),
    name: (seat) => shell.name(seat),
    sound: (name) => { if (active()) shell.sound(name); },
    vibrate: (pattern) => { if (active()) shell.vibrate(pattern); },
  };
  let view = null;
  let sel = freshSelection();
  let sent = false; // an action was sent: wait for the next frame
  let sentTimer = null; // a refused action (an error frame) gets no state: choose again after this
  const lays = new Map(); // display id -> the side it showed on the pile (from the lay event)
  const flips = new Map(); // display id -> the side it showed before a "turn"
  let lastUps = new Map(); // display id -> up, as last drawn
  let fitQueued = false;

  // --- the skeleton (built once; parts update in place) --------------------------------------
  // Its five-player screen has no line to spare for a title that wraps (static/css/site.css).
  const root = el("div", { class: `pilze${table ? " pilze--table" : ""}`, "data-phase": "play",
    "data-one-line-title": "" });
  const board = el("div", { class: "pp-board", id: "pilze-board", role: "group", "aria-label": T("board") });
  const pileEl = el("div", { class: "pp-pile", id: "pilze-pile", role: "group" });
  const displayEl = el("div", { class: "pp-display", id: "pilze-display", "aria-label": T("display") });
  const middle = el("div", { class: "pp-middle" }, pileEl, displayEl);
  const statusEl = el("p", { class: "pp-status", id: "pilze-status", role: "status" });
  // Every move told to the room (what was played, turned or stolen), on the TV and each phone.
  const story = narration(shell, { id: "pilze-narration" });
  // The scoring pad scrolls sideways on a narrow phone with five players: focusable for keyboards.
  const padEl = el("div", { class: "pp-pad", id: "pilze-pad", hidden: true, tabindex: "0",
    role: "region", "aria-label": T("pad") });
  const openHandsEl = el("div", { class: "pp-open-hands", id: "pilze-open-hands", hidden: true });
  root.append(board, middle, story.element, statusEl, openHandsEl);

  let handEl = null;
  let swapBtn = null;
  let playBtn = null;
  if (!table) {
    handEl = el("div", { class: "pp-hand", id: "pilze-hand", "aria-label": T("your_cards") });
    swapBtn = el("button", { type: "button", class: "btn ghost pp-swap", id: "pilze-swap", onclick: onSwapMode });
    playBtn = el("button", { type: "button", class: "btn pp-play", id: "pilze-play", onclick: onPlay, text: T("play") });
    root.append(handEl, el("div", { class: "pp-controls", hidden: readOnly }, swapBtn, playBtn));
  }
  root.append(padEl);
  container.replaceChildren(root);
  window.addEventListener("resize", queueFit);
  // The room around the game changes height too (a player away or back, the chat opened):
  // the page is measured again whenever the body's size changes (fit() settles on one size,
  // so its own change is seen once and then no more).
  const bodySize = new ResizeObserver(queueFit);
  bodySize.observe(document.body);

  // --- helpers -----------------------------------------------------------------------------------
  function freshSelection() {
    return { card: null, flip: [], mushroom: null, steal: null, swap: false, swapCards: [] };
  }
  const me = () => (view && typeof view.you === "number" ? view.you : null);
  const myTurn = () => !!(view && view.legal && view.legal.play) && !sent;
  const hand = () => (view && view.hand ? view.hand : []);
  const selectedCard = () => hand().find((c) => c.id === sel.card) || null;
  const who = (seat) => (seat === me() ? T("you") : ctx.name(seat));

  function need() {
    // What the selected card still needs: "flip", "mushroom", "steal" or null (ready).
    const card = selectedCard();
    if (!card) return "card";
    if (card.kind === "collect" && card.action === "turn" && sel.flip.length < card.count) return "flip";
    if (card.kind === "party" && !sel.mushroom) return "mushroom";
    if (card.kind === "steal" && !sel.steal) return "steal";
    return null;
  }

  function actionToSend() {
    if (sel.swap) return sel.swapCards.length ? { type: "swap", cards: [...sel.swapCards] } : null;
    const card = selectedCard();
    if (!card || need() !== null) return null;
    if (card.kind === "collect") return { type: "collect", card: card.id, flip: [...sel.flip] };
    if (card.kind === "party") return { type: "party", card: card.id, mushroom: sel.mushroom };
    return { type: "steal", card: card.id, victim: sel.steal.victim, mushroom: sel.steal.mushroom };
  }

  // --- input ---------------------------------------------------------------------------------------
  function onHandCard(id) {
    if (!myTurn()) return;
    if (sel.swap) {
      const at = sel.swapCards.indexOf(id);
      if (at >= 0) sel.swapCards.splice(at, 1);
      else sel.swapCards.push(id);
    } else {
      const card = hand().find((c) => c.id === id);
      if (card && card.kind === "steal" && !view.legal.steal) {
        sel = freshSelection();
        ctx.sound("wrong");
        statusEl.textContent = T("nothing_to_steal");
        drawAll(false);
        return;
      }
      sel = { ...freshSelection(), card: sel.card === id ? null : id };
    }
    ctx.sound("tap");
    drawAll();
  }

  function onDisplayCard(id) {
    const card = selectedCard();
    if (!myTurn() || sel.swap || !card || card.kind !== "collect" || card.action !== "turn") return;
    const at = sel.flip.indexOf(id);
    if (at >= 0) sel.flip.splice(at, 1);
    else if (sel.flip.length < card.count) sel.flip.push(id);
    else sel.flip = [...sel.flip.slice(1), id];
    ctx.sound("tap");
    drawAll();
  }

  function onType(mushroom) {
    const card = selectedCard();
    if (!myTurn() || !card || card.kind !== "party") return;
    sel.mushroom = sel.mushroom === mushroom ? null : mushroom;
    ctx.sound("tap");
    drawAll();
  }

  function onStack(victim, mushroom) {
    const card = selectedCard();
    if (!myTurn() || !card || card.kind !== "steal") return;
    const same = sel.steal && sel.steal.victim === victim && sel.steal.mushroom === mushroom;
    sel.steal = same ? null : { victim, mushroom };
    ctx.sound("tap");
    drawAll();
  }

  function onSwapMode() {
    if (!myTurn()) return;
    const swap = !sel.swap;
    sel = { ...freshSelection(), swap };
    drawAll();
  }

  function onPlay() {
    const action = myTurn() && actionToSend();
    if (!action) return;
    ctx.send(action);
    sent = true;
    clearTimeout(sentTimer);
    sentTimer = setTimeout(() => { sent = false; drawAll(); }, SENT_RESET_MS);
    ctx.vibrate(15);
    drawAll();
  }

  // --- drawing -------------------------------------------------------------------------------------
  function drawBoard() {
    const players = view.players;
    const card = selectedCard();
    const partyMode = !table && myTurn() && card && card.kind === "party" && !sel.swap;
    const stealMode = !table && myTurn() && card && card.kind === "steal" && !sel.swap;
    board.classList.toggle("party-mode", !!partyMode);
    board.classList.toggle("steal-mode", !!stealMode);
    board.style.setProperty("--pp-players", players.length);
    const cells = [el("span", { class: "pp-corner", text: T("baskets") })];
    for (const m of MUSHROOMS) {
      const attrs = { class: `pp-type pp-type-${m}`, "data-mushroom": m };
      if (partyMode) {
        cells.push(el("button", {
          ...attrs, type: "button", "aria-pressed": String(sel.mushroom === m),
          class: `${attrs.class}${sel.mushroom === m ? " chosen" : ""}`,
          html: face(m), onclick: () => onType(m),
        }));
      } else cells.push(el("span", { ...attrs, html: face(m) }));
    }
    cells.push(el("span", { class: "pp-total-head", text: T("score") }));
    const leaders = {};
    for (const m of MUSHROOMS) {
      const most = Math.max(...players.map((p) => p.basket[m]));
      leaders[m] = most > 0 ? new Set(players.filter((p) => p.basket[m] === most).map((p) => p.seat)) : new Set();
    }
    for (const p of players) {
      const rowCls = ["pp-who"];
      if (view.turn === p.seat) rowCls.push("turn");
      if (p.seat === me()) rowCls.push("me");
      if (view.winners.includes(p.seat)) rowCls.push("winner");
      cells.push(el("span", {
        class: rowCls.join(" "), "data-seat": p.seat,
        html: `<span class="pp-pname">${esc(who(p.seat))}</span>`,
      }));
      for (const m of MUSHROOMS) {
        const n = p.basket[m];
        const lead = leaders[m].has(p.seat);
        const cls = `pp-stack pp-stack-${m}${lead ? " lead" : ""}${n ? "" : " empty"}`;
        const label = `${n}${lead ? ICONS.star : ""} `; // the space: a Steal button reads "2 Steal", as its name
        const canSteal = stealMode && p.seat !== me() && n > 0;
        if (canSteal) {
          const chosen = sel.steal && sel.steal.victim === p.seat && sel.steal.mushroom === m;
          cells.push(el("button", {
            type: "button", class: `${cls} target${chosen ? " chosen" : ""}`,
            "aria-pressed": String(!!chosen), "data-seat": p.seat, "data-mushroom": m,
            "aria-label": T("steal_label", { n, mushroom: NAMES[m], name: who(p.seat) }),
            html: `<span class="pp-n">${label}</span><span class="pp-steal-label">${esc(T("steal"))}</span>`,
            onclick: () => onStack(p.seat, m),
          }));
        } else {
          cells.push(el("span", {
            class: cls, "data-seat": p.seat, "data-mushroom": m,
            title: T(lead ? "stack_most" : "stack", { mushroom: NAMES[m], n }), html: `<span class="pp-n">${label}</span>`,
          }));
        }
      }
      cells.push(el("span", { class: "pp-total", "data-seat": p.seat, text: String(view.score.totals[p.seat]) }));
    }
    board.replaceChildren(...cells);
  }

  function drawPile() {
    const pile = view.pile;
    const under = view.revealed && view.revealed.pile.length ? view.revealed.pile[view.revealed.pile.length - 1].down : null;
    const top = pile.top
      ? `<div class="pp-card pp-card-${pile.top} pp-pile-top">${face(pile.top, under ? downSide(under) : "")}</div>`
      : `<div class="pp-card pp-card-empty">${esc(T("empty"))}</div>`;
    pileEl.innerHTML = `${top}<span class="pp-pile-count" id="pilze-pile-count" title="${esc(T("pile_left"))}">${pile.count}</span>`;
    pileEl.setAttribute("aria-label", T("pile", { n: pile.count, top: pile.top ? NAMES[pile.top] : T("empty") }));
  }

  function drawDisplay() {
    const card = selectedCard();
    const flipMode = !table && myTurn() && !sel.swap && card && card.kind === "collect" && card.action === "turn";
    const takeType = previewType();
    const ups = new Map();
    let arriving = 0;
    const nodes = view.display.map((d) => {
      ups.set(d.id, d.up);
      const chosen = sel.flip.includes(d.id);
      const classes = ["pp-card", `pp-card-${d.up}`];
      if (chosen) classes.push("chosen");
      if (takeType && d.up === takeType && !chosen) classes.push("take");
      const down = d.down ? downSide(d.down) : "";
      const inner = face(d.up, down);
      const attrs = { class: classes.join(" "), "data-id": d.id, "data-up": d.up, html: inner };
      let node;
      if (flipMode) {
        node = el("button", { ...attrs, type: "button", "aria-pressed": String(chosen), onclick: () => onDisplayCard(d.id) });
      } else node = el("div", attrs);
      const was = lays.get(d.id);
      if (was) {
        lays.delete(d.id);
        animateFlip(node, was, arriving);
        arriving += 1;
      } else if (flips.has(d.id)) {
        animateFlip(node, flips.get(d.id), 0, true);
        flips.delete(d.id);
      }
      return node;
    });
    if (!nodes.length) nodes.push(el("p", { class: "pp-empty", text: T("display_empty") }));
    displayEl.replaceChildren(...nodes);
    displayEl.classList.toggle("flip-mode", !!flipMode);
    lastUps = ups;
    lays.clear(); // cards laid out and collected in the same move never reach the display
    flips.clear();
  }

  function downSide(mushroom) {
    return `<span class="pp-down">${mushroomSvg(mushroom, "pp-down-icon")}<span>${esc(T("under", { mushroom: NAMES[mushroom] }))}</span></span>`;
  }

  // A revealed view: every seat's hand, drawn as a hand is (not buttons).
  function drawOpenHands() {
    openHandsEl.hidden = !view.revealed;
    if (!view.revealed) return;
    openHandsEl.replaceChildren(...view.revealed.hands.map((cards, seat) => el("div", {
      class: "pp-open-hand", "data-hand": seat,
    }, el("span", { class: "pp-open-who", text: ctx.name(seat) }),
    el("div", { class: "pp-hand" }, ...cards.map((c) => el("div", {
      class: `pp-action pp-action-${c.kind}${c.mushroom ? ` pp-card-${c.mushroom}` : ""}`,
      "data-card-id": c.id, title: actionName(c), html: actionFace(c),
    }))))));
  }

  function animateFlip(node, was, index, turned = false) {
    // Both sides, briefly: the side seen on the pile (or before the turn), then the new up side.
    const back = el("div", { class: `pp-back pp-card-${was}`, "aria-hidden": "true", html: face(was, `<span class="pp-was">${esc(T(turned ? "was" : "on_pile"))}</span>`) });
    node.append(back);
    node.classList.add("flipping");
    node.style.setProperty("--pp-delay", `${index * FLIP_STAGGER_MS}ms`);
    setTimeout(() => { back.remove(); node.classList.remove("flipping"); }, FLIP_MS + index * FLIP_STAGGER_MS);
  }

  function previewType() {
    const card = selectedCard();
    if (!card || sel.swap) return null;
    if (card.kind === "collect") return card.mushroom;
    if (card.kind === "party") return sel.mushroom;
    return null;
  }

  function drawHand() {
    if (table) return;
    handEl.hidden = readOnly && me() === null; // a replay through every secret: the hands show below
    const cards = hand();
    const active = myTurn();
    handEl.replaceChildren(...cards.map((c) => {
      const chosen = sel.swap ? sel.swapCards.includes(c.id) : sel.card === c.id;
      const cls = ["pp-action", `pp-action-${c.kind}`];
      if (c.mushroom) cls.push(`pp-card-${c.mushroom}`);
      if (chosen) cls.push("chosen");
      if (c.kind === "steal" && !view.legal.steal) cls.push("unplayable");
      return el("button", {
        type: "button", class: cls.join(" "), "data-card-id": c.id, "data-kind": c.kind,
        "aria-pressed": String(chosen), disabled: !active, title: actionName(c),
        html: actionFace(c), onclick: () => onHandCard(c.id),
      });
    }));
    handEl.classList.toggle("swap-mode", sel.swap);
    swapBtn.innerHTML = sel.swap ? esc(T("cancel_swap")) : `<span>${ICONS.swap} ${esc(T("swap"))}</span><small>${esc(T("in_action_pile", { n: view.action_pile }))}</small>`;
    swapBtn.disabled = !active;
    const action = active ? actionToSend() : null;
    playBtn.disabled = !action;
    playBtn.textContent = sel.swap
      ? (sel.swapCards.length ? T("swap_n", { n: sel.swapCards.length }) : T("swap_none"))
      : T("play");
  }

  function drawStatus(force = true) {
    if (!force) return;
    let text = "";
    let mine = false;
    if (view.phase === "over") {
      text = T("over"); // who won is the room's results' to say, once (docs/decisions/0061)
    } else if (view.turn === me()) {
      mine = true;
      text = sent ? T("playing") : hint();
    } else {
      text = T("turn_of", { name: ctx.name(view.turn) });
    }
    statusEl.textContent = text;
    statusEl.classList.toggle("mine", mine);
  }

  function hint() {
    if (sel.swap) return T("hint.swap");
    const card = selectedCard();
    if (!card) return T("hint.pick");
    const n = need();
    if (n === "flip") return T("hint.flip", { n: card.count - sel.flip.length });
    if (n === "mushroom") return T("hint.party_type");
    if (n === "steal") return T("hint.steal_from");
    if (card.kind === "collect" && card.action === "draw") return T("hint.draw", { n: card.count, mushroom: NAMES[card.mushroom] });
    if (card.kind === "collect") return T("hint.turn", { mushroom: NAMES[card.mushroom] });
    if (card.kind === "party") return T("hint.party", { mushroom: NAMES[sel.mushroom] });
    return T("hint.steal", { mushroom: NAMES[sel.steal.mushroom], name: ctx.name(sel.steal.victim) });
  }

  function drawPad() {
    const over = view.phase === "over";
    padEl.hidden = !over;
    root.dataset.phase = view.phase;
    if (!over) return;
    const seats = view.players.map((p) => p.seat);
    const head = `<tr><th scope="col">${esc(T("pad"))}</th>${seats.map((s) => `<th scope="col" class="${view.winners.includes(s) ? "winner" : ""}">${esc(who(s))}</th>`).join("")}</tr>`;
    const rows = MUSHROOMS.map((m) => `<tr><th scope="row" class="pp-pad-type">${mushroomSvg(m, "pp-pad-icon")} ${NAMES[m]}</th>${
      seats.map((s) => `<td><b>${view.score.by_type[m][s]}</b> <small>(${view.players[s].basket[m]})</small></td>`).join("")}</tr>`).join("");
    const total = `<tr class="pp-pad-total"><th scope="row">${esc(T("total"))}</th>${seats.map((s) => `<td class="${view.winners.includes(s) ? "winner" : ""}">${view.score.totals[s]}</td>`).join("")}</tr>`;
    const cause = esc(T(`cause.${view.end_cause}`));
    padEl.innerHTML = `<table class="pp-pad-table" id="pilze-pad-table">${head}${rows}${total}</table><p class="pp-pad-note">${cause} ${esc(T("pad_note"))}</p>`;
  }

  function drawAll(status = true) {
    if (!view) return;
    drawBoard();
    drawPile();
    drawDisplay();
    drawHand();
    drawStatus(status);
    drawOpenHands();
    drawPad();
    queueFit();
  }

  // --- fitting one screen --------------------------------------------------------------------------
  function queueFit() {
    if (fitQueued) return;
    fitQueued = true;
    requestAnimationFrame(() => { fitQueued = false; fit(); });
  }

  function overflow() {
    const doc = document.scrollingElement || document.documentElement;
    return doc.scrollHeight - window.innerHeight;
  }

  // The setting (tight or not, then the scale) the last fit chose: a frame seldom changes it,
  // so the next looks start there, a forced layout or two per frame instead of up to thirty.
  let fitAt = 0;
  function fit() {
    // The largest scale at which the page does not scroll; if even the smallest does not fit
    // (five players, a long display, a steal to choose), the room around the game is compacted
    // too (class "pp-tight": no site header, a smaller room code, no "Connected." line, no
    // member chips, no seed-hash line) and the scales tried again.
    if (!view || view.phase === "over" || readOnly) {
      root.classList.remove("pp-tight");
      root.style.setProperty("--pp-s", 1);
      fitAt = 0;
      return;
    }
    const scales = table ? [2.6, 2.3, ...SCALES] : SCALES;
    const settings = [false, true].flatMap((tight) => scales.map((s) => [tight, s]));
    const last = settings.length - 1;
    const apply = (i) => {
      root.classList.toggle("pp-tight", settings[i][0]);
      root.style.setProperty("--pp-s", settings[i][1]);
    };
    const fits = (i) => { apply(i); return overflow() <= 0; };
    // The first setting of the list that fits (a setting further down fits more easily),
    // looked for from the last one chosen, up while the one before fits, else down.
    let i = Math.min(fitAt, last);
    if (fits(i)) {
      while (i > 0 && fits(i - 1)) i -= 1;
    } else {
      while (i < last && !fits(i + 1)) i += 1;
      if (i < last) i += 1; // nothing fits: the smallest scale, tight
    }
    fitAt = i;
    apply(i); // the last look may have tried the setting before it
  }

  // --- frames ------------------------------------------------------------------------------------
  return {
    update(frame) {
      const prev = view;
      view = frame.view;
      // Watching a match again: the seat's view as it was, with nothing to do.
      if (readOnly && view.legal) view = { ...view, legal: { play: false, steal: false } };
      const turnChanged = !prev || prev.turn !== view.turn || prev.turn_number !== view.turn_number;
      if (turnChanged) {
        sel = freshSelection();
        sent = false;
        clearTimeout(sentTimer);
      }
      if (turnChanged && view.turn === me() && view.phase === "play") { ctx.sound("reveal"); ctx.vibrate([20, 40, 20]); }
      drawAll();
    },
    onEvent(event) {
      story.onEvent(event);
      if (event.kind === "lay" && event.data) lays.set(event.data.id, event.data.was);
      else if (event.kind === "flip" && event.data) {
        const before = lastUps.get(event.data.id);
        if (before) flips.set(event.data.id, before);
      } else if (event.kind === "steal" || event.kind === "party" || event.kind === "collect") {
        if (event.data && event.data.taken) ctx.sound("tap");
      }
    },
    destroy() {
      window.removeEventListener("resize", queueFit);
      bodySize.disconnect();
      container.replaceChildren();
    },
  };
}
