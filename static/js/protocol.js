// The client side of the room protocol (docs/protocol.md): one WebSocket, reconnecting, with the
// seat token kept in localStorage so a refresh or a sleeping phone returns to the same seat.
// The connection is watched: a socket that carries nothing for 2.5 ping intervals (dead Wi-Fi
// keeps a socket "open" for minutes) is given up and reopened, and each close code of the
// protocol gets its own reaction (docs/protocol.md, "Close codes").
const TOKEN_PREFIX = "pp:token:";
export const DEFAULT_PING_MS = 5000;
const SILENCE_FACTOR = 2.5;

export function savedToken(code) {
  return localStorage.getItem(TOKEN_PREFIX + code);
}

export function saveToken(code, token) {
  if (token) localStorage.setItem(TOKEN_PREFIX + code, token);
}

export function forgetToken(code) {
  localStorage.removeItem(TOKEN_PREFIX + code);
}

export function savedNickname() {
  return localStorage.getItem("pp:nickname") || "";
}

export function saveNickname(name) {
  localStorage.setItem("pp:nickname", name);
}

// What the page does for each close code: the connection state to show, whether to reconnect
// and how soon (ms; null: back-off), and whether the seat token is void.
export const CLOSE_CODES = {
  1012: { state: "restarting", retry: null },
  1013: { state: "lost", retry: null }, // try again later: the server cannot find rooms now
  4000: { state: "removed", retry: false, forget: true },
  4001: { state: "lost", retry: 0 },
  4002: { state: "lost", retry: 0 },
  4003: { state: "roomClosed", retry: false },
  4004: { state: "tooManyConnections", retry: 15000 },
  // The seat was opened in another tab: that one plays; this one waits for its person.
  4005: { state: "takenOver", retry: false },
  4404: { state: "noRoom", retry: false },
  4429: { state: "throttled", retry: 15000 },
};

// The error frames sent just before such a close: the same reaction, known a moment earlier.
export const ERROR_CLOSES = {
  removed: 4000, too_slow: 4001, join_timeout: 4002, room_closed: 4003,
  too_many_connections: 4004, taken_over: 4005, throttled: 4429, no_such_room: 4404, unavailable: 1013,
};

export class RoomSocket {
  // handlers: {onFrame(frame), onState(state, detail)}; join(): the join frame to send on open.
  // States: connecting, connected, lost (detail: seconds to the retry), restarting, removed,
  // roomClosed, noRoom, tooManyConnections, takenOver, throttled, disconnected.
  constructor(code, join, handlers) {
    this.code = code;
    this.join = join;
    this.handlers = handlers;
    this.ws = null;
    this.retry = 0;
    this.stopped = false;
    this.pending = [];
    this.pingMs = DEFAULT_PING_MS;
    this.lastHeard = 0;
    this.retryTimer = null;
    this.finalState = null;
    this.reconnecting = false;
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") { this.checkSilence(); this.ensureOpen(); }
    });
    window.addEventListener("online", () => this.ensureOpen());
    setInterval(() => this.checkSilence(), 500);
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return `${scheme}://${location.host}/ws/${encodeURIComponent(this.code)}`;
  }

  ensureOpen() {
    if (this.stopped) return;
    if (this.ws && (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING)) return;
    clearTimeout(this.retryTimer);
    this.connect();
  }

  connect() {
    this.stopped = false;
    clearTimeout(this.retryTimer);
    const ws = new WebSocket(this.url());
    this.ws = ws;
    this.lastHeard = performance.now();
    // While reconnecting after a loss, the page keeps saying so (not a bland "Connecting").
    if (!this.reconnecting) this.handlers.onState("connecting");
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.lastHeard = performance.now();
      ws.send(JSON.stringify(this.join()));
      for (const frame of this.pending.splice(0)) ws.send(JSON.stringify(frame));
    };
    ws.onmessage = (msg) => {
      if (this.ws !== ws) return;
      this.lastHeard = performance.now();
      let frame;
      try { frame = JSON.parse(msg.data); } catch { return; }
      if (frame.type === "ping") ws.send(JSON.stringify({ type: "pong", t: frame.t }));
      if (frame.type === "welcome") {
        this.retry = 0;
        this.reconnecting = false;
        if (Number(frame.ping_ms) > 0) this.pingMs = Number(frame.ping_ms);
      }
      if (frame.type === "error" && ERROR_CLOSES[frame.code] !== undefined) {
        // The close follows; decide now so a close that never arrives changes nothing.
        this.finalState = ERROR_CLOSES[frame.code];
      }
      this.handlers.onFrame(frame);
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      const code = CLOSE_CODES[ev.code] ? ev.code : this.finalState;
      this.finalState = null;
      this.closed(code);
    };
  }

  // The socket is gone (closed by the server, or given up after silence): react to its code.
  closed(code) {
    this.ws = null;
    if (this.stopped) { this.handlers.onState("disconnected"); return; }
    const how = CLOSE_CODES[code];
    if (how && how.forget) this.handlers.onForget && this.handlers.onForget();
    if (how && how.retry === false) {
      this.stopped = true;
      this.handlers.onState(how.state);
      return;
    }
    this.reconnecting = true;
    let delay;
    if (how && how.retry !== null && how.retry !== undefined) delay = how.retry;
    else delay = Math.min(8000, 300 * 2 ** this.retry++);
    this.handlers.onState(how ? how.state : "lost", Math.round(delay / 100) / 10);
    this.retryTimer = setTimeout(() => this.ensureOpen(), delay);
  }

  // Nothing heard for 2.5 ping intervals: the connection is dead even if the socket says open.
  // A phone that slept has timers paused; waking, it checks at once.
  checkSilence() {
    const ws = this.ws;
    if (!ws || this.stopped || ws.readyState > WebSocket.OPEN) return;
    // A connection that does not open (a stalled network) is given up after the same time.
    const limit = SILENCE_FACTOR * (ws.readyState === WebSocket.OPEN ? this.pingMs : Math.max(this.pingMs, 2000));
    if (performance.now() - this.lastHeard < limit) return;
    this.ws = null;
    ws.onclose = null;
    ws.onmessage = null;
    try { ws.close(); } catch { /* already closing */ }
    this.retry = 0;
    this.reconnecting = true;
    this.handlers.onState("lost", 0);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.ensureOpen(), 0);
  }

  send(frame) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(frame));
    else if (frame.type !== "action") { this.pending.push(frame); this.ensureOpen(); }
    else this.ensureOpen();
  }

  // Close without reconnecting (the page chooses a nickname first, or gives up).
  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    if (this.ws) this.ws.close();
  }

  // Close and open again at once (a new join frame: a nickname chosen, a token forgotten).
  restart() {
    const ws = this.ws;
    this.ws = null;
    if (ws) { ws.onclose = null; ws.onmessage = null; ws.close(); }
    this.stopped = false;
    this.connect();
  }
}
