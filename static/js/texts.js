// Every text of the room page, from the page language's catalog (app/i18n/<lang>.json, keys
// `room.*`, loaded by i18n.js). Functions take what varies (names, numbers) so plurals and word
// order stay in the catalogs. Game events: `eventLine` below.
import { lang, t, wording } from "./i18n.js";

export const plural = (n, key) => t(key, { n });

export const T = {
  // connection state (the pill in the room header)
  connecting: t("room.connecting"),
  connected: t("room.connected"),
  watchingTable: t("room.watching_table"),
  lost: t("room.lost"),
  retryIn: (s) => t("room.retry_in", { s }),
  restarting: t("room.restarting"),
  removed: t("room.removed"),
  roomClosed: t("room.room_closed"),
  takenOver: t("room.taken_over"),
  noRoom: t("room.no_room"),
  tooManyConnections: t("room.too_many_connections"),
  throttled: t("room.throttled"),
  disconnected: t("room.disconnected"),
  chooseNickname: t("room.choose_nickname"),
  renamed: (wanted, name) => t("room.renamed", { wanted, name }),

  // watching
  watchingStarted: t("room.watching_started"),
  watchingFull: t("room.watching_full"),
  watchingOther: t("room.watching_other"),

  // members
  connectedDot: t("room.connected_dot"),
  disconnectedDot: t("room.disconnected_dot"),
  host: t("room.host"),
  watching: t("room.watching"),
  left: t("room.left"),
  away: (name) => t("room.away", { name }),
  awayBotIn: (name, s) => t("room.away_bot_in", { name, s }),
  awayBotNow: (name) => t("room.away_bot_now", { name }),
  awayTag: t("room.away_tag"),
  back: (name) => t("room.back", { name }),
  you: t("room.you"),
  tableViews: (n) => t("room.table_views", { n }),
  hostTools: (name) => t("room.host_tools", { name }),
  makeHost: t("room.make_host"),
  remove: t("room.remove"),
  confirmRemove: (name) => t("room.confirm_remove", { name }),

  // computer players (docs/bots.md, "In a room"): from the catalogs' `room.bots.*` keys
  botsTitle: t("room.bots.title", {}, "Computer players"),
  addBot: t("room.bots.add", {}, "Add bot"),
  botDifficulty: t("room.bots.difficulty", {}, "Difficulty"),
  botLevels: {
    easy: t("room.bots.easy", {}, "easy"),
    normal: t("room.bots.normal", {}, "normal"),
    hard: t("room.bots.hard", {}, "hard"),
  },
  botTag: (level) => t("room.bots.tag", { level }, `bot, ${level}`),
  botMark: t("room.bots.mark", {}, "computer player"),
  playedByBot: t("room.bots.played_by_bot", {}, "played by a bot"),
  botsFull: t("room.bots.full", {}, "Every seat is taken."),
  takeoverSeconds: t("room.bots.takeover", {}, "A bot plays for a player disconnected this many seconds (0: never)"),

  // waiting room and invite
  invitePrompt: t("room.invite_prompt"),
  inviteHow: (code) => t("room.invite_how", { code }),
  copy: t("room.copy"),
  copied: t("room.copied"),
  share: t("room.share"),
  shareTitle: (game) => t("room.share_title", { game }),
  joinLink: t("room.join_link"),
  tableLink: t("room.table_link"),
  waitingForHost: (host) => t("room.waiting_for_host", { host }),
  youreIn: (name, host) => t("room.youre_in", { name, host }),
  waitingForHostAgain: (host) => t("room.waiting_for_host_again", { host }),
  readyToStart: (n) => t("room.ready_to_start", { n }),
  needPlayers: (n, min, max) => t("room.need_players", { n, min, max }),
  theHost: t("room.the_host"),
  yes: t("room.yes"),
  no: t("room.no"),

  // results
  savingMatch: t("room.saving_match"),
  savingMoves: t("room.saving_moves"),
  paused: t("room.paused"),
  retryingSave: t("room.retrying_save"),
  savedAs: (id) => t("room.saved_as", { id }),
  winners: (names) => t(names.length === 1 ? "room.wins" : "room.win", {
    names: names.reduce((a, b) => t("event.and", { a, b })),
  }),
  seatName: (seat) => t("room.seat_name", { n: seat + 1 }),

  // chat and log
  linkCopyFailed: t("room.link_copy_failed"),
  mute: t("room.mute"),
  soundOn: t("room.sound_on"),
  soundOff: t("room.sound_off"),
  vibrationOn: t("room.vibration_on"),
  vibrationOff: t("room.vibration_off"),
};

// Event texts name seats as `{seat:N}` markers (the engines never paste nicknames). On a player's
// own English page, their marker reads in the second person ("You take 2 penalty cards", "Your
// play is void"); other markers become nicknames. Returns plain text, to be set as text only.
const THIRD_TO_SECOND = {
  has: "have", is: "are", was: "were", takes: "take", calls: "call", taps: "tap", bursts: "burst",
  wins: "win", begins: "begin", plays: "play", draws: "draw", claims: "claim", finds: "find",
  gets: "get", scores: "score", gives: "give", loses: "lose", needs: "need", goes: "go",
  tapped: "tapped", does: "do", misses: "miss", reaches: "reach", leaves: "leave",
};

export function eventText(text, nameOf, mySeat) {
  let out = String(text);
  if (mySeat !== null && mySeat !== undefined) {
    const me = `\\{seat:${mySeat}\\}`;
    const cap = (word, at, whole) => {
      const before = whole.slice(0, at).trimEnd();
      return before === "" || /[.!?]$/.test(before) ? word : word.toLowerCase();
    };
    out = out.replace(new RegExp(`${me}'s`, "g"), (m, at, whole) => cap("Your", at, whole));
    out = out.replace(new RegExp(`${me} (\\w+)`, "g"), (m, verb, at, whole) => (
      `${cap("You", at, whole)} ${THIRD_TO_SECOND[verb] || verb}`));
    out = out.replace(new RegExp(me, "g"), (m, at, whole) => cap("You", at, whole));
    if (/^You\b|^Your\b/.test(out)) out = out.replace(/ for them\b/, " for you");
  }
  return out.replace(/\{seat:(\d+)\}/g, (_, n) => nameOf(Number(n)));
}

// A game event in the page's language (docs/architecture.md, "Languages"; the same rules as
// app/i18n/events.py): the wording `event.<game>.<data.msg or kind>` (its `.you` form when the
// event is about the reader's own seat), placeholders filled from the event's data (`{n}`,
// `{seat:name}`, `{seats:name}`, `{term:name}`, `{term:ns:name}`; the event's seat is `seat`),
// else the engine's English text.
const PLACEHOLDER = /\{(?:(seat|seats|term):)?(?:(\w+):)?([\w.]+)\}/g;
const plurals = new Intl.PluralRules(lang);

function lookup(params, path) {
  let value = params;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object" || !(part in value)) return undefined;
    value = value[part];
  }
  return value;
}

function joinSeats(seats) {
  const markers = seats.map((s) => `{seat:${Number(s)}}`);
  if (markers.length < 2) return markers.join("");
  return t("event.and", { a: markers.slice(0, -1).join(", "), b: markers[markers.length - 1] });
}

export function fill(game, text, params) {
  return text.replace(PLACEHOLDER, (whole, form, ns, path) => {
    const value = lookup(params, path);
    if (value === undefined || value === null) return whole;
    if (form === "seat") return `{seat:${Number(value)}}`;
    if (form === "seats") return joinSeats(Array.isArray(value) ? value : []);
    if (form === "term") return t(`event.${game}.${ns || path.split(".").pop()}.${value}`, {}, String(value));
    return String(value);
  });
}

// The room's own events (a new match begins) are `event.room.<kind>`, with the game's title.
export function eventLine(event, game, nameOf, mySeat, title = game) {
  const data = event.data || {};
  let key = `event.${game}.${data.msg || event.kind}`;
  if (wording(key) === undefined && wording(`event.room.${event.kind}`) !== undefined) key = `event.room.${event.kind}`;
  const mine = mySeat !== null && mySeat !== undefined && event.seat === mySeat;
  let text = (mine && wording(`${key}.you`)) || wording(key);
  if (text === undefined) return eventText(event.text, nameOf, mySeat);
  const params = { seat: event.seat, game: title, ...data };
  if (typeof text === "object") text = text[plurals.select(Number(params.n ?? 0))] ?? text.other;
  const filled = fill(game, String(text), params);
  // English turns the reader's remaining markers into "you"; other languages name them.
  return eventText(filled, nameOf, lang === "en" ? mySeat : null);
}
