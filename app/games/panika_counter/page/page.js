// The stand-alone Panika counter: a huge tap area shared by every phone at the table, red "back 1",
// green "reset", and a burst screen. One frame per tap; the server counts every tap once.
// View: {counter, phase: "counting"|"burst", round, last_burst, taps: [per seat], you}; a revealed
// view (a finished match watched again, ctx.readOnly: drawn as the table view draws, with no
// buttons) adds {revealed: {burst_at}}, this round's secret number.
import { el, esc } from "/static/js/dom.js";
import { feedback, replay, scrollGameIntoView } from "/static/js/game_page.js";
import { t } from "/static/js/i18n.js";
import { narration } from "/static/js/narration.js";

const T = (key, params) => t(`game.panika_counter.${key}`, params);

const SAFE_MAX = 20; // up to 20 the counter is safe; it bursts somewhere from 21 to 30
const PENDING_RESET_MS = 2500;

// The room gives this game the whole screen during a match (static/js/room.js, setPlaying).
export const layout = "fill";

export function mount(container, ctx) {
  const table = !!ctx.table || !!ctx.readOnly;
  const fx = feedback(ctx);
  let view = null;
  let version = -1;
  let pending = 0; // my taps sent and not yet counted in a state frame
  let pendingTimer = null;

  const root = el("div", { class: `pcounter${table ? " pcounter--table" : ""}` });
  const roundEl = el("span", { class: "pc-round", id: "counter-round" });
  const lastEl = el("span", { class: "pc-last" });
  const secretEl = el("span", { class: "pc-secret", id: "counter-secret", hidden: true });
  const info = el("div", { class: "pc-info" }, roundEl, lastEl, secretEl);
  // "New counter": ends this counter for everyone, which reveals its seed (the burst numbers can
  // then be checked on the match page), and starts a fresh one (docs/games/ has its rules).
  if (!table) {
    info.append(el("button", {
      type: "button", class: "btn ghost pc-new", id: "counter-new", text: T("new"),
      onclick: () => {
        if (view && seated() && confirm(T("confirm_new"))) {
          ctx.send({ type: "new_counter" });
        }
      },
    }));
  }
  const valueEl = el("span", { class: "pc-value", id: "counter-value", text: "0" });
  const hintEl = el("span", { class: "pc-hint", text: table ? "" : T("tap") });
  const floatEl = el("span", { class: "pc-float", "aria-hidden": "true" });
  const tapBtn = table
    ? el("div", { class: "pc-tap", id: "counter-tap" }, valueEl, hintEl)
    : el("button", {
      type: "button", class: "pc-tap", id: "counter-tap", onclick: onTap,
    }, el("span", { class: "visually-hidden", text: T("counter") }), valueEl, hintEl,
    el("span", { class: "visually-hidden", text: T("plus_one") }), floatEl);
  root.append(info, tapBtn);

  let backBtn = null;
  let resetBtn = null;
  if (!table) {
    backBtn = el("button", {
      type: "button", class: "pc-btn pc-back", id: "counter-back",
      html: `<span class="pc-sym" aria-hidden="true">−1</span><span class="pc-lbl">${esc(T("back"))}</span><span class="visually-hidden">${esc(T("back_one"))}</span>`, onclick: () => send("back"),
    });
    resetBtn = el("button", {
      type: "button", class: "pc-btn pc-reset", id: "counter-reset",
      html: `<span class="pc-sym" aria-hidden="true">0</span><span class="pc-lbl">${esc(T("reset"))}</span><span class="visually-hidden">${esc(T("to_zero"))}</span>`, onclick: () => send("reset"),
    });
    root.append(el("div", { class: "pc-buttons" }, backBtn, resetBtn));
  }
  const tapsEl = el("p", { class: "pc-taps", id: "counter-taps" });
  // Who burst or reset the counter, told to the room: the shared narration line (taps are no news).
  const story = narration(ctx, { id: "counter-narration" });
  root.append(tapsEl, story.element);

  const burstNumber = el("div", { class: "pc-burst-number", id: "counter-burst-number" });
  const burstWho = el("div", { class: "pc-burst-who" });
  const nextBtn = table ? null : el("button", {
    type: "button", class: "btn big pc-next", id: "counter-next", text: T("next_round"),
    onclick: () => send("new_round"),
  });
  const burstEl = el("div", { class: "pc-burst", id: "counter-burst", hidden: true, role: "alert" },
    el("div", { class: "pc-burst-inner" },
      el("div", { class: "pc-burst-word", text: T("burst") }), burstNumber, burstWho,
      el("div", { class: "pc-burst-note", text: T("next_soon") }), nextBtn));
  root.append(burstEl);
  container.replaceChildren(root);

  const seated = () => ctx.seat !== null && ctx.seat !== undefined && !table;
  const you = (seat) => (seat === ctx.seat ? T("you") : ctx.name(seat));

  function send(type) {
    if (!view || !seated()) return;
    if (type === "new_round" ? view.phase !== "burst" : view.phase !== "counting") return;
    ctx.send({ type });
    fx.sound(type === "reset" ? "reveal" : "tap");
    fx.vibrate(15);
  }

  function onTap() {
    if (!view || !seated() || view.phase !== "counting") return;
    ctx.send({ type: "tap" });
    pending += 1;
    clearTimeout(pendingTimer);
    pendingTimer = setTimeout(() => { pending = 0; drawPending(); }, PENDING_RESET_MS);
    fx.sound(view.counter + pending > SAFE_MAX ? "tense" : "tap");
    fx.vibrate(10);
    const plus = el("span", { class: "pc-plus", text: "+1" });
    plus.style.left = `${30 + Math.random() * 40}%`;
    floatEl.append(plus);
    setTimeout(() => plus.remove(), 700);
    replay(tapBtn, "pressed");
    drawPending();
  }

  function drawPending() {
    tapBtn.dataset.pending = String(pending);
  }

  function draw() {
    roundEl.textContent = T("round", { round: view.round });
    const b = view.last_burst;
    lastEl.textContent = b && b.round !== view.round ? T("last_burst", { name: you(b.seat), number: b.number }) : "";
    secretEl.hidden = !view.revealed;
    secretEl.textContent = view.revealed ? t("replay.bursts_at", { number: view.revealed.burst_at }) : "";
    valueEl.textContent = String(view.counter);
    const counting = view.phase === "counting";
    tapBtn.classList.toggle("tense", view.counter > SAFE_MAX);
    tapBtn.classList.toggle("danger", view.counter > 25);
    if (!table) {
      tapBtn.disabled = !counting || !seated();
      backBtn.disabled = !counting || !seated() || view.counter === 0;
      resetBtn.disabled = !counting || !seated() || view.counter === 0;
      hintEl.textContent = !seated() ? T("watching") : T(view.counter > SAFE_MAX ? "careful" : "tap");
    }
    const names = view.taps
      .map((n, seat) => ({ n, seat }))
      .filter(({ n, seat }) => n > 0 || seat === ctx.seat)
      .map(({ n, seat }) => `<span class="pc-tapper${seat === ctx.seat ? " me" : ""}">${esc(you(seat))} <b>${n}</b></span>`);
    tapsEl.innerHTML = names.length ? esc(T("taps_round")).replace("{names}", names.join(" ")) : "";
    if (view.phase === "burst" && b) {
      burstNumber.textContent = String(b.number);
      burstWho.textContent = b.seat === ctx.seat ? T("you_burst") : T("burst_by", { name: ctx.name(b.seat) });
      burstEl.hidden = false;
    } else {
      burstEl.hidden = true;
      burstEl.classList.remove("boom");
    }
    drawPending();
  }

  function update(frame) {
    if (!frame || !frame.view) return;
    if (!view) scrollGameIntoView(table);
    const prev = frame.version !== version ? view : null;
    version = frame.version;
    view = frame.view;
    root.dataset.phase = view.phase;
    const mine = ctx.seat !== null && ctx.seat !== undefined ? view.taps[ctx.seat] || 0 : 0;
    if (prev && prev.round === view.round && ctx.seat !== null && ctx.seat !== undefined) {
      pending = Math.max(0, pending - Math.max(0, mine - (prev.taps[ctx.seat] || 0)));
    }
    if (view.phase !== "counting" || (prev && prev.round !== view.round)) pending = 0;
    if (!pending) clearTimeout(pendingTimer);
    draw();
    if (!prev) return;
    if (view.phase === "burst" && prev.phase !== "burst") {
      replay(burstEl, "boom");
      fx.sound("burst");
      fx.vibrate([200, 100, 300]);
    } else if (view.counter > prev.counter) {
      replay(valueEl, "bump");
      if (view.counter > SAFE_MAX) {
        replay(tapBtn, "shake");
        if (mine === (prev.taps[ctx.seat] || 0)) fx.sound("tense"); // someone else's tap
      }
    } else if (view.counter < prev.counter && view.round === prev.round) {
      replay(valueEl, "drop");
    }
  }

  return { update, onEvent: story.onEvent, destroy() { container.replaceChildren(); } };
}
