// The motion recorder of tests/web/test_motion.py, run in the page before its own scripts: every
// Web Animation (Element.prototype.animate) is kept with its keyframes, timing, where its
// element is at the first and at the last keyframe (a paused copy of the animation on the same
// element, sought there, then cancelled: the page's own animation is untouched), the table's
// landmarks at that moment, the newest payment and bid the page was told of, whether it finished;
// every CSS animation and transition that starts is kept too, with the properties it changes.
(() => {
  window.__motion = [];
  // every payment event the page's WebSocket brings, in order (our listener runs before the
  // page's own): a flight is matched with the newest payment when it starts
  window.__payments = [];
  window.__lastBid = null;
  const Socket = window.WebSocket;
  const walk = (v) => {
    if (Array.isArray(v)) { v.forEach(walk); return; }
    if (!v || typeof v !== "object") return;
    if (v.kind === "payment" && v.data && typeof v.data === "object") window.__payments.push(v.data);
    if (v.kind === "bid" && v.data && typeof v.data === "object") window.__lastBid = v.data;
    Object.values(v).forEach(walk);
  };
  window.WebSocket = function (...args) {
    const ws = new Socket(...args);
    ws.addEventListener("message", (m) => { try { walk(JSON.parse(m.data)); } catch (err) { /* not JSON */ } });
    return ws;
  };
  window.WebSocket.prototype = Socket.prototype;
  Object.assign(window.WebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
  const original = Element.prototype.animate;
  if (typeof original !== "function") return;
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  };
  const centre = (r) => ({ x: (r.left + r.right) / 2, y: (r.top + r.bottom) / 2 });
  const seatOf = (el) => { const s = el.closest && el.closest("[data-seat]"); return s ? Number(s.dataset.seat) : null; };
  const landmarks = () => {
    const seats = {};
    for (const s of document.querySelectorAll(".seat[data-seat]")) {
      const notes = s.querySelector(".seat-notes");
      seats[s.dataset.seat] = { box: box(s), notes: notes ? centre(box(notes)) : null };
    }
    const middle = document.querySelector(".kh-center, .cu-center, .trick");
    const won = document.querySelector(".slot.won .card");
    return { seats, middle: middle ? box(middle) : null, won: won ? centre(box(won)) : null };
  };
  const at = (el, keyframes, options, t) => {
    const copy = original.call(el, keyframes, { ...(typeof options === "number" ? { duration: options } : options), delay: 0, fill: "both" });
    copy.pause();
    copy.currentTime = t;
    const where = centre(box(el));
    copy.cancel();
    return where;
  };
  Element.prototype.animate = function (keyframes, options) {
    const anim = original.call(this, keyframes, options);
    const timing = anim.effect.getTiming();
    const entry = {
      kind: "waapi", cls: this.getAttribute("class") || "", seat: seatOf(this),
      keyframes: anim.effect.getKeyframes().map((k) => k.transform || ""),
      duration: timing.duration, delay: timing.delay, state: anim.playState,
      start: at(this, keyframes, options, 0), end: at(this, keyframes, options, timing.duration),
      ...landmarks(), finished: false,
      paid: window.__payments.length, bid: window.__lastBid,
      payment: window.__payments.length ? window.__payments[window.__payments.length - 1] : null,
    };
    anim.finished.then(() => { entry.finished = true; }, () => { entry.cancelled = true; });
    window.__motion.push(entry);
    return anim;
  };
  // the properties a CSS animation or transition changes (its keyframes' own, or the transition's)
  const animated = (ev) => {
    const pseudo = ev.pseudoElement || null;
    const mine = document.getAnimations().filter((a) => a.effect && a.effect.target === ev.target
      && (a.effect.pseudoElement || null) === pseudo && (a.animationName === ev.animationName || a.transitionProperty === ev.propertyName));
    const props = new Set();
    for (const a of mine) for (const k of a.effect.getKeyframes()) for (const p of Object.keys(k)) {
      if (!["offset", "computedOffset", "easing", "composite"].includes(p)) props.add(p);
    }
    return [...props];
  };
  document.addEventListener("animationstart", (ev) => {
    window.__motion.push({ kind: "css", name: ev.animationName, pseudo: ev.pseudoElement || "", props: animated(ev), cls: ev.target.getAttribute("class") || "", seat: seatOf(ev.target) });
  }, true);
  document.addEventListener("transitionstart", (ev) => {
    window.__motion.push({ kind: "transition", name: ev.propertyName, pseudo: ev.pseudoElement || "", props: [ev.propertyName], cls: ev.target.getAttribute("class") || "", seat: seatOf(ev.target) });
  }, true);
})();
