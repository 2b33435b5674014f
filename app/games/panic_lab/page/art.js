// Panic Lab's original art in SVG: tiles, amoebas, dice, and the ring's geometry.
// Every drawing is made in a local box from -50 to 50 (a tile's radius is 50) and placed with a
// transform. Colour is never the only cue: red amoebas carry a triangle badge, violet ones a
// round badge; the shape shows by its body and eyes (one big eye vs two eyes on stalks); the
// pattern by white stripes or white dots.

import { t } from "/static/js/i18n.js";

export const NS = "http://www.w3.org/2000/svg";

export const AMOEBA_FILL = { red: "#ee4433", violet: "#6a3cc0" };
export const LAB_FILL = { blue: "#2f7be0", yellow: "#f3c316", red: "#d8362b" };
export const LAB_LETTER = { blue: "B", yellow: "Y", red: "R" };
export const INK = "#24153d";

/** An SVG element with attributes and children. */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== undefined && v !== null && v !== false) e.setAttribute(k, String(v));
  }
  for (const c of children) if (c) e.append(c);
  return e;
}

function text(str, attrs) {
  const t = el("text", attrs);
  t.textContent = str;
  return t;
}

/** Shared patterns (ids are document-wide: add these defs once per page). */
export function defs() {
  return el("defs", {},
    el("pattern", { id: "pl-stripes", patternUnits: "userSpaceOnUse", width: 15, height: 15,
      patternTransform: "rotate(40)" },
    el("rect", { x: 0, y: 0, width: 6.5, height: 15, fill: "#fff", "fill-opacity": 0.9 })),
    el("pattern", { id: "pl-dots", patternUnits: "userSpaceOnUse", width: 15, height: 15 },
      el("circle", { cx: 7.5, cy: 7.5, r: 3.8, fill: "#fff", "fill-opacity": 0.95 })),
  );
}

// --- amoebas -----------------------------------------------------------------------------------
const DOME = "M -30 8 C -35 -40, 35 -40, 30 8 Z";
const TENTACLES = [-21, -7, 7, 21].map((x) => `M ${x} 6 q 7 9 0 17 q -7 9 0 17`);
const HUMP = "M -40 24 C -42 -22, 42 -22, 40 24 Q 30 32 20 24 Q 10 32 0 24 Q -10 32 -20 24 Q -30 32 -40 24 Z";

function eye(cx, cy, r) {
  return el("g", { class: "pl-eye" },
    el("circle", { cx, cy, r, fill: "#fff", stroke: INK, "stroke-width": 2.5 }),
    el("circle", { cx: cx + r * 0.15, cy: cy + r * 0.1, r: r * 0.5, fill: INK }));
}

/**
 * An amoeba of ``kind`` ({colour, shape, pattern}); a null colour draws it grey without a badge,
 * a null pattern draws it plain.
 */
export function amoeba(kind) {
  const fill = kind.colour ? AMOEBA_FILL[kind.colour] : "#8d8799";
  const pattern = kind.pattern === "striped" ? "url(#pl-stripes)" : kind.pattern === "dotted" ? "url(#pl-dots)" : null;
  const g = el("g", { class: `pl-amoeba ${kind.colour || ""} ${kind.shape} ${kind.pattern || ""}` });
  if (kind.shape === "tentacled") {
    for (const d of TENTACLES) {
      g.append(el("path", { d, fill: "none", stroke: INK, "stroke-width": 11, "stroke-linecap": "round" }));
      g.append(el("path", { d, fill: "none", stroke: fill, "stroke-width": 6, "stroke-linecap": "round" }));
    }
    g.append(el("path", { d: DOME, fill, stroke: INK, "stroke-width": 3 }));
    if (pattern) g.append(el("path", { d: DOME, fill: pattern }));
    g.append(eye(0, -12, 12));
  } else {
    for (const x of [-1, 1]) {
      g.append(el("path", { d: `M ${x * 9} -4 L ${x * 17} -29`, stroke: INK, "stroke-width": 4, "stroke-linecap": "round" }));
    }
    g.append(el("path", { d: HUMP, fill, stroke: INK, "stroke-width": 3 }));
    if (pattern) g.append(el("path", { d: HUMP, fill: pattern }));
    g.append(eye(-18, -31, 8.5), eye(18, -31, 8.5));
  }
  if (kind.colour) g.append(colourBadge(kind.colour, 36, -36, 9));
  return g;
}

/** The colour cue: a triangle for red, a circle for violet. */
export function colourBadge(colour, x, y, r) {
  const attrs = { fill: AMOEBA_FILL[colour], stroke: "#fff", "stroke-width": 2.5, class: `pl-badge ${colour}` };
  if (colour === "red") {
    const h = r * 1.15;
    return el("path", { ...attrs, d: `M ${x} ${y - h} L ${x + h} ${y + h * 0.75} L ${x - h} ${y + h * 0.75} Z`, "stroke-linejoin": "round" });
  }
  return el("circle", { ...attrs, cx: x, cy: y, r });
}

// --- tiles -------------------------------------------------------------------------------------
function disc(fill, extra = "") {
  return el("circle", { class: `pl-disc ${extra}`, r: 48, fill, stroke: INK, "stroke-width": 3 });
}

function flask(colour) {
  return el("g", { class: "pl-flask" },
    el("path", { d: "M -11 -36 h 22 M -8 -36 v 22 l -22 34 a 7 7 0 0 0 6 10 h 48 a 7 7 0 0 0 6 -10 l -22 -34 v -22",
      fill: "#fff", stroke: INK, "stroke-width": 3.5, "stroke-linejoin": "round" }),
    text(LAB_LETTER[colour], { y: 24, "text-anchor": "middle", "font-size": 30, "font-weight": 900, fill: INK }));
}

function ventArt() {
  const g = el("g", { class: "pl-vent-art" });
  g.append(el("circle", { r: 34, fill: "#1d2029", stroke: "#9aa3b5", "stroke-width": 3 }));
  for (const y of [-18, -6, 6, 18]) {
    const w = Math.sqrt(34 * 34 - y * y) - 6;
    g.append(el("rect", { x: -w, y: y - 3.5, width: 2 * w, height: 7, rx: 3.5, fill: "#7d8699" }));
  }
  return g;
}

function mutationArt(attribute) {
  const g = el("g", { class: `pl-mutation-art ${attribute}` });
  g.append(el("circle", { r: 40, fill: "none", stroke: "#1b8f7e", "stroke-width": 3, "stroke-dasharray": "7 5" }));
  if (attribute === "colour") {
    g.append(el("path", { d: "M 0 -34 A 22 22 0 0 0 0 10 Z", fill: AMOEBA_FILL.red, transform: "translate(0 12)" }));
    g.append(el("path", { d: "M 0 -34 A 22 22 0 0 1 0 10 Z", fill: AMOEBA_FILL.violet, transform: "translate(0 12)" }));
    g.append(colourBadge("red", -12, -8, 6), colourBadge("violet", 12, -8, 6));
  } else if (attribute === "shape") {
    const a = amoeba({ colour: null, shape: "tentacled", pattern: null });
    a.setAttribute("transform", "translate(-15 -8) scale(0.42)");
    const b = amoeba({ colour: null, shape: "crawling", pattern: null });
    b.setAttribute("transform", "translate(15 -8) scale(0.42)");
    g.append(a, b);
  } else {
    g.append(el("path", { d: "M 0 -30 A 20 20 0 0 0 0 10 Z", fill: "#8d8799" }));
    g.append(el("path", { d: "M 0 -30 A 20 20 0 0 1 0 10 Z", fill: "#8d8799" }));
    g.append(el("path", { d: "M 0 -30 A 20 20 0 0 0 0 10 Z", fill: "url(#pl-stripes)" }));
    g.append(el("path", { d: "M 0 -30 A 20 20 0 0 1 0 10 Z", fill: "url(#pl-dots)" }));
    g.append(el("circle", { cy: -10, r: 20, fill: "none", stroke: INK, "stroke-width": 2.5 }));
  }
  g.append(text(attribute[0].toUpperCase(), { y: 45, "text-anchor": "middle", "font-size": 34, "font-weight": 900, fill: INK }));
  return g;
}

/** What a tile shows (without its disc's state classes). */
export function tileArt(tile) {
  if (tile.type === "amoeba") return [disc("#f7f1e3"), amoeba(tile)];
  if (tile.type === "lab") return [disc(LAB_FILL[tile.colour], "lab"), flask(tile.colour)];
  if (tile.type === "vent") return [disc("#434a5a", "vent"), ventArt()];
  return [disc("#d9f5ef", "mutation"), mutationArt(tile.attribute)];
}

// Names in the page's language: the words are the events' (event.panic_lab.colour.red, ...).
const word = (attr, value) => t(`event.panic_lab.${attr}.${value}`, {}, value);

/** "red tentacled striped" (German: "rote gestreifte Tentakel-Amöbe"). */
export function describeKind(kind) {
  return t("game.panic_lab.kind", {
    colour: word("colour", kind.colour), shape: word("shape", kind.shape), pattern: word("pattern", kind.pattern),
  });
}

export function describeTile(tile) {
  if (tile.type === "amoeba") return t("game.panic_lab.amoeba", { kind: describeKind(tile) });
  if (tile.type === "lab") return labName(tile.colour);
  if (tile.type === "vent") return t("game.panic_lab.vent");
  return t("game.panic_lab.mutation_room", { attribute: attributeName(tile.attribute) });
}

export const labName = (colour) => t(`game.panic_lab.lab_name.${colour}`, {}, `${colour} lab`);
export const attributeName = (attribute) => t(`game.panic_lab.attribute.${attribute}`, {}, attribute);

// --- dice --------------------------------------------------------------------------------------
function dieBody(fill) {
  return el("rect", { class: "pl-die-body", x: -46, y: -46, width: 92, height: 92, rx: 16, fill, stroke: INK, "stroke-width": 3 });
}

/** The lab die: the lab's colour and letter, and the arrow (white: clockwise, black: counter). */
export function labDie(lab, arrow) {
  const g = el("g", { class: `pl-die lab ${arrow}` }, dieBody(LAB_FILL[lab]));
  const ink = arrow === "white" ? "#fff" : "#111";
  const edge = arrow === "white" ? "#111" : "#fff";
  const r = 27;
  const a0 = (135 * Math.PI) / 180;
  const a1 = (45 * Math.PI) / 180;
  const p0 = [r * Math.cos(a0), r * Math.sin(a0)];
  const p1 = [r * Math.cos(a1), r * Math.sin(a1)];
  const d = `M ${p0[0]} ${p0[1]} A ${r} ${r} 0 1 1 ${p1[0]} ${p1[1]}`;
  // The head at p1, pointing along the clockwise tangent (-sin, cos).
  const t = [-Math.sin(a1), Math.cos(a1)];
  const n = [Math.cos(a1), Math.sin(a1)];
  const tip = [p1[0] + t[0] * 14, p1[1] + t[1] * 14];
  const l = [p1[0] + n[0] * 12 - t[0] * 2, p1[1] + n[1] * 12 - t[1] * 2];
  const rr = [p1[0] - n[0] * 12 - t[0] * 2, p1[1] - n[1] * 12 - t[1] * 2];
  const head = `M ${tip[0]} ${tip[1]} L ${l[0]} ${l[1]} L ${rr[0]} ${rr[1]} Z`;
  const arrowG = el("g", { class: "pl-arrow", transform: arrow === "black" ? "scale(-1 1)" : null },
    el("path", { d, fill: "none", stroke: edge, "stroke-width": 13 }),
    el("path", { d: head, fill: edge, stroke: edge, "stroke-width": 5, "stroke-linejoin": "round" }),
    el("path", { d, fill: "none", stroke: ink, "stroke-width": 7 }),
    el("path", { d: head, fill: ink }));
  g.append(arrowG);
  g.append(text(LAB_LETTER[lab], { y: 12, "text-anchor": "middle", "font-size": 32, "font-weight": 900, fill: lab === "yellow" ? INK : "#fff", stroke: lab === "yellow" ? "none" : INK, "stroke-width": 1 }));
  return g;
}

export function colourDie(colour) {
  return el("g", { class: `pl-die colour ${colour}` }, dieBody("#fff"), colourBadge(colour, 0, 4, 30));
}

export function shapeDie(shape) {
  const a = amoeba({ colour: null, shape, pattern: null });
  a.setAttribute("transform", "scale(0.85)");
  return el("g", { class: `pl-die shape ${shape}` }, dieBody("#fff"), a);
}

export function patternDie(pattern) {
  return el("g", { class: `pl-die pattern ${pattern}` }, dieBody("#fff"),
    el("circle", { r: 32, fill: "#8d8799", stroke: INK, "stroke-width": 3 }),
    el("circle", { r: 32, fill: pattern === "striped" ? "url(#pl-stripes)" : "url(#pl-dots)" }));
}

export function blankDie(label = "?") {
  return el("g", { class: "pl-die blank" }, dieBody("#ece6f7"),
    text(label, { y: 18, "text-anchor": "middle", "font-size": 50, "font-weight": 900, fill: "#7b6aa8" }));
}

// --- the ring ----------------------------------------------------------------------------------
/**
 * Where ``n`` tiles go on an ellipse (a circle when width == height) filling a ``width`` x
 * ``height`` box: index 0 at the top, then clockwise, equal spacing along the curve.
 * Returns {cx, cy, rx, ry, tileR, points: [{x, y, nx, ny}]} (n = the outward normal).
 */
export function ringLayout(n, width, height, margin = 6) {
  let tileR = 50;
  let layout = null;
  for (let pass = 0; pass < 4; pass++) {
    const rx = width / 2 - tileR - margin;
    const ry = height / 2 - tileR - margin;
    const samples = 1440;
    const pts = [];
    let length = 0;
    let prev = null;
    for (let i = 0; i <= samples; i++) {
      const t = (2 * Math.PI * i) / samples;
      const p = [rx * Math.sin(t), -ry * Math.cos(t), t];
      if (prev) length += Math.hypot(p[0] - prev[0], p[1] - prev[1]);
      pts.push([p[0], p[1], t, length]);
      prev = p;
    }
    const spacing = length / n;
    tileR = Math.min(100, spacing * 0.47);
    const points = [];
    let j = 0;
    for (let k = 0; k < n; k++) {
      const want = k * spacing;
      while (j < samples && pts[j + 1][3] < want) j++;
      const [x, y, t] = pts[j];
      // Outward normal of the ellipse at parameter t.
      const nx = Math.sin(t) / rx;
      const ny = -Math.cos(t) / ry;
      const len = Math.hypot(nx, ny);
      points.push({ x: width / 2 + x, y: height / 2 + y, nx: nx / len, ny: ny / len });
    }
    layout = { cx: width / 2, cy: height / 2, rx, ry, tileR, spacing, points };
  }
  return layout;
}
