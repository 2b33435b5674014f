// Every text of the room page in one place (English). A language switch can replace this table
// as a whole; functions take what varies (names, numbers) so plurals and word order stay here.

import { t } from "./i18n.js";

export const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

export const T = {
  // connection state (the pill in the room header)
  connecting: "Connecting…",
  connected: "Connected",
  watchingTable: "Table view",
  lost: "Connection lost, reconnecting…",
  retryIn: (s) => `Connection lost; reconnecting in ${s} s…`,
  restarting: "Server restarting, back in a moment",
  removed: "The host removed you from this room",
  roomClosed: "This room has closed",
  noRoom: "This room does not exist any more",
  tooManyConnections: "Too many connections from your network",
  throttled: "Too many attempts; wait a moment",
  disconnected: "Disconnected",
  chooseNickname: "Choose a nickname to join.",

  // watching
  watchingStarted: "You are watching: the match had already started when you joined. You can play in the next match if the host starts one with you.",
  watchingFull: "You are watching: every seat was taken when you joined.",
  watchingOther: "You are watching this match.",

  // members
  connectedDot: "connected",
  disconnectedDot: "disconnected",
  host: "host",
  watching: "watching",
  left: "left",
  you: "you",
  tableViews: (n) => plural(n, "table view", "table views"),
  hostTools: (name) => `Host tools for ${name}`,
  makeHost: "Make host",
  remove: "Remove",
  confirmRemove: (name) => `Remove ${name} from this room?`,

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
  invitePrompt: "Invite your friends",
  inviteHow: (code) => `Scan the code, open the link, or type ${code} in the lobby.`,
  copy: "Copy",
  copied: "Link copied",
  share: "Share",
  shareTitle: (game) => `Play ${game} with me`,
  joinLink: "Join link",
  tableLink: "Table view for a shared screen (TV)",
  waitingForHost: (host) => `Waiting for ${host} to start the match…`,
  waitingForHostAgain: (host) => `Waiting for ${host} to start another match…`,
  readyToStart: (n) => `${plural(n, "player", "players")} in the room. Start when everyone is here.`,
  needPlayers: (n, min, max) => `${plural(n, "player", "players")} in the room: this game needs ${min} to ${max}. Share the link!`,
  theHost: "the host",
  yes: "yes",
  no: "no",

  // results
  savingMatch: "Saving the match…",
  retryingSave: "The database is busy; the match is kept and will be saved shortly…",
  savedAs: (id) => `Saved as match ${id}`,
  winner: "winner",
  seatName: (seat) => `Seat ${seat + 1}`,

  // chat and log
  linkCopyFailed: "Select the link and copy it",
  mute: "Mute sounds",
  soundOn: "Sound is on",
  soundOff: "Sound is off",
  vibrationOn: "Vibration is on",
  vibrationOff: "Vibration is off",
};

// Event texts name seats as `{seat:N}` markers (the engines never paste nicknames). On a player's
// own page, their marker reads in the second person ("You take 2 penalty cards", "Your play is
// void"); other markers become nicknames. Returns plain text, to be set as text only.
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
