// Delta state frames (docs/protocol.md, "Delta state frames"; the server side is
// app/realtime/delta.py). A patch is a list of operations applied in order to the state frame the
// client holds; the result is the whole frame the server would have sent:
//   [path, value]                set value at path (an empty path replaces the whole frame)
//   [path]                       delete the object key at the end of path
//   [path, start, count, items]  splice the list at path (remove count at start, insert items)
// A path is a list of object keys and list indexes from the frame's root.

// The frame `held` with `ops` applied, as a new object: `held` is left as it is (the page may
// keep the frames it was given). Throws on a patch that does not fit.
export function applyPatch(held, ops) {
  let root = structuredClone(held);
  for (const op of ops) {
    const path = op[0];
    if (op.length === 2 && path.length === 0) { root = structuredClone(op[1]); continue; }
    const steps = op.length === 4 ? path : path.slice(0, -1);
    let parent = root;
    for (const step of steps) {
      parent = parent[step];
      if (parent === null || typeof parent !== "object") throw new Error("patch path not found");
    }
    const key = path[path.length - 1];
    if (op.length === 2) {
      if (Array.isArray(parent) && !(key >= 0 && key < parent.length)) throw new Error("bad index");
      parent[key] = op[1];
    } else if (op.length === 1) {
      if (Array.isArray(parent)) throw new Error("delete in a list");
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
