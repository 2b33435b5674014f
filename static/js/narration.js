// The narration line: who did what, said to the whole room from the game's own events, the same
// part on every game's screens (docs/decisions/0062). A game's page module places it where its
// layout has room and hands it the events the shell gives the page (`onEvent`); the line says the
// latest move in the reader's language (ctx.event: the events' catalog texts, "You" on the
// mover's own phone) and is large on the table view (static/css/site.css, "narration").
// It names no game: what a game narrates is chosen by the page (`kinds`), by default every
// lasting event with words (a transient event, such as a card turning mid-move, is no move).

const FRESH_MS = 1600; // how long a new line is marked as new (the style's highlight)

/**
 * A narration line for `ctx` (the shell's context: `event`, `text`, `table`).
 * `kinds`: the event kinds worth telling (a list or a set; default: every lasting event with
 * words);
 * `id`: the element's id, for the page's own tests and styles;
 * `latest`: tell only the last told event of a frame (a page with little room), else all of
 * them, in their order.
 * Returns { element, onEvent(event), tell(events), clear() }: `onEvent` takes the events one by
 * one as the shell hands them over, `tell` a frame's events at once (a page that reads them from
 * the state frame); either says the ones it tells now.
 */
export function narration(ctx, { kinds = null, id = null, latest = false } = {}) {
  const line = document.createElement("p");
  line.className = `narration${ctx.table ? " narration--table" : ""}`;
  if (id) line.id = id;
  line.setAttribute("role", "status");
  line.setAttribute("aria-live", "polite");
  line.dataset.narration = "";
  let batch = [];
  let freshTimer = 0;

  const wanted = kinds ? new Set(kinds) : null;
  const tells = (e) => !!e && (wanted ? wanted.has(e.kind) : !e.transient)
    && !!(e.text || (e.data && e.data.msg));
  const say = (e) => (ctx.event ? ctx.event(e) : ctx.text ? ctx.text(e.text) : String(e.text));

  function tell(events) {
    const told = events.filter(tells);
    const words = (latest ? told.slice(-1) : told).map(say).filter((text) => text);
    if (!words.length) return false;
    line.textContent = words.join(" · ");
    line.dataset.kind = told[told.length - 1].kind;
    line.classList.add("fresh");
    clearTimeout(freshTimer);
    freshTimer = setTimeout(() => line.classList.remove("fresh"), FRESH_MS);
    return true;
  }

  // The events of one frame come one after another in the same task: they are told together,
  // in their order, once the frame's last has arrived.
  function flush() {
    const events = batch;
    batch = [];
    tell(events);
  }

  // Joined mid-match (a reload, a TV switched on): the last move told before this page came is
  // said too, quietly, until a live one replaces it (ctx.recent: the shell's history).
  if (ctx.recent) {
    ctx.recent((events) => {
      if (line.textContent) return;
      const last = events.filter(tells).slice(-1);
      if (last.length && tell(last)) line.classList.remove("fresh");
    });
  }

  return {
    element: line,
    onEvent(e) {
      if (!tells(e)) return;
      if (!batch.length) queueMicrotask(flush);
      batch.push(e);
    },
    tell,
    clear() {
      batch = [];
      line.textContent = "";
      delete line.dataset.kind;
      line.classList.remove("fresh");
      clearTimeout(freshTimer);
    },
  };
}
