// Small DOM helpers every page script may share: HTML escaping and element building.

export function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => (
    { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "html") node.innerHTML = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

// Write `text` into `node` only when it shows something else: an unchanged write still costs the
// page a style and layout pass.
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

// Fill `node` with what `build()` returns only when `key` (the data it is drawn from, as one
// string) differs from what the node shows now: a state frame that leaves a part of the screen
// as it was costs that part no style, layout or paint (a tap on a shared counter changes the counter
// and little else, and comes up to 25 times a second).
const drawnFrom = new WeakMap();
export function redraw(node, key, build) {
  if (drawnFrom.get(node) === key) return false;
  drawnFrom.set(node, key);
  node.replaceChildren(...build());
  return true;
}
