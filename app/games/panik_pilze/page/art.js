// Panik Pilze's original art: the five mushrooms, each with its own colour AND its own
// silhouette (never colour alone), and the two special cards' icons; plus small DOM helpers.
// Names as the rulebook's game names them (docs/games/panik-pilze.md, "The mushrooms").

import { t } from "/static/js/i18n.js";

export const MUSHROOMS = ["schlaubi", "chef", "knuddel", "panik", "gifti"];

export const NAMES = {
  schlaubi: "Schlaubi", chef: "Chef", knuddel: "Knuddel", panik: "Panik", gifti: "Gifti",
};

// Silhouettes: Schlaubi a tall pointed cap, Chef a flat wide cap with a crown of three points,
// Knuddel a round puffball, Panik a dome with white dots, Gifti a drooping jagged cap.
const SHAPES = {
  schlaubi: `<path d="M32 4 L48 40 Q32 45 16 40 Z" fill="#2f7fe0"/>
    <path d="M26 40h12v16q-6 3-12 0z" fill="#f3e3c3"/>
    <path d="M32 12 L37 26 L27 26 Z" fill="#9cc8ff" opacity=".55"/>`,
  chef: `<path d="M6 34 Q6 24 16 22 L20 12 L26 20 L32 8 L38 20 L44 12 L48 22 Q58 24 58 34 Z" fill="#e8a400"/>
    <rect x="6" y="32" width="52" height="5" rx="2" fill="#b87d00"/>
    <path d="M25 37h14v18q-7 3-14 0z" fill="#f3e3c3"/>`,
  knuddel: `<circle cx="32" cy="30" r="20" fill="#2fa866"/>
    <circle cx="25" cy="24" r="4" fill="#8fe0b3"/><circle cx="38" cy="34" r="3" fill="#8fe0b3"/>
    <circle cx="36" cy="21" r="2" fill="#8fe0b3"/>
    <path d="M27 48h10v9q-5 2-10 0z" fill="#f3e3c3"/>`,
  panik: `<path d="M8 36 Q8 10 32 10 Q56 10 56 36 Z" fill="#e23b3b"/>
    <circle cx="22" cy="24" r="4" fill="#fff"/><circle cx="36" cy="18" r="3.5" fill="#fff"/>
    <circle cx="45" cy="29" r="3" fill="#fff"/><circle cx="30" cy="31" r="2.5" fill="#fff"/>
    <path d="M25 36h14v20q-7 3-14 0z" fill="#f3e3c3"/>`,
  gifti: `<path d="M6 30 Q10 8 32 8 Q54 8 58 30 L52 26 L47 34 L41 27 L36 36 L32 28 L28 36 L23 27 L17 34 L12 26 Z" fill="#8a3ffc"/>
    <path d="M20 18 l4 4 M24 18 l-4 4 M40 16 l4 4 M44 16 l-4 4" stroke="#e2ccff" stroke-width="2" stroke-linecap="round"/>
    <path d="M28 32h8l2 24q-6 3-12 0z" fill="#d9d0b8"/>`,
};

export function mushroomSvg(type, cls = "pp-shroom") {
  return `<svg viewBox="0 0 64 64" class="${cls} pp-shape-${type}" aria-hidden="true" focusable="false">${SHAPES[type]}</svg>`;
}

export const ICONS = {
  party: `<svg viewBox="0 0 64 64" class="pp-icon" aria-hidden="true" focusable="false">
    <path d="M10 56 L24 18 L46 40 Z" fill="#ffcc33"/><path d="M16 40 L30 54 M20 30 L38 48" stroke="#e23b3b" stroke-width="4"/>
    <circle cx="44" cy="12" r="4" fill="#2f7fe0"/><circle cx="54" cy="26" r="3" fill="#2fa866"/>
    <circle cx="34" cy="8" r="2.5" fill="#8a3ffc"/><path d="M48 18 q6 -2 8 -8" stroke="#ff8ad8" stroke-width="3" fill="none"/></svg>`,
  steal: `<svg viewBox="0 0 64 64" class="pp-icon" aria-hidden="true" focusable="false">
    <path d="M14 40 V20 q0 -4 4 -4 t4 4 V32 V12 q0 -4 4 -4 t4 4 V30 V10 q0 -4 4 -4 t4 4 V30 V16 q0 -4 4 -4 t4 4 V42 q0 14 -16 16 q-12 0 -18 -10 L6 34 q-2 -4 2 -6 t6 4 Z" fill="#f3c9a4" stroke="#6b4a2f" stroke-width="2"/></svg>`,
  swap: `<svg viewBox="0 0 24 24" class="pp-ico" aria-hidden="true" focusable="false"><path d="M4 8h13l-3-3M20 16H7l3 3" stroke="currentColor" stroke-width="2.4" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>`,
  star: `<svg viewBox="0 0 24 24" class="pp-ico pp-star" aria-hidden="true" focusable="false"><path d="M12 2l3 7 7 .6-5.3 4.7 1.6 7.2L12 17.8 5.7 21.5l1.6-7.2L2 9.6 9 9z" fill="currentColor"/></svg>`,
};

import { el, esc } from "/static/js/dom.js";

export { el, esc };

// A mushroom face: the silhouette and the name under it (the name is the accessible name).
export function face(type, extra = "") {
  return `${mushroomSvg(type)}<span class="pp-name">${NAMES[type]}</span>${extra}`;
}

// An action card's visible content (its text is its accessible name).
export function actionFace(card) {
  if (card.kind === "collect") {
    const what = t(`game.panik_pilze.act.${card.action}`, { n: card.count });
    return `<span class="pp-act">${what}</span>${mushroomSvg(card.mushroom)}<span class="pp-name">${NAMES[card.mushroom]}</span>`;
  }
  if (card.kind === "party") return `${ICONS.party}<span class="pp-name">${t("game.panik_pilze.party")}</span>`;
  return `${ICONS.steal}<span class="pp-name">${t("game.panik_pilze.steal")}</span>`;
}

export function actionName(card) {
  if (card.kind === "collect") {
    return t("game.panik_pilze.action_name.collect", {
      mushroom: NAMES[card.mushroom], action: t(`event.panik_pilze.action.${card.action}`), n: card.count,
    });
  }
  return t(card.kind === "party" ? "game.panik_pilze.mushroom_party" : "game.panik_pilze.steal");
}
