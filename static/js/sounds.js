// Short synthesised sounds (Web Audio, no files), muted with one switch kept in localStorage, so
// each device remembers it; vibration (your turn, a burst) has its own remembered switch. The
// audio context is suspended once its last sound has ended: a running one keeps the device's
// audio output (and a thread of the page) busy for as long as the page is open, silent or not.
const SUSPEND_AFTER_MS = 250;

export class Sounds {
  constructor() {
    this.ctx = null;
    this.idle = null;
    this.muted = localStorage.getItem("pp:muted") === "1";
    this.vibration = localStorage.getItem("pp:vibration") !== "0";
  }

  setVibration(on) {
    this.vibration = on;
    localStorage.setItem("pp:vibration", on ? "1" : "0");
  }

  setMuted(muted) {
    this.muted = muted;
    localStorage.setItem("pp:muted", muted ? "1" : "0");
  }

  play(name) {
    if (this.muted) return;
    try {
      this.ctx = this.ctx || new AudioContext();
    } catch { return; }
    const ctx = this.ctx;
    if (ctx.state === "suspended") ctx.resume().catch(() => {});
    const t = ctx.currentTime;
    const tones = {
      tap: [[660, 0.05, "square", 0.05]],
      tense: [[880, 0.06, "square", 0.06]],
      burst: [[120, 0.5, "sawtooth", 0.3], [60, 0.6, "square", 0.25]],
      win: [[523, 0.12, "triangle", 0.2], [659, 0.12, "triangle", 0.2], [784, 0.25, "triangle", 0.2]],
      fanfare: [[523, 0.1, "triangle", 0.22], [659, 0.1, "triangle", 0.22], [784, 0.1, "triangle", 0.22],
        [1047, 0.45, "triangle", 0.25]],
      wrong: [[200, 0.2, "square", 0.15]],
      reveal: [[440, 0.1, "sine", 0.2], [880, 0.15, "sine", 0.2]],
    }[name] || [[440, 0.08, "sine", 0.1]];
    let at = t;
    let end = t;
    for (const [freq, dur, type, vol] of tones) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = type;
      osc.frequency.setValueAtTime(freq, at);
      gain.gain.setValueAtTime(vol, at);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + dur);
      osc.connect(gain).connect(ctx.destination);
      osc.start(at);
      osc.stop(at + dur);
      end = Math.max(end, at + dur);
      at += dur * 0.8;
    }
    clearTimeout(this.idle);
    this.idle = setTimeout(() => { if (ctx.state === "running") ctx.suspend().catch(() => {}); },
      (end - t) * 1000 + SUSPEND_AFTER_MS);
  }
}
