// The lobby: create a room (the creator becomes its host), join with a code, see public rooms.
import { saveNickname, savedNickname, saveToken } from "./protocol.js";
import { t } from "./i18n.js";

const dialog = document.getElementById("create-dialog");
const form = document.getElementById("create-form");
const nickname = document.getElementById("create-nickname");
const errorBox = document.getElementById("create-error");
let chosenGame = null;
let formKey = null;

// One room per create, however often the form is sent (a double click, a second tap on a slow
// phone, a retry): each opening of the form makes a key, every submit of it sends that key,
// and the server answers one key with one room (docs/decisions/0057). 16 random bytes as
// base64url (crypto.getRandomValues works on a plain-http address, randomUUID does not).
function newFormKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

for (const button of document.querySelectorAll(".create-room")) {
  button.addEventListener("click", () => {
    chosenGame = button.dataset.game;
    document.getElementById("create-title").textContent = button.dataset.title;
    nickname.value = savedNickname();
    errorBox.hidden = true;
    formKey = newFormKey();
    dialog.showModal();
    nickname.focus();
  });
}

document.getElementById("create-cancel").addEventListener("click", () => dialog.close());

form.addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const name = nickname.value.trim();
  if (!name) return;
  saveNickname(name);
  const body = { game: chosenGame, nickname: name, public: document.getElementById("create-public").checked };
  const res = await fetch("/api/rooms", {
    method: "POST",
    headers: { "Content-Type": "application/json", "Idempotency-Key": formKey },
    body: JSON.stringify(body),
  }).catch(() => null);
  if (!res) {  // no answer: the same key may be sent again, and still makes one room
    errorBox.textContent = t("lobby.create_failed");
    errorBox.hidden = false;
    return;
  }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    errorBox.textContent = typeof data.detail === "string" ? data.detail : t("lobby.create_failed");
    errorBox.hidden = false;
    return;
  }
  saveToken(data.code, data.token);
  location.href = `/r/${data.code}`;
});

const joinCode = document.getElementById("join-code");
joinCode.addEventListener("input", () => joinCode.setCustomValidity(""));
joinCode.addEventListener("invalid", () => joinCode.setCustomValidity(t("lobby.code_invalid")));
document.getElementById("join-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const code = joinCode.value.trim().toUpperCase();
  if (/^[A-Z]{4}$/.test(code)) location.href = `/r/${code}`;
});

const list = document.getElementById("public-rooms");
async function refreshRooms() {
  const res = await fetch("/api/rooms").catch(() => null);
  if (!res || !res.ok) return;
  const rooms = await res.json();
  list.replaceChildren(...(rooms.length ? rooms.map((r) => {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = `/r/${r.code}`;
    a.textContent = t("lobby.room_line", {
      game: r.title, code: r.code, host: r.host ?? "", players: r.players, max: r.max_players,
    });
    li.append(a);
    return li;
  }) : [Object.assign(document.createElement("li"), { className: "empty", textContent: t("lobby.no_rooms") })]));
}
setInterval(refreshRooms, 5000);

// The buttons above work from now on (a click before this module ran did nothing): tests wait
// for this mark instead of clicking into a page that is still loading.
document.body.dataset.ready = "lobby";
