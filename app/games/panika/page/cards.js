// Panika's cards: original card art as inline SVG, the tap-count rules the page previews, and
// the site's small DOM helpers passed on.

import { t } from "/static/js/i18n.js";

export const SAFE_MAX = 20; // up to 20 the counter is safe; it bursts somewhere from 21 to 30

import { el, esc } from "/static/js/dom.js";

export { el, esc };

// --- card art ----------------------------------------------------------------------------------
const VEG = {
  tomato: `<svg viewBox="0 0 64 64" class="veg" aria-hidden="true">
    <circle cx="32" cy="37" r="21" fill="#e8352e"/>
    <ellipse cx="24" cy="30" rx="6" ry="4" fill="#ff8a80" opacity=".7"/>
    <path d="M32 18l4 -6l1 7l7 -2l-5 6l6 4l-8 0l-5 6l-5 -6l-8 0l6 -4l-5 -6l7 2l1 -7z" fill="#2e9e44"/>
    <rect x="31" y="7" width="3" height="8" rx="1.5" fill="#2e7d32"/></svg>`,
  broccoli: `<svg viewBox="0 0 64 64" class="veg" aria-hidden="true">
    <path d="M27 36h10l3 22h-16z" fill="#9ccc65"/>
    <path d="M30 40l-5 -6M34 40l5 -6" stroke="#7cb342" stroke-width="3" stroke-linecap="round"/>
    <circle cx="20" cy="28" r="10" fill="#2e7d32"/><circle cx="44" cy="28" r="10" fill="#2e7d32"/>
    <circle cx="32" cy="19" r="12" fill="#388e3c"/><circle cx="27" cy="31" r="9" fill="#43a047"/>
    <circle cx="38" cy="31" r="9" fill="#43a047"/><circle cx="28" cy="15" r="3" fill="#66bb6a"/>
    <circle cx="41" cy="24" r="2.5" fill="#66bb6a"/><circle cx="18" cy="25" r="2.5" fill="#66bb6a"/></svg>`,
  carrot: `<svg viewBox="0 0 64 64" class="veg" aria-hidden="true">
    <path d="M30 16q-8 -8 -6 -13q5 3 8 11q1 -9 6 -12q2 6 -3 14q7 -5 12 -3q-4 5 -13 5z" fill="#43a047"/>
    <path d="M22 20q10 -6 20 0l-9 42q-1 2 -2 0z" fill="#f57c00"/>
    <path d="M26 28h6M28 37h5M29 46h4M35 31h4" stroke="#bf5a00" stroke-width="2" stroke-linecap="round"/></svg>`,
};

const SPECIAL = {
  reverse: `<svg viewBox="0 0 64 64" class="icon" aria-hidden="true">
    <path d="M14 26a18 18 0 0 1 32 -8" fill="none" stroke="currentColor" stroke-width="6" stroke-linecap="round"/>
    <path d="M50 8l-2 16l-14 -6z" fill="currentColor"/>
    <path d="M50 38a18 18 0 0 1 -32 8" fill="none" stroke="currentColor" stroke-width="6" stroke-linecap="round"/>
    <path d="M14 56l2 -16l14 6z" fill="currentColor"/></svg>`,
  play_two: `<svg viewBox="0 0 64 64" class="icon" aria-hidden="true">
    <rect x="8" y="14" width="28" height="40" rx="5" fill="none" stroke="currentColor" stroke-width="4" transform="rotate(-12 22 34)"/>
    <rect x="26" y="10" width="28" height="40" rx="5" fill="currentColor" transform="rotate(8 40 30)"/>
    <text x="41" y="40" text-anchor="middle" font-size="24" font-weight="900" font-family="Arial Black, sans-serif" fill="#5b2a86" transform="rotate(8 40 30)">2</text></svg>`,
  tap: `<svg viewBox="0 0 64 64" class="icon" aria-hidden="true">
    <circle cx="32" cy="24" r="9" fill="currentColor"/>
    <path d="M32 8v-5M18 14l-4 -4M46 14l4 -4M14 26h-6M50 26h6" stroke="currentColor" stroke-width="4" stroke-linecap="round"/>
    <path d="M27 30v18q0 10 10 10h4q9 0 9 -10v-8q0 -4 -4 -4q-3 0 -4 2q0 -4 -4 -4q-3 0 -4 2v-6q0 -4 -3.5 -4q-3.5 0 -3.5 4z" fill="currentColor" opacity=".85"/></svg>`,
};

// Small inline icons (no emoji: not every phone or headless browser has an emoji font).
export const ICONS = {
  hand: '<svg class="ico" viewBox="0 0 20 20" aria-hidden="true"><rect x="2" y="4" width="9" height="13" rx="2" fill="currentColor" opacity=".55" transform="rotate(-12 6 10)"/><rect x="8" y="3" width="9" height="13" rx="2" fill="currentColor"/></svg>',
  pile: '<svg class="ico" viewBox="0 0 20 20" aria-hidden="true"><rect x="3" y="11" width="14" height="5" rx="1.5" fill="currentColor" opacity=".5"/><rect x="3" y="7" width="14" height="5" rx="1.5" fill="currentColor" opacity=".75"/><rect x="3" y="3" width="14" height="5" rx="1.5" fill="currentColor"/></svg>',
  trophy: '<svg class="ico trophy" viewBox="0 0 24 24" aria-hidden="true"><path d="M7 3h10v5a5 5 0 0 1-10 0z" fill="currentColor"/><path d="M7 5H3v2a4 4 0 0 0 4 4M17 5h4v2a4 4 0 0 1-4 4" fill="none" stroke="currentColor" stroke-width="2"/><path d="M11 13h2v4h3v3H8v-3h3z" fill="currentColor"/></svg>',
};

// Card names are the catalogs' (event.panika.card.<vegetable or special>, as in the events).
export function cardName(card) {
  if (card.kind === "number") return String(card.value);
  return t(`event.panika.card.${card.kind === "vegetable" ? card.vegetable : card.special}`, {},
    card.kind === "vegetable" ? card.vegetable : card.special);
}

// Taps for one card played alone (a special taps 0).
export function cardTaps(card) {
  if (card.kind === "number") return card.value;
  if (card.kind === "vegetable") return 5;
  return 0;
}

// The taps a play owes (docs/games/panika.md: numbers at face value, vegetables 5 each, two
// identical vegetables 0) and the special that acts (the last special played).
export function playEffect(cards) {
  const plain = cards.filter((c) => c.kind !== "special");
  const specials = cards.filter((c) => c.kind === "special");
  let taps = plain.reduce((sum, c) => sum + cardTaps(c), 0);
  if (plain.length === 2 && plain.every((c) => c.kind === "vegetable")
      && plain[0].vegetable === plain[1].vegetable) taps = 0;
  return { taps, special: specials.length ? specials[specials.length - 1] : null };
}

export function sameVegetable(a, b) {
  return a.kind === "vegetable" && b.kind === "vegetable" && a.vegetable === b.vegetable && a.id !== b.id;
}

// The inside of a card: the classes to put on it and its HTML.
export function cardFace(card) {
  const name = cardName(card);
  if (card.kind === "number") {
    return {
      cls: `card-number value-${card.value}`,
      html: `<span class="corner" aria-hidden="true">${card.value}</span><span class="big">${card.value}</span>`
        + `<span class="label">${esc(t("game.panika.taps", { n: card.value }))}</span>`,
      label: t("game.panika.number", { n: card.value }),
    };
  }
  if (card.kind === "vegetable") {
    return {
      cls: `card-veg veg-${card.vegetable}`,
      html: `<span class="corner" aria-hidden="true">5</span>${VEG[card.vegetable] || ""}<span class="label">${esc(name)}</span>`
        + `<span class="visually-hidden">${esc(t("game.panika.five_taps"))}</span>`,
      label: t("game.panika.veg_label", { name }),
    };
  }
  // The word on the card's face: its name, or a shorter word where the name is too long for a
  // phone's card ("Richtungswechsel"); the name itself is then read aloud instead.
  const face = t(`game.panika.face.${card.special}`, {}, name);
  const word = face === name ? `<span class="label">${esc(name)}</span>`
    : `<span class="label" aria-hidden="true">${esc(face)}</span><span class="visually-hidden">${esc(name)}</span>`;
  return {
    cls: `card-special special-${card.special}`,
    html: `${SPECIAL[card.special] || ""}${word}`
      + `<span class="visually-hidden">, ${esc(t(`game.panika.help.${card.special}`, {}, t("game.panika.special_card")))}</span>`,
    label: name,
  };
}

// A small face-up card (not a button, and not of class "card", which marks the hand), for the
// discard pile and the last play.
export function miniCard(card) {
  const face = cardFace(card);
  return el("span", {
    class: `pk-card mini ${face.cls}`, html: face.html, title: face.label, "data-card": card.id,
  });
}
