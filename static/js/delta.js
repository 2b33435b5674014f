// Delta state frames (docs/protocol.md, "Delta state frames"; the server side is
// app/realtime/delta.py). A patch is a list of operations applied in order to the state frame the
// client holds; the result is the whole frame the server would have sent:
//   [path, value]                set value at path (the path "" replaces the whole frame)
//   [path]                       delete the object key at the end of path
//   [path, start, count, items]  splice the list at path (remove count at start, insert items)
// A path is a JSON Pointer (RFC 6901): "/view/players/2/hand"; "~1" is "/" and "~0" is "~".

function segments(path) {
  if (path === "") return [];
  if (path[0] !== "/") throw new Error("not a JSON Pointer");
  return path.slice(1).split("/").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function index(list, segment) {
  if (!/^(0|[1-9][0-9]*)$/.test(segment) || Number(segment) >= list.length) throw new Error("bad index");
  return Number(segment);
}

function step(container, segment) {
  if (Array.isArray(container)) return container[index(container, segment)];
  if (container !== null && typeof container === "object" && Object.hasOwn(container, segment)) return container[segment];
  throw new Error("patch path not found");
}

// The frame `held` with `ops` applied, as a new object: `held` is left as it is (the page may
// keep the frames it was given). Throws on a patch that does not fit.
export function applyPatch(held, ops) {
  let root = structuredClone(held);
  for (const op of ops) {
    const parts = segments(op[0]);
    if (op.length === 2 && parts.length === 0) { root = structuredClone(op[1]); continue; }
    let parent = root;
    for (const segment of (op.length === 4 ? parts : parts.slice(0, -1))) parent = step(parent, segment);
    const key = parts[parts.length - 1];
    if (op.length === 2) {
      if (Array.isArray(parent)) parent[index(parent, key)] = op[1];
      else if (parent !== null && typeof parent === "object") parent[key] = op[1];
      else throw new Error("set outside an object or list");
    } else if (op.length === 1) {
      if (Array.isArray(parent) || parent === null || typeof parent !== "object" || parts.length === 0) {
        throw new Error("delete outside an object");
      }
      delete parent[key];
    } else if (op.length === 4) {
      const [, start, count, items] = op;
      if (!Array.isArray(parent) || start < 0 || start + count > parent.length) throw new Error("bad splice");
      parent.splice(start, count, ...items);
    } else {
      throw new Error("not a patch operation");
    }
  }
  return root;
}

// Tracks the state frame one connection holds and turns each delta frame into the whole frame.
// `rebuild(frame)` returns the whole state frame, or null when the patch does not apply to what
// is held (the caller asks for a resync; patches are dropped until a whole frame comes).
export class StateTracker {
  constructor() { this.held = null; this.waiting = false; }

  reset() { this.held = null; this.waiting = false; }

  rebuild(frame) {
    if (frame.patch === undefined) {
      this.held = frame;
      this.waiting = false;
      return structuredClone(frame);
    }
    const held = this.held;
    if (this.waiting || !held || !Array.isArray(frame.base) || held.match !== frame.base[0]
        || held.version !== frame.base[1]) {
      this.waiting = true;
      return null;
    }
    try {
      this.held = applyPatch(held, frame.patch);
    } catch {
      this.waiting = true;
      return null;
    }
    return structuredClone(this.held);
  }
}
