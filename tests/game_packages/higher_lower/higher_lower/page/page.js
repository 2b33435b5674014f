// Higher or Lower's page: the card face up, the cards left, each player's lives and points, and
// two buttons, enabled only when the frame's `legal` list offers them. A finished match's page
// mounts it with ctx.readOnly: the same drawing, no buttons, and the deck's order shown.
import { el, setText } from "/static/js/dom.js";
import { t } from "/static/js/i18n.js";
import { feedback, replay } from "/static/js/game_page.js";
import { narration } from "/static/js/narration.js";

const T = (key, params) => t(`game.higher_lower.${key}`, params);

// The room gives this game the whole screen during a match (static/js/room.js, setPlaying).
export const layout = "fill";

export function mount(container, ctx) {
  const watching = !!ctx.table || !!ctx.readOnly;
  const fx = feedback(ctx);
  let legal = [];

  const card = el("div", { class: "hl-card", id: "hl-card", "aria-live": "polite" });
  const deck = el("p", { class: "hl-deck", id: "hl-deck" });
  const status = el("p", { class: "hl-status", id: "hl-status", role: "status" });
  const story = narration(ctx, { id: "hl-narration" }); // who guessed what, the shared line
  const players = el("ul", { class: "hl-players", id: "hl-players", "aria-label": T("points", { n: 2 }) });
  const next = el("p", { class: "hl-next", id: "hl-next", hidden: true });
  const button = (guess) => el("button", {
    type: "button", class: `btn big hl-${guess}`, id: `hl-${guess}`, text: T(guess),
    disabled: true, onclick: () => send(guess),
  });
  const buttons = watching ? null : el("div", { class: "hl-buttons" }, button("higher"), button("lower"));
  const root = el("div", { class: `hl-root${watching ? " hl-root--table" : ""}` },
    el("div", { class: "hl-middle" }, el("p", { class: "hl-label", text: T("current") }), card, deck, next),
    story.element, status, buttons, players);
  container.append(root);

  function send(guess) {
    const action = legal.find((a) => a.type === "guess" && a.guess === guess);
    if (!action) return;
    legal = [];
    for (const b of root.querySelectorAll(".hl-buttons button")) b.disabled = true;
    fx.vibrate(10);
    ctx.send(action);
  }

  function update(frame) {
    if (!frame || !frame.view) return;
    const view = frame.view;
    legal = ctx.readOnly ? [] : frame.legal || [];
    if (card.textContent !== String(view.current)) {
      setText(card, String(view.current));
      replay(card, "flip");
    }
    setText(deck, T("deck", { n: view.deck }));
    const last = view.last;
    card.dataset.result = last ? (last.right ? "right" : "wrong") : "";
    const revealed = view.revealed && view.revealed.deck;
    next.hidden = !revealed || !revealed.length;
    if (revealed && revealed.length) setText(next, `${T("next")}: ${revealed[revealed.length - 1]}`);
    if (view.turn === null) setText(status, T("over"));
    else if (view.turn === ctx.seat && !watching) setText(status, T("your_turn"));
    else setText(status, T("turn_of", { name: ctx.name(view.turn) }));
    if (buttons) {
      for (const b of buttons.querySelectorAll("button")) {
        const guess = b.id.replace("hl-", "");
        b.disabled = !legal.some((a) => a.type === "guess" && a.guess === guess);
      }
    }
    players.replaceChildren(...view.lives.map((lives, seat) => el("li", {
      class: `hl-player${seat === view.turn ? " turn" : ""}${lives ? "" : " out"}`,
    }, el("span", { class: "hl-name", text: ctx.name(seat) }),
    el("span", { class: "hl-points", text: T("points", { n: view.points[seat] }) }),
    el("span", { class: "hl-lives", text: lives ? T("lives", { n: lives }) : T("out") }))));
  }

  function onEvent(event) {
    story.onEvent(event);
    if (event.kind === "guess") fx.sound(event.data && event.data.msg === "right" ? "tap" : "tense");
  }

  return {
    update,
    onEvent,
    destroy() { root.remove(); },
  };
}
