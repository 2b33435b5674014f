// The end of a match on every screen, for every game (docs/web.md, "The results";
// docs/decisions/0061): one headline naming the winner once (the ending's sentence from the
// game's catalog, `ending.<game>.<ending>`, in the page's language; "You win!" on the winner's own
// phone, large, celebrating), the places revealed one after another from the last to the first
// (at once under reduced motion, or when the page opens on a finished match), a sound, the
// evening's standings (wins and points per member over the room's matches), and the seed and its
// check folded away behind "Check this match" on the phones (never on the table view).
import { lang, t, wording } from "./i18n.js";
import { T, eventText, fill } from "./texts.js";

const STEP_MS = 650;
const plurals = new Intl.PluralRules(lang);
const $ = (id) => document.getElementById(id);

let reveal = { key: null, shown: 0, total: 0, timer: null, order: [] };
let sawPlaying = false;

function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

// The ending's sentence (app/i18n/endings.py builds the same one for the match pages): the
// wording for one winner, `.shared` for several, `.nobody` for none, filled from the details.
export function endingSentence(gameId, result, nameOf) {
  const winners = result.players.filter((p) => p.winner).map((p) => p.seat).sort((a, b) => a - b);
  const base = `ending.${gameId}.${result.ending}`;
  const variant = winners.length === 0 ? ".nobody" : winners.length === 1 ? "" : ".shared";
  let text = (variant && wording(base + variant)) || wording(base);
  if (!result.ending || text === undefined) {
    return winners.length ? T.winners(winners.map(nameOf)) : t("match.no_winners");
  }
  const params = { ...(result.details || {}), winners };
  if (typeof text === "object") text = text[plurals.select(Number(params.n ?? 0))] ?? text.other;
  return eventText(fill(gameId, String(text), params), nameOf, null);
}

// The headline: the sentence, or on a winner's own phone "You win!" ("You win, with Ann!").
function headline(ctx, r, nameOf) {
  const winners = r.players.filter((p) => p.winner);
  const mine = !ctx.table && ctx.seat !== null && winners.some((p) => p.seat === ctx.seat);
  if (!mine) return { text: endingSentence(ctx.game, r, nameOf), mine };
  const others = winners.filter((p) => p.seat !== ctx.seat).map((p) => p.nickname);
  const text = others.length
    ? t("room.you_all_win", { names: others.reduce((a, b) => t("event.and", { a, b })) })
    : t("room.you_win");
  return { text, mine };
}

function resultRow(ctx, p) {
  const tr = tableRow([p.rank, p.nickname, p.score]);
  if (p.winner) tr.className = "winner";
  if (p.bot) tr.children[1].prepend(ctx.botMark());
  return tr;
}

// A table row of one cell per value.
function tableRow(values) {
  const tr = document.createElement("tr");
  for (const v of values) {
    const td = document.createElement("td");
    td.textContent = v;
    tr.append(td);
  }
  return tr;
}

// The rows are in rank order (the winner on top); the last `shown` of them are visible.
function showRevealed(ctx, mine) {
  const rows = [...$("result-rows").children];
  rows.forEach((tr, i) => {
    const shown = i >= rows.length - reveal.shown;
    tr.classList.toggle("pending", !shown);
    tr.classList.toggle("shown", shown);
  });
  const done = reveal.shown >= reveal.total;
  $("result-rows").dataset.revealed = reveal.order.join(",");
  $("result").dataset.reveal = done ? "done" : "running";
  $("result-summary").classList.toggle("pending", !done);
  document.body.classList.toggle("celebrating", done && mine);
}

// Live (the page saw the match played): the sounds, and with motion the places one by one.
function startReveal(ctx, r, mine, live) {
  const animate = live && !reducedMotion();
  clearTimeout(reveal.timer);
  const ranked = [...r.players].sort((a, b) => a.rank - b.rank);
  reveal = { key: r.seed_hash || r.seed, shown: 0, total: ranked.length, timer: null, order: [] };
  const step = () => {
    reveal.shown += 1;
    reveal.order.push(ranked[ranked.length - reveal.shown].nickname);
    const done = reveal.shown >= reveal.total;
    if (animate) ctx.sound(done ? (mine ? "fanfare" : "win") : "tap");
    showRevealed(ctx, mine);
    if (!done) reveal.timer = setTimeout(step, STEP_MS);
  };
  if (animate) {
    showRevealed(ctx, mine);
    reveal.timer = setTimeout(step, STEP_MS);
  } else {
    while (reveal.shown < reveal.total) {
      reveal.shown += 1;
      reveal.order.push(ranked[ranked.length - reveal.shown].nickname);
    }
    if (live) ctx.sound(mine ? "fanfare" : "win");
    showRevealed(ctx, mine);
  }
}

function renderEvening(ctx) {
  const rows = ctx.room.standings || [];
  $("evening").hidden = rows.length === 0;
  $("evening-rows").replaceChildren(...rows.map((s) => {
    const tr = tableRow([s.nickname, s.wins, s.points]);
    tr.dataset.member = s.member;
    if (!ctx.table && s.member === ctx.me) tr.className = "me";
    if (s.bot) tr.children[0].prepend(ctx.botMark());
    return tr;
  }));
}

// ctx: { room, game, seat, me, table, sound(name), botMark() }.
export function renderResults(ctx) {
  const r = ctx.room.result;
  if (ctx.room.status === "playing") sawPlaying = true;
  $("result").hidden = !r;
  renderEvening(ctx);
  if (!r) {
    clearTimeout(reveal.timer);
    reveal = { key: null, shown: 0, total: 0, timer: null, order: [] };
    document.body.classList.remove("celebrating");
    return;
  }
  const names = new Map(r.players.map((p) => [p.seat, p.nickname]));
  const nameOf = (seat) => names.get(seat) ?? T.seatName(seat);
  const { text, mine } = headline(ctx, r, nameOf);
  const head = $("result-summary");
  head.textContent = text;
  head.classList.toggle("mine", mine);
  $("result-rows").replaceChildren(...[...r.players].sort((a, b) => a.rank - b.rank)
    .map((p) => resultRow(ctx, p)));
  if (reveal.key !== (r.seed_hash || r.seed)) {
    startReveal(ctx, r, mine, sawPlaying);
  } else {
    showRevealed(ctx, mine);
  }
  $("result-check").hidden = ctx.table;
  $("result-seed").textContent = r.seed;
  $("seed-hash").textContent = r.seed_hash || ctx.room.seed_hash || "";
}
