// Panic Lab in the browser: the ring of tiles round the dice, one tap to claim, and after each
// round every claim and the amoeba's path, step by step. The state comes from the server's view
// (docs/games/panic-lab.md); the ring's SVG is built once per match, each frame only changes
// classes and a few texts. With ctx.readOnly (a finished match watched again) nothing can be
// claimed and the countdown stands still at the frame's time; a revealed view (docs/games/
// panic-lab.md) shows the answer and every claim while the round is still being searched.
//
// Hooks for tests: `.pl-tile[data-index="7"]` (click to claim), `.pl-root[data-phase]`,
// `.pl-player[data-seat="0"] .pl-tokens[data-tokens]`, `.pl-tile.mine`, `.pl-tile.answer`,
// `.pl-root[data-answer]` (after a round), `.pl-claim` (claim labels after a round).
import {
  amoeba, attributeName, blankDie, colourDie, defs, describeKind, describeTile, el, labDie, labName,
  patternDie, ringLayout, shapeDie, tileArt,
} from "./art.js";
import { t } from "/static/js/i18n.js";
import { narration } from "/static/js/narration.js";

const T = (key, params) => t(`game.panic_lab.${key}`, params);

const LIVE = new Set(["search", "settling"]);
/** What the narration line tells: the claims and how each round ends (the dice say the rest). */
const TOLD = ["claim", "wrong", "found", "timeout", "all_wrong"];

function html(tag, cls, textContent) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (textContent !== undefined) e.textContent = textContent;
  return e;
}

function svgText(str, attrs) {
  const t = el("text", attrs);
  t.textContent = str;
  return t;
}

// The room gives this game the whole screen during a match (static/js/room.js, setPlaying).
export const layout = "fill";

export function mount(container, ctx) {
  const still = !!ctx.table || !!ctx.readOnly; // nobody claims from this board
  const root = html("div", `pl-root${ctx.table ? " table" : ""}`);
  const banner = html("p", "pl-banner");
  banner.setAttribute("role", "status");
  banner.setAttribute("aria-live", "polite");
  const board = html("div", "pl-board");
  const caption = html("p", "pl-caption");
  caption.setAttribute("aria-live", "polite");
  const playersBox = html("ol", "pl-players");
  playersBox.setAttribute("aria-label", T("tokens"));
  // Who claimed, who was wrong, who found it: the shared narration line, beside the banner
  // (under it on a narrow screen), so that the ring keeps its height.
  const story = narration(ctx, { kinds: TOLD, id: "pl-narration", latest: true });
  const head = html("div", "pl-head");
  head.append(banner, story.element);
  root.append(head, board, caption, playersBox);
  container.replaceChildren(root);

  const ui = {
    ringKey: null, svg: null, layout: null, tiles: [], ring: [], dice: null, countText: null,
    seekG: null, seekText: null, trail: null, claimsG: null, cursor: null,
    players: [], playerCount: -1,
  };
  const st = {
    frame: null, phase: null, round: 0, shownRound: 0, pending: null, pendingTimer: 0,
    countdownEnd: 0, frozenMs: null, lastCount: null, animTimer: 0, wasLocked: false, diceKey: null,
  };

  // --- building (once per match, and when the board changes shape) -----------------------------
  // A board about as wide as tall (a laptop, a TV) gets a round ring with the dice in a row; a
  // tall one (a phone held upright) gets a ring as tall as the board, with the dice in a square.
  // The drawing is 1000 wide; this is its height.
  function drawingHeight() {
    const w = board.clientWidth;
    const h = board.clientHeight;
    if (!w || !h) return ctx.table || window.innerWidth > window.innerHeight ? 1000 : 1300;
    const n = st.frame ? st.frame.view.ring.length : 25;
    const tallH = Math.round(Math.min(1800, Math.max(1150, (1000 * h) / w)) / 50) * 50;
    // the shape whose tiles come out bigger on this board
    const round = ringLayout(n, 1000, 1000).spacing * Math.min(w, h) / 1000;
    const tall = ringLayout(n, 1000, tallH).spacing * Math.min(w / 1000, h / tallH);
    return round >= tall ? 1000 : tallH;
  }

  const resize = new ResizeObserver(() => {
    if (!ui.svg || !st.frame) return;
    if (st.frame.view.ring.length === 0) return;
    if (Math.abs(drawingHeight() - ui.layout.height) < 100) return;
    const frame = st.frame;
    build(frame.view);
    st.frame = null;
    st.phase = null;
    update(frame);
  });
  resize.observe(board);

  function build(view) {
    clearInterval(st.animTimer);
    const n = view.ring.length;
    const W = 1000;
    const H = drawingHeight();
    const round = H === 1000;
    const L = ringLayout(n, W, H);
    const svg = el("svg", {
      class: "pl-ring", viewBox: `0 0 ${W} ${H}`, role: "group",
      "aria-label": T("ring", { n }),
    });
    svg.append(defs());
    const tilesG = el("g", { class: "pl-tiles" });
    ui.tiles = view.ring.map((tile, i) => {
      const p = L.points[i];
      const s = L.tileR / 50;
      const g = el("g", {
        class: `pl-tile ${tile.type}`, "data-index": i, "data-type": tile.type,
        transform: `translate(${p.x.toFixed(1)} ${p.y.toFixed(1)}) scale(${s.toFixed(3)})`,
        tabindex: still ? null : 0, role: still ? "img" : "button",
        "aria-label": T("tile", { n: i + 1, tile: describeTile(tile) }),
      });
      // The tap target reaches halfway to the neighbours (44 px and more on a 360 px phone).
      g.append(el("circle", { class: "pl-hit", r: (50 * L.spacing * 0.5) / L.tileR, fill: "transparent" }));
      g.append(el("g", { class: "pl-art", "aria-hidden": "true" }, ...tileArt(tile))); // named by aria-label
      g.append(el("circle", { class: "pl-hl", r: 53, fill: "none" }));
      const title = el("title");
      title.textContent = describeTile(tile);
      g.append(title);
      tilesG.append(g);
      return g;
    });

    // The centre: the dice (or the countdown), what to look for, and a line of text.
    // Phone (a tall ellipse): the dice in a 2 x 2 grid; table (a circle): in a row.
    const centre = el("g", { class: "pl-centre" });
    const C = round
      ? { die: 150, gap: 18, cols: 4, top: L.cy - 225, caption: L.cy - 30, seekTitle: L.cy + 25,
          seek: L.cy + 115, seekScale: 1.35, seekLabel: L.cy + 225 }
      : { die: 190, gap: 22, cols: 2, top: L.cy - 375, caption: L.cy + 82, seekTitle: L.cy + 145,
          seek: L.cy + 245, seekScale: 1.65, seekLabel: L.cy + 372 };
    const rows = 4 / C.cols;
    const gridW = C.cols * C.die + (C.cols - 1) * C.gap;
    const gridH = rows * C.die + (rows - 1) * C.gap;
    ui.diceSlots = [0, 1, 2, 3].map((k) => {
      const x = L.cx - gridW / 2 + C.die / 2 + (k % C.cols) * (C.die + C.gap);
      const y = C.top + C.die / 2 + Math.floor(k / C.cols) * (C.die + C.gap);
      const slot = el("g", { class: "pl-die-slot", transform: `translate(${x} ${y}) scale(${C.die / 100})` });
      centre.append(slot);
      return slot;
    });
    ui.countText = svgText("", { class: "pl-count", x: L.cx, y: C.top + gridH / 2 + 80, "text-anchor": "middle" });
    ui.diceCaption = svgText("", { class: "pl-dice-caption", x: L.cx, y: C.caption, "text-anchor": "middle" });
    ui.seekTitle = svgText("", { class: "pl-seek-title", x: L.cx, y: C.seekTitle, "text-anchor": "middle" });
    ui.seekG = el("g", { class: "pl-seek", transform: `translate(${L.cx} ${C.seek}) scale(${C.seekScale})` });
    ui.seekLabel = svgText("", { class: "pl-seek-label", x: L.cx, y: C.seekLabel, "text-anchor": "middle" });
    centre.append(ui.countText, ui.diceCaption, ui.seekTitle, ui.seekG, ui.seekLabel);

    ui.trail = el("g", { class: "pl-trail" });
    ui.claimsG = el("g", { class: "pl-claims" });
    ui.cursor = el("circle", { class: "pl-cursor", r: L.tileR * 0.3, cx: -100, cy: -100 });
    svg.append(centre, tilesG, ui.trail, ui.cursor, ui.claimsG);

    svg.addEventListener("click", onTap);
    svg.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); onTap(ev); }
    });
    board.replaceChildren(svg);
    L.height = H;
    Object.assign(ui, { svg, layout: L, ring: view.ring, ringKey: JSON.stringify(view.ring) });
    st.shownRound = 0;
    st.diceKey = null;
  }

  // --- claiming ------------------------------------------------------------------------------
  function canClaim(view) {
    if (still || view.seat === null || view.seat === undefined) return false;
    if (!LIVE.has(view.phase)) return false;
    const legal = claimable();
    if (legal) return legal.size > 0 && st.pending === null;
    const me = view.players[view.seat];
    return !(me.claimed || view.my_claim || st.pending !== null);
  }

  // The tiles the state frame's `legal` lists as claimable now (docs/protocol.md), or null from
  // a server that does not send `legal`.
  function claimable() {
    const legal = st.frame && st.frame.legal;
    if (!Array.isArray(legal)) return null;
    return new Set(legal.filter((a) => a.type === "claim").map((a) => a.tile));
  }

  function onTap(ev) {
    const g = ev.target.closest && ev.target.closest(".pl-tile");
    const view = st.frame && st.frame.view;
    if (!g || !view || !canClaim(view)) return;
    const index = Number(g.dataset.index);
    const tile = ui.ring[index];
    const legal = claimable();
    if (tile.type === "lab" || tile.type === "vent" || (legal && !legal.has(index))) {
      flash(T(`never_answer.${tile.type}`));
      return;
    }
    st.pending = index;
    ctx.send({ type: "claim", tile: index });
    ctx.sound("tap");
    ctx.vibrate(25);
    clearTimeout(st.pendingTimer);
    // If no answer comes (the claim was refused or lost), the player may tap again.
    st.pendingTimer = setTimeout(() => { st.pending = null; if (st.frame) render(st.frame); }, 1500);
    render(st.frame);
  }

  let flashTimer = 0;
  function flash(text) {
    caption.textContent = text;
    caption.classList.add("flash");
    clearTimeout(flashTimer);
    flashTimer = setTimeout(() => caption.classList.remove("flash"), 1800);
  }

  // --- each frame ----------------------------------------------------------------------------
  function update(frame) {
    const view = frame.view;
    if (!view || !view.ring) return;
    const key = JSON.stringify(view.ring);
    if (key !== ui.ringKey || (st.frame && view.round < st.round)) build(view);
    const prevPhase = st.phase;
    const prevRound = st.round;
    st.frame = frame;
    st.phase = view.phase;
    st.round = view.round;
    if (view.round !== prevRound || !LIVE.has(view.phase) || view.my_claim) {
      if (view.round !== prevRound || !LIVE.has(view.phase)) st.pending = null;
      if (view.my_claim) st.pending = null;
    }
    // Countdown deadline from the frame's timer.
    const cd = frame.timers.find((t) => t.key.startsWith("countdown:"));
    // A paused match (nobody is connected) and a replay keep the countdown where it stands.
    const frozen = ctx.readOnly || Boolean(cd && cd.paused);
    if (view.phase === "countdown" && cd && !frozen) st.countdownEnd = performance.now() + cd.remaining_ms;
    st.frozenMs = frozen ? (cd ? cd.remaining_ms : 0) : null;

    // Sounds at the moments that matter (not when joining mid-round).
    if (prevPhase === "countdown" && LIVE.has(view.phase)) {
      ctx.sound("reveal");
      if (!ctx.table) ctx.vibrate(40);
    }
    const me = view.seat !== null && view.seat !== undefined ? view.players[view.seat] : null;
    if (me && me.locked && !st.wasLocked && LIVE.has(view.phase)) {
      ctx.sound("wrong");
      ctx.vibrate([90, 50, 90]);
    }
    st.wasLocked = !!(me && me.locked);

    const last = view.last_round;
    const ended = last && last.round === view.round && (view.phase === "result" || view.phase === "over");
    if (ended && st.shownRound !== last.round) {
      st.shownRound = last.round;
      const live = prevPhase !== null && LIVE.has(prevPhase);
      showResult(view, last, live);
    } else if (!ended && st.shownRound && view.phase === "countdown") {
      clearResult();
      st.shownRound = 0;
    }
    render(frame);
  }

  function render(frame) {
    const view = frame.view;
    root.dataset.phase = view.phase;
    root.dataset.round = view.round;
    const me = view.seat !== null && view.seat !== undefined ? view.players[view.seat] : null;
    const canClaimNow = canClaim(view);
    root.classList.toggle("can-claim", canClaimNow);
    root.classList.toggle("locked", !!(me && me.locked));
    root.classList.toggle("player", !!me && !ctx.table);
    const mine = view.my_claim ? view.my_claim.tile : st.pending;
    const legal = claimable();
    ui.tiles.forEach((g, i) => {
      g.classList.toggle("claimable", canClaimNow && legal !== null && legal.has(i));
      g.classList.toggle("mine", mine === i);
      g.classList.toggle("pending", st.pending === i && !view.my_claim);
    });
    renderDice(view);
    renderPlayers(view);
    renderSecrets(view);
    banner.textContent = bannerText(view, me);
    banner.className = `pl-banner ${bannerTone(view, me)}`;
  }

  // A revealed view during a search: the answer, and every claim so far (the players saw only
  // that someone had claimed). Once the round is decided the result shows them anyway.
  function renderSecrets(view) {
    const r = view.revealed;
    const searching = !!r && LIVE.has(view.phase);
    ui.tiles.forEach((g, i) => g.classList.toggle("secret-answer", searching && r.answer === i));
    if (searching) {
      ui.claimsG.replaceChildren();
      drawClaims(view, { claims: r.claims, winner: null });
    }
  }

  function renderDice(view) {
    const d = view.dice;
    const key = d ? `${view.round}:${JSON.stringify(d)}` : `none:${view.phase}`;
    if (key === st.diceKey) return;
    st.diceKey = key;
    const slots = ui.diceSlots;
    if (!d) {
      const faces = [blankDie(), blankDie(), blankDie(), blankDie()];
      slots.forEach((s, k) => s.replaceChildren(faces[k]));
      ui.svg.classList.toggle("rolling", view.phase === "countdown");
      ui.diceCaption.textContent = view.phase === "countdown" ? T("get_ready") : "";
      ui.seekG.replaceChildren();
      ui.seekTitle.textContent = "";
      ui.seekLabel.textContent = "";
      tickCountdown();
      return;
    }
    ui.svg.classList.remove("rolling");
    ui.countText.textContent = "";
    slots[0].replaceChildren(labDie(d.lab, d.arrow));
    slots[1].replaceChildren(colourDie(d.colour));
    slots[2].replaceChildren(shapeDie(d.shape));
    slots[3].replaceChildren(patternDie(d.pattern));
    ui.svg.classList.add("revealed");
    setTimeout(() => ui.svg && ui.svg.classList.remove("revealed"), 500);
    const turn = T(d.arrow === "white" ? "clockwise" : "counter_clockwise");
    ui.diceCaption.textContent = T("dice_caption", { lab: labName(d.lab), turn });
    fitInRing(ui.diceCaption);
    if (!st.shownRound) showSought(d, T("find"));
  }

  function showSought(kind, prefix) {
    ui.seekG.replaceChildren(amoeba(kind));
    ui.seekTitle.textContent = prefix;
    ui.seekLabel.textContent = describeKind(kind);
    fitInRing(ui.seekTitle);
    fitInRing(ui.seekLabel);
  }

  // A line in the ring's middle stays between the tiles at its height (it ran under them on
  // a phone and on the TV): its letters shrink until it fits, down to what still reads on the
  // screen (about 12 px); a line that would need less is set as two lines around the same middle.
  function fitInRing(text) {
    text.style.fontSize = "";
    const full = text.textContent;
    if (!full || !ui.layout) return;
    const L = ui.layout;
    const y = Number(text.getAttribute("y"));
    const size = parseFloat(getComputedStyle(text).fontSize);
    const room = (at) => {
      let half = L.cx;
      for (const p of L.points) {
        if (Math.abs(p.y - (at - size * 0.35)) < L.tileR + size * 0.6) half = Math.min(half, Math.abs(p.x - L.cx) - L.tileR);
      }
      return 2 * half - 24;
    };
    const ctm = ui.svg.getScreenCTM();
    const floor = ctm && ctm.a > 0 ? 10.6 / ctm.a : 0;
    const length = text.getComputedTextLength();
    const one = room(y);
    if (one <= 0 || length <= one) return;
    const cuts = [...full.matchAll(/ /g)].map((m) => m.index);
    if ((size * one) / length >= floor || !cuts.length) {
      text.style.fontSize = `${Math.max(floor, (size * one) / length)}px`;
      return;
    }
    const cut = cuts.reduce((a, b) => (Math.abs(b - full.length / 2) < Math.abs(a - full.length / 2) ? b : a));
    const lines = [full.slice(0, cut + 1), full.slice(cut + 1)];
    text.replaceChildren(...lines.map((line, i) => el("tspan", { x: text.getAttribute("x"), dy: i ? "1.05em" : "-0.5em" }, line)));
    const scale = Math.min(1, ...[...text.children].map((t, i) => room(y + (i ? 0.55 : -0.5) * size) / t.getComputedTextLength()));
    if (scale < 1) text.style.fontSize = `${Math.max(floor, size * scale)}px`;
  }

  // A big number during the countdown (the shell shows the timer bar too).
  function tickCountdown() {
    if (!st.frame || st.frame.view.phase !== "countdown" || !ui.countText) {
      if (ui.countText) ui.countText.textContent = "";
      st.lastCount = null;
      return;
    }
    const left = st.frozenMs !== null ? st.frozenMs : Math.max(0, st.countdownEnd - performance.now());
    const n = Math.ceil(left / 1000);
    const label = n > 0 ? String(n) : "!";
    if (ui.countText.textContent !== label) {
      ui.countText.textContent = label;
      if (st.lastCount !== null && n > 0 && !ctx.table) ctx.sound("tense");
      st.lastCount = n;
    }
  }
  const countdownTimer = setInterval(tickCountdown, 100);

  function renderPlayers(view) {
    const count = view.players.length;
    if (count !== ui.playerCount) {
      ui.playerCount = count;
      ui.players = view.players.map((p) => {
        const li = html("li", "pl-player");
        li.dataset.seat = p.seat;
        const name = html("span", "pl-name");
        const tokens = html("span", "pl-tokens");
        const state = html("span", "pl-state");
        li.append(name, tokens, state);
        playersBox.append(li);
        return { li, name, tokens, state, pips: -1 };
      });
      playersBox.replaceChildren(...ui.players.map((r) => r.li));
    }
    const last = view.last_round;
    const ended = last && last.round === view.round && !LIVE.has(view.phase);
    view.players.forEach((p, i) => {
      const row = ui.players[i];
      const nm = ctx.name(p.seat);
      if (row.name.textContent !== nm) row.name.textContent = nm;
      if (row.pips !== `${p.tokens}/${view.target_tokens}`) {
        row.pips = `${p.tokens}/${view.target_tokens}`;
        row.tokens.dataset.tokens = p.tokens;
        const said = html("span", "visually-hidden", T("token_count", { have: p.tokens, n: view.target_tokens }));
        const pips = Array.from({ length: view.target_tokens }, (_, k) => html("i", `pl-pip${k < p.tokens ? " on" : ""}`));
        pips.forEach((i) => i.setAttribute("aria-hidden", "true"));
        row.tokens.replaceChildren(said, ...pips);
      }
      const winner = ended && last.winner === p.seat;
      row.li.classList.toggle("me", p.seat === view.seat);
      row.li.classList.toggle("claimed", p.claimed && !p.locked);
      row.li.classList.toggle("locked", p.locked);
      row.li.classList.toggle("winner", winner || view.winner === p.seat);
      let s = "";
      if (view.winner === p.seat) s = T("state.wins");
      else if (winner) s = T("state.found");
      else if (LIVE.has(view.phase)) s = T(p.locked ? "state.wrong" : p.claimed ? "state.claimed" : "state.searching");
      if (row.state.textContent !== s) row.state.textContent = s;
    });
  }

  function bannerText(view, me) {
    const last = view.last_round;
    const r = view.round;
    switch (view.phase) {
      case "countdown":
        return T("banner.countdown", { round: r });
      case "search":
      case "settling":
        if (!me || ctx.table) return T(view.phase === "settling" ? "banner.settling" : "banner.find");
        if (me.locked) return T("banner.locked");
        if (view.my_claim || st.pending !== null) return T(view.phase === "settling" ? "banner.claimed_settling" : "banner.claimed");
        return T("banner.find_tap");
      case "result":
      case "over": {
        // Who won the match is the room's results' to say, once (docs/decisions/0061).
        if (view.phase === "over" && view.winner !== null) return T("banner.over");
        if (view.phase === "over") return T("banner.limit"); // the last round a match may have
        if (!last) return "";
        if (last.winner === null) return T(last.ended_by === "timeout" ? "banner.timeout" : "banner.all_wrong");
        if (last.winner === view.seat) return T("banner.you_found");
        return T("banner.found", { name: ctx.name(last.winner) });
      }
      default:
        return "";
    }
  }

  function bannerTone(view, me) {
    if (me && me.locked && LIVE.has(view.phase)) return "bad";
    const last = view.last_round;
    if ((view.phase === "result" || view.phase === "over") && last && last.round === view.round) {
      if (last.winner !== null && last.winner === view.seat) return "good";
      return last.winner === null ? "bad" : "news";
    }
    return "";
  }

  // --- after a round: claims and the amoeba's path ---------------------------------------------
  function clearResult() {
    clearInterval(st.animTimer);
    ui.trail.replaceChildren();
    ui.claimsG.replaceChildren();
    ui.cursor.setAttribute("cx", -100);
    ui.cursor.setAttribute("cy", -100);
    ui.tiles.forEach((g) => g.classList.remove("answer", "visited", "passed", "vent-in", "vent-out"));
    delete root.dataset.answer;
    delete root.dataset.path;
    caption.textContent = "";
  }

  function showResult(view, last, live) {
    clearResult();
    root.dataset.answer = last.answer;
    drawClaims(view, last);
    if (live) {
      const watching = ctx.table || view.seat === null || view.seat === undefined;
      if (watching) ctx.sound(last.winner === null ? "wrong" : "win");
      else if (last.winner === view.seat) { ctx.sound("win"); ctx.vibrate([60, 40, 120]); } else ctx.sound("wrong");
    }
    animatePath(last, live);
  }

  function drawClaims(view, last) {
    const L = ui.layout;
    const placed = []; // the label boxes drawn so far: a new one moves inwards until it is free
    const overlaps = (b) => placed.some((o) => Math.abs(o.x - b.x) * 2 < o.w + b.w + 8 && Math.abs(o.y - b.y) < 44);
    for (const c of last.claims) {
      const p = L.points[c.tile];
      const ms = typeof c.reaction_ms === "number" ? ` ${c.reaction_ms} ms` : "";
      const label = `${c.correct ? "✓" : "✗"} ${ctx.name(c.seat)}${ms}`;
      const w = label.length * 17 + 20;
      let dist = L.tileR + 26;
      let box;
      for (let tries = 0; tries < 12; tries++) {
        box = { x: p.x - p.nx * dist, y: p.y - p.ny * dist, w };
        // keep the label inside the drawing
        box.x = Math.min(Math.max(box.x, w / 2 + 4), 1000 - w / 2 - 4);
        if (!overlaps(box)) break;
        dist += 42;
      }
      placed.push(box);
      const { x, y } = box;
      const g = el("g", {
        class: `pl-claim ${c.correct ? "ok" : "bad"}${c.seat === last.winner ? " win" : ""}${c.seat === view.seat ? " me" : ""}`,
        "data-seat": c.seat, "data-tile": c.tile, transform: `translate(${x.toFixed(1)} ${y.toFixed(1)})`,
      });
      g.append(el("rect", { x: -w / 2, y: -19, width: w, height: 38, rx: 19 }));
      g.append(svgText(label, { y: 10, "text-anchor": "middle" }));
      ui.claimsG.append(g);
    }
  }

  function centreOf(i) {
    const p = ui.layout.points[i];
    return [p.x, p.y];
  }

  function segment(a, b, cls) {
    const [x1, y1] = centreOf(a);
    const [x2, y2] = centreOf(b);
    return el("line", { class: cls, x1, y1, x2, y2 });
  }

  function jump(a, b) {
    const L = ui.layout;
    const [x1, y1] = centreOf(a);
    const [x2, y2] = centreOf(b);
    const mx = (x1 + x2) / 2;
    const my = (y1 + y2) / 2;
    const cx = mx + (L.cx - mx) * 0.4;
    const cy = my + (L.cy - my) * 0.4;
    return el("path", { class: "pl-jump", d: `M ${x1} ${y1} Q ${cx} ${cy} ${x2} ${y2}` });
  }

  function moveCursor(i) {
    const [x, y] = centreOf(i);
    ui.cursor.setAttribute("cx", x);
    ui.cursor.setAttribute("cy", y);
  }

  function animatePath(last, live) {
    const path = last.path;
    const dice = last.dice;
    let at = null;
    let k = 0;
    // The whole path plays within the result pause (the frame's timer), so it always finishes
    // before the next round's countdown.
    const pause = st.frame && st.frame.timers.find((t) => t.key.startsWith("result:"));
    const budget = Math.min(4200, pause ? pause.remaining_ms - 800 : 4200);
    const stepMs = live && budget > 300 ? Math.max(16, Math.min(260, budget / path.length)) : 0;
    showSought(dice, T("looking_title"));
    root.dataset.path = "playing";
    const step = () => {
      if (k >= path.length) { clearInterval(st.animTimer); root.dataset.path = "done"; return; }
      const s = path[k++];
      const g = ui.tiles[s.index];
      if (at !== null) ui.trail.append(segment(at, s.index, "pl-step"));
      moveCursor(s.index);
      if (s.kind === "start") {
        caption.textContent = T("path.start", { lab: labName(dice.lab), dir: T(dice.arrow === "white" ? "path.clockwise" : "path.counter_clockwise") });
        at = s.index;
      } else if (s.kind === "vent") {
        g.classList.add("vent-in");
        ui.tiles[s.to].classList.add("vent-out");
        ui.trail.append(jump(s.index, s.to));
        caption.textContent = T("path.vent");
        at = s.to;
        moveCursor(s.to);
      } else if (s.kind === "mutation") {
        g.classList.add("passed");
        passBadge(s.passes, s.index);
        showSought(s.sought, T("mutated_title", { n: s.passes }));
        caption.textContent = T("path.mutation", { attribute: attributeName(s.attribute), kind: describeKind(s.sought) });
        at = s.index;
      } else if (s.kind === "answer") {
        g.classList.add("answer");
        if (s.reason === "fourth_pass") {
          passBadge(4, s.index);
          caption.textContent = T("path.fourth_pass", { attribute: attributeName(s.attribute) });
        } else {
          showSought(s.sought, T("found_title"));
          caption.textContent = T("path.found", { kind: t("game.panic_lab.amoeba", { kind: describeKind(s.sought) }) });
        }
        at = s.index;
      } else {
        g.classList.add("visited");
        at = s.index;
      }
    };
    clearInterval(st.animTimer);
    // No time to animate (a page opened on a finished round, or under 1.1 s of pause left):
    // every step at once, then the call that marks the path done (outside the loop: that last
    // call no longer moves `k`, so a loop waiting for it would never end).
    if (!stepMs) {
      while (k < path.length) step();
      step();
      return;
    }
    step();
    st.animTimer = setInterval(step, stepMs);
  }

  // The pass count on a mutation room, drawn over the ring (outside the tile's button, whose name
  // is its aria-label).
  function passBadge(n, index) {
    const old = ui.claimsG.querySelector(`.pl-pass[data-tile="${index}"]`);
    if (old) old.remove();
    const p = ui.layout.points[index];
    const k = ui.layout.tileR / 50;
    ui.claimsG.prepend(el("g", {
      class: "pl-pass", "data-tile": index,
      transform: `translate(${(p.x + 34 * k).toFixed(1)} ${(p.y - 34 * k).toFixed(1)}) scale(${k.toFixed(3)})`,
    }, el("circle", { r: 22 }), svgText(String(n), { y: 11, "text-anchor": "middle" })));
  }

  return {
    update,
    onEvent: story.onEvent,
    destroy() {
      clearInterval(countdownTimer);
      resize.disconnect();
      clearInterval(st.animTimer);
      clearTimeout(st.pendingTimer);
    },
  };
}
