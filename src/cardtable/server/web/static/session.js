// The person's connection: one native-protocol WebSocket per tab, shared by every page of the
// single-page app so that moving from the lobby to the table never drops the seat.
//
// A guest keeps its display name and resume token in localStorage: after a reload the page says
// hello with the same token, and the server offers the running games to resume.

import { t } from "./i18n.js";
import { refusal } from "./errors.js";

const PROTOCOL = 1;
const STORE_KEY = "cardtable.identity";

export function wsUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws`;
}

/** Everything one seat has been told about one game. */
export class GameStore {
  constructor(id) {
    this.id = id;
    this.start = null; // game_start
    this.events = new Map(); // index -> {kind, data}
    this.requests = new Map(); // request_id -> request message (+ receivedAt)
    this.answered = new Map(); // request_id -> the socket the answer went out on
    this.end = null; // game_end
    this.rejections = []; // readable messages
    this.notices = []; // server errors such as taken_over
    this.takenOver = false;
    this.left = false;
    this.lastIndex = -1;
    this.requestObs = null; // observation of the latest request, with the event count it saw
    this.chat = []; // table chat lines (chat.js), in order, each once
    this.version = 0;
  }

  /**
   * Every event as [index, event], in index order: one array kept and grown (events are only
   * ever added), not sorted again at each draw and each clock tick. Read it, never change it.
   */
  sortedEvents() {
    if (!this.sorted || this.sorted.length > this.events.size) this.sorted = [];
    const have = this.sorted;
    if (have.length === this.events.size) return have;
    const last = have.length ? have[have.length - 1][0] : -Infinity;
    const fresh = [...this.events.entries()].slice(have.length);
    if (fresh.every(([i]) => i > last) && fresh.every(([i], k) => k === 0 || i > fresh[k - 1][0])) {
      have.push(...fresh); // arrived in order: appended
    } else {
      this.sorted = [...this.events.entries()].sort((a, b) => a[0] - b[0]);
    }
    return this.sorted;
  }
}

export class Session {
  constructor() {
    this.ws = null;
    this.you = null;
    this.welcomeGames = [];
    this.games = new Map();
    this.current = null; // id of the game this tab plays
    this.waiting = null; // a private table we wait at (the "table" message)
    this.offers = new Map(); // ended game id -> the rematch offered by one of its players
    this.listeners = new Set();
    this.connecting = null;
    this.wantOpen = false;
    this.retry = 0;
    // the connection was closed for good and will not come back by itself (the server closed
    // it with 1008 after an error such as "replaced", or a reconnect was refused): {code,
    // reason, error}, until reconnect()
    this.stopped = null;
    this.lastError = null; // the newest error message (the server sends one before a 1008)
  }

  static saved() {
    try { return JSON.parse(localStorage.getItem(STORE_KEY) || "null"); } catch (_) { return null; }
  }

  static forget() {
    localStorage.removeItem(STORE_KEY);
  }

  get connected() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN && this.you !== null;
  }

  on(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  emit(kind, data) {
    for (const fn of [...this.listeners]) {
      try { fn(kind, data); } catch (err) { console.error(err); }
    }
  }

  game(id) {
    let store = this.games.get(id);
    if (!store) {
      store = new GameStore(id);
      this.games.set(id, store);
    }
    return store;
  }

  /** Connect as a guest ({kind: "guest", name, token?}) or a bot ({kind: "bot", name, token}). */
  connect(identity) {
    if (this.connecting) return this.connecting;
    this.wantOpen = true;
    this.identity = identity;
    this.connecting = new Promise((resolve, reject) => {
      const ws = new WebSocket(wsUrl());
      this.ws = ws;
      let welcomed = false;
      ws.addEventListener("open", () => {
        // push_observations: the server sends our own view whenever it changes (no polling)
        const hello = { type: "hello", protocol: PROTOCOL, push_observations: true };
        if (identity.kind === "bot") {
          hello.bot = identity.name;
          hello.token = identity.token;
        } else if (identity.kind === "person") {
          hello.person = true; // the session cookie names the person (account.js)
        } else {
          hello.guest = identity.name;
          if (identity.token) hello.token = identity.token;
        }
        ws.send(JSON.stringify(hello));
      });
      ws.addEventListener("message", (frame) => {
        let msg;
        try { msg = JSON.parse(frame.data); } catch (_) { return; }
        if (msg.type === "welcome") {
          welcomed = true;
          this.retry = 0;
          this.you = msg.you;
          this.welcomeGames = msg.games || [];
          const saved = { kind: msg.you.kind, name: msg.you.name };
          if (msg.you.kind !== "person") saved.token = msg.you.kind === "guest" ? msg.you.resume_token : identity.token;
          const before = Session.saved();
          // a guest identity is kept aside when a person signs in: its games can still be claimed
          if (before && before.kind === "guest" && msg.you.kind !== "guest") localStorage.setItem("cardtable.guest", JSON.stringify(before));
          localStorage.setItem(STORE_KEY, JSON.stringify(saved));
          this.identity = saved;
          this.connecting = null;
          this.stopped = null;
          resolve(msg);
          this.emit("welcome", msg);
          return;
        }
        if (!welcomed && msg.type === "error") {
          // the hello was refused (a bad name, a wrong token...): the person's words, and the
          // code for whoever handles it (the English reason stays in msg for logs)
          this.wantOpen = false;
          this.connecting = null;
          const err = new Error(refusal(msg));
          err.code = msg.code;
          reject(err);
          return;
        }
        this.handle(msg);
      });
      ws.addEventListener("close", (ev) => {
        const wasOpen = welcomed;
        // (after a refused hello this changes nothing: its error message rejected already)
        if (!welcomed) reject(new Error(ev.reason ? refusal({ code: ev.reason, reason: ev.reason }) : t("web.table.lost_closed")));
        if (this.ws !== ws) return; // an older socket, closed after a newer one opened
        this.ws = null;
        this.you = null;
        this.connecting = null;
        // 1008: the server refused this connection (another tab took the identity, a flood):
        // no reconnect by itself, the page says so and offers reconnect()
        const retry = this.wantOpen && wasOpen && ev.code !== 1008;
        // the server's refusal: an error message, then the close with its code as the reason
        const error = ev.code === 1008 && this.lastError && this.lastError.code === ev.reason ? this.lastError : null;
        if (this.wantOpen && wasOpen && !retry) this.stopped = { code: ev.code, reason: refusal(error || { code: ev.reason, reason: ev.reason }), error: error && error.code };
        this.emit("closed", { code: ev.code, reason: ev.reason, retry, error });
        if (retry) this.reconnectLater();
      });
    });
    return this.connecting;
  }

  reconnectLater() {
    const delay = Math.min(8000, 500 * 2 ** this.retry++);
    setTimeout(() => {
      if (!this.wantOpen || this.ws) return;
      this.connect(this.identity).then((welcome) => {
        // take our seats back: events from where we are, the open requests again
        for (const id of welcome.games || []) this.resume(id);
      }).catch((err) => {
        if (this.wantOpen) { this.reconnectLater(); return; }
        // refused (the server answered with an error): no more tries by itself
        this.stopped = { code: null, reason: err.message, error: err.code || null };
        this.emit("closed", { code: null, reason: err.message, retry: false, error: err.code || null });
      });
    }, delay);
  }

  /** Connect again after the connection was closed for good (`stopped`) and resume our games. */
  reconnect() {
    this.stopped = null;
    const identity = this.identity || Session.saved();
    return this.connect(identity).then((welcome) => {
      for (const id of welcome.games || []) this.resume(id);
      return welcome;
    });
  }

  /** Give the seat to the house bot until resume(); its open requests go with it. */
  leave(gameId) {
    this.send({ type: "leave" });
    const store = this.game(gameId);
    store.left = true;
    store.requests.clear();
    store.version++;
    this.emit("game", store);
  }

  disconnect() {
    this.wantOpen = false;
    if (this.ws) this.ws.close(1000, "bye");
  }

  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
      throw new Error(this.stopped ? t("web.session.not_connected") : t("web.session.reconnecting"));
    }
    this.ws.send(JSON.stringify(message));
  }

  resume(gameId) {
    const store = this.game(gameId);
    store.takenOver = false;
    store.left = false;
    // requests from before are stale (the house bot may have answered them): the server
    // sends every request still open for the seat again
    store.requests.clear();
    store.version++;
    this.send({ type: "resume", game_id: gameId, since: store.lastIndex + 1 });
  }

  act(gameId, requestId, action) {
    const store = this.game(gameId);
    const req = store.requests.get(requestId);
    this.send({ type: "action", game_id: gameId, request_id: requestId, action });
    // the request is answered: it leaves the panel at once (a rejection says so if not)
    store.requests.delete(requestId);
    store.answered.set(requestId, this.ws);
    store.lastAction = { request: req, action };
    store.version++;
    this.emit("game", store);
  }

  handle(msg) {
    switch (msg.type) {
      case "table":
        // a rematch offered by a player of a game that just ended: we are not at that table yet
        if (msg.offer) { this.offers.set(msg.again, msg); this.emit("rematch_offer", msg); return; }
        this.waiting = msg;
        this.emit("table", msg);
        return;
      case "waiting":
        this.emit("waiting", msg);
        return;
      case "game_start": {
        const store = this.game(msg.game_id);
        store.start = msg;
        this.waiting = null;
        const isNew = this.current !== msg.game_id;
        this.current = msg.game_id;
        store.version++;
        this.emit("game_start", store);
        if (isNew) this.emit("game", store);
        return;
      }
      case "event": {
        const store = this.game(msg.game_id);
        if (!store.events.has(msg.index)) {
          store.events.set(msg.index, msg.event);
          store.lastIndex = Math.max(store.lastIndex, msg.index);
          store.version++;
          this.emit("event", { store, index: msg.index, event: msg.event });
          this.emit("game", store);
        }
        return;
      }
      case "request": {
        const store = this.game(msg.game_id);
        // a request sent again by a resume that crossed our answer on this same socket: the
        // server takes that answer next, so the panel must not come back (answered twice, the
        // second is refused); an answer sent on an older socket may be lost: ask again
        if (store.answered.get(msg.request_id) === this.ws) return;
        msg.receivedAt = performance.now();
        store.requests.set(msg.request_id, msg);
        store.requestObs = { observation: msg.observation, lastIndex: store.lastIndex, at: msg.receivedAt };
        store.version++;
        this.emit("game", store);
        return;
      }
      case "observation": {
        // our own view, pushed after a change: the newest base for the board, like a request's
        const store = this.game(msg.game_id);
        store.requestObs = { observation: msg.observation, lastIndex: store.lastIndex, at: performance.now() };
        store.version++;
        this.emit("game", store);
        return;
      }
      case "cancel": {
        const store = this.game(msg.game_id || this.current);
        store.requests.delete(msg.request_id);
        store.version++;
        this.emit("game", store);
        return;
      }
      case "rejected": {
        const store = this.game(msg.game_id || this.current);
        store.requests.delete(msg.request_id);
        store.rejections.push({ code: msg.code, reason: msg.reason, rule: msg.rule, args: msg.args, at: Date.now() });
        store.version++;
        this.emit("rejected", { store, message: msg });
        this.emit("game", store);
        return;
      }
      case "game_end": {
        const store = this.game(msg.game_id);
        store.end = msg;
        store.requests.clear();
        store.version++;
        this.emit("game", store);
        return;
      }
      case "chat": {
        // table chat (chat.js draws it); a resume sends the lines so far again
        const store = this.game(msg.game_id);
        if (!store.chat.some((m) => m.id === msg.id)) store.chat.push(msg);
        this.emit("chat", { store, message: msg });
        return;
      }
      case "error": {
        this.lastError = { code: msg.code, reason: msg.reason, args: msg.args };
        if (msg.code === "taken_over" && this.current) {
          const store = this.game(this.current);
          store.takenOver = true;
          store.notices.push(refusal(msg));
          store.version++;
          this.emit("game", store);
        }
        this.emit("error", msg);
        return;
      }
      default:
        this.emit(msg.type, msg);
    }
  }
}

/** The one session of this tab. */
export const session = new Session();
