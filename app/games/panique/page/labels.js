// Panique's board labels: what each space of the house says, laid out inside its cell and never
// wider than it (docs/games/panique.md, "Client", "The house": no label spills out of
// its cell on a 360 px phone, in any language, and the TV's labels read from the sofa).
//
// The sizes are the stylesheet's (style.css: 12-13 px on a phone, 24 px and
// more on a TV at 1080p); this module measures the text at those sizes and places it:
// - a small cell (a phone) shows the space's number and its mark (game.panique.mark.<index>:
//   one word per space on every screen, the phone's and the TV's, short enough for a phone's
//   cell: docs/decisions/0062); a cell too short for both lines (a phone whose encounter card takes the screen) shows the mark alone on a
//   named space, the number on the others (the numbers around it count the track);
// - a large cell shows the number, the mark beside it (or on a line of its own when both do not
//   fit one line), the space's name on up to two lines, and above the heirs' discs; the room's
//   name is written in the room's first blank space (the room's floor is tinted behind it too).
// A label that still does not fit is squeezed to its cell (textLength), never cut; a name with
// no room left is left out (the space's <title> names it, as the rules page does).

import { t } from "/static/js/i18n.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const MARKED = [0, 8, 17, 19, 21, 23, 25, 29]; // the marks that are words (the others are signs)
const SIGNS = { 3: "+1♥", 5: "−1♥", 10: "+3", 13: "+1♥", 15: "→5", 27: "−4" };
const ASCENT = 0.93; // a line's baseline under its top, in ems (the system fonts' ascent)
const LINE = 1.18; // a line's height in ems (ascent and descent)
const INSET = 4; // px between a label and its cell's border

/** A space's mark: a sign ("+1♥", "→5") or a word in the page's language ("Ghost"), the same
 * on every screen. */
export function mark(index) {
  if (SIGNS[index]) return SIGNS[index];
  if (!MARKED.includes(index)) return "";
  return t(`game.panique.mark.${index}`);
}

function text(parent, cls, x, y, anchor, content) {
  const node = document.createElementNS(SVG_NS, "text");
  node.setAttribute("class", cls);
  node.setAttribute("x", x.toFixed(1));
  node.setAttribute("y", y.toFixed(1));
  node.setAttribute("text-anchor", anchor);
  node.textContent = content;
  parent.append(node);
  return node;
}

const fontSize = (node) => parseFloat(getComputedStyle(node).fontSize) || 12;
const width = (node) => node.getComputedTextLength();

function squeeze(node, room) {
  if (width(node) <= room) return;
  node.setAttribute("textLength", room.toFixed(1));
  node.setAttribute("lengthAdjust", "spacingAndGlyphs");
}

// Words into at most `max` lines no wider than `room`, measured on `probe`; null if they need more.
function wrap(probe, words, room, max) {
  const fits = (line) => { probe.textContent = line; return width(probe) <= room; };
  const lines = [];
  for (const word of words) {
    const longer = lines.length ? `${lines[lines.length - 1]} ${word}` : "";
    if (longer && fits(longer)) lines[lines.length - 1] = longer;
    else lines.push(word);
  }
  return lines.length <= max && lines.every(fits) ? lines : null;
}

/**
 * Write the labels of every space into its `g.pq-space` (already in the page, so that its text
 * can be measured). `cells[index]` is the space's box {x, y, w, h}; `big` the large layout, whose
 * text stays above `floorY(index)` (the top of the heirs' discs).
 */
export function labelSpaces(house, board, cells, big, floorY, roomName, spaceName) {
  const firstBlank = new Set();
  for (const room of new Set(board.map((s) => s.room))) {
    const blank = board.find((s) => s.room === room && s.blank);
    if (blank) firstBlank.add(blank.index);
  }
  for (const s of board) {
    const g = house.querySelector(`.pq-space[data-index="${s.index}"]`);
    const box = cells[s.index];
    const room = box.w - 2 * INSET;
    const num = text(g, "pq-num", box.x + INSET, 0, "start", String(s.index));
    const numSize = fontSize(num);
    const top = box.y + INSET / 2;
    num.setAttribute("y", (top + ASCENT * numSize).toFixed(1));
    const cx = box.x + box.w / 2;
    if (!big) {
      if (s.blank) continue;
      const m = text(g, "pq-mark", cx, 0, "middle", mark(s.index));
      if (box.h < LINE * (numSize + fontSize(m)) + INSET) { // no room for both: the mark alone, centred
        num.remove();
        m.setAttribute("y", (box.y + (box.h - LINE * fontSize(m)) / 2 + ASCENT * fontSize(m)).toFixed(1));
        squeeze(m, room);
        continue;
      }
      m.remove();
      // Under the number, a little below the middle when there is room (the discs cover the middle).
      const node = text(g, "pq-mark", cx, 0, "middle", mark(s.index));
      const size = fontSize(node);
      const under = top + LINE * numSize + ASCENT * size;
      const foot = box.y + box.h - INSET / 2 - (LINE - ASCENT) * size;
      node.setAttribute("y", Math.min(foot, Math.max(under, box.y + box.h / 2 + 6)).toFixed(1));
      squeeze(node, room);
      continue;
    }
    // The large layout: lines from the top of the cell down to the discs.
    let y = top + LINE * numSize;
    const bottom = floorY(s.index) - 2;
    const lines = [];
    if (!s.blank) {
      const m = text(g, "pq-mark", box.x + box.w - INSET, top + ASCENT * numSize, "end", mark(s.index));
      const markSize = fontSize(m);
      if (width(num) + 8 + width(m) > room) { // no room beside the number: a line of its own
        m.setAttribute("x", cx.toFixed(1));
        m.setAttribute("text-anchor", "middle");
        lines.push([m, markSize]);
      } else {
        // Beside the number, on one baseline: the taller of the two sets the line.
        const line = Math.max(numSize, markSize);
        num.setAttribute("y", (top + ASCENT * line).toFixed(1));
        m.setAttribute("y", (top + ASCENT * line).toFixed(1));
        y = top + LINE * line;
      }
      squeeze(m, room);
      lines.push(...words(g, "pq-name", spaceName(s), room, bottom - y - lines.reduce((h, [, sz]) => h + LINE * sz, 0), cx));
    } else if (firstBlank.has(s.index)) {
      lines.push(...words(g, "pq-room", roomName(s.room), room, bottom - y, cx));
    }
    // The lines under the number, centred in what is left above the discs.
    const height = lines.reduce((h, [, size]) => h + LINE * size, 0);
    let lineTop = y + Math.max(0, (bottom - y - height) / 2);
    for (const [node, size] of lines) {
      node.setAttribute("y", (lineTop + ASCENT * size).toFixed(1));
      lineTop += LINE * size;
    }
  }
}

// A name on up to two lines of `room` px within `space` px of height: one squeezed line if two do
// not fit (never below 80 % of its width), none if even one line has no room.
function words(g, cls, content, room, space, cx) {
  const probe = text(g, cls, cx, 0, "middle", content);
  const size = fontSize(probe);
  const maxLines = Math.floor(space / (LINE * size));
  if (maxLines < 1) { probe.remove(); return []; }
  const natural = width(probe);
  let lines = natural <= room ? [content] : wrap(probe, content.split(" "), room, maxLines);
  probe.remove();
  if (!lines && natural * 0.8 <= room) lines = [content];
  if (!lines) return [];
  return lines.map((line) => {
    const node = text(g, cls, cx, 0, "middle", line);
    squeeze(node, room);
    return [node, size];
  });
}
