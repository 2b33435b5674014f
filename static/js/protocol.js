// The client side of the room protocol (docs/protocol.md): one WebSocket, reconnecting, with the
// seat token kept in localStorage so a refresh or a sleeping phone returns to the same seat.

const TOKEN_PREFIX = "pp:token:";

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

export class RoomSocket {
  // handlers: {onFrame(frame), onStatus(text, ok)}; join(): the join frame to send on open.
  constructor(code, join, handlers) {
    this.code = code;
    this.join = join;
    this.handlers = handlers;
    this.ws = null;
    this.retry = 0;
    this.stopped = false;
    this.pending = [];
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.ensureOpen();
    });
    window.addEventListener("online", () => this.ensureOpen());
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return `${scheme}://${location.host}/ws/${encodeURIComponent(this.code)}`;
  }

  ensureOpen() {
    if (this.stopped) return;
    if (this.ws && (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING)) return;
    this.connect();
  }

  connect() {
    const ws = new WebSocket(this.url());
    this.ws = ws;
    this.handlers.onStatus("Connecting…", false);
    ws.onopen = () => {
      this.retry = 0;
      ws.send(JSON.stringify(this.join()));
      for (const frame of this.pending.splice(0)) ws.send(JSON.stringify(frame));
    };
    ws.onmessage = (msg) => {
      let frame;
      try { frame = JSON.parse(msg.data); } catch { return; }
      if (frame.type === "ping") ws.send(JSON.stringify({ type: "pong", t: frame.t }));
      this.handlers.onFrame(frame);
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      if (this.stopped || ev.code === 4404) {
        this.handlers.onStatus(ev.code === 4404 ? "This room does not exist any more." : "Disconnected.", false);
        return;
      }
      const delay = Math.min(8000, 300 * 2 ** this.retry++);
      this.handlers.onStatus(`Connection lost; reconnecting in ${Math.round(delay / 100) / 10} s…`, false);
      setTimeout(() => this.ensureOpen(), delay);
    };
  }

  send(frame) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(frame));
    else if (frame.type !== "action") { this.pending.push(frame); this.ensureOpen(); }
    else this.ensureOpen();
  }

  stop() {
    this.stopped = true;
    if (this.ws) this.ws.close();
  }
}
