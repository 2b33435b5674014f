// Helpers any game's page module may import (by absolute path: "/static/js/game_page.js",
// docs/decisions/0052; docs/adding-a-game.md, "The page"). They name no game.

// The shell's sound and vibration, used only once the page has had a user gesture: browsers
// refuse audio and vibration before that (a table view that nobody touched stays silent).
export function feedback(ctx) {
  const active = () => !navigator.userActivation || navigator.userActivation.hasBeenActive;
  return {
    sound: (name) => { if (active()) ctx.sound(name); },
    vibrate: (pattern) => { if (active()) ctx.vibrate(pattern); },
  };
}

// On a phone, bring the game (with the shell's timers just above it) into view once, when it
// first appears, unless the player has already scrolled.
export function scrollGameIntoView(table) {
  if (table || window.innerWidth >= 700 || window.scrollY > 0) return;
  const anchor = document.getElementById("timers") || document.getElementById("game");
  if (!anchor) return;
  requestAnimationFrame(() => {
    const header = document.querySelector(".site-header");
    const offset = header && getComputedStyle(header).position === "sticky" ? header.offsetHeight : 0;
    window.scrollTo({ top: anchor.getBoundingClientRect().top + window.scrollY - offset - 6 });
  });
}

// Restart a CSS animation class on an element (bump on each change, shake, ...). Under reduced
// motion a game's style turns these animations off: the class is only set, without the forced
// layout of the whole page that a restart costs (a counter may change 25 times a second).
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
export function replay(node, cls) {
  if (reducedMotion.matches) {
    node.classList.add(cls);
    return;
  }
  node.classList.remove(cls);
  void node.offsetWidth; // force a reflow so the animation starts again
  node.classList.add(cls);
}
