// The seat page (/table/{id}) and the spectator page (/watch/{id}).
//
// Both draw the same board. The seat's page gets its own observation pushed by the server after
// every change (hello with push_observations) and with every request, and its own events over
// the session's WebSocket; GET /api/tables/{id}/public (public information only) is read at the
// start and every few seconds for who holds each seat. The spectator's page says hello as a
// spectator (with push_observations: the public view), so its stream never carries a private
// event, and it never asks for a seat's view.

import { playAgain } from "./account.js";
import { h, clear, getJSON, toast, seconds, morph, materialize } from "./dom.js";
import { session, Session, GameStore, wsUrl } from "./session.js";
import { describe } from "./describe.js";
import { t } from "./i18n.js";
import { refusal } from "./errors.js";
import { gameTitle } from "./names.js";
import * as KH from "./kuhhandel.js";
import * as CU from "./cunegonda.js";
import { chatPanel, CHAT_ERRORS } from "./chat.js";

const LOG_LINES = 300;
const TITLE = "cardtable";
const yourTurnTitle = () => `● ${t("web.table.your_turn_title")} — cardtable`;
/** How long a note about a timeout stays on the table. */
const NOTICE_MS = 12000;
const SOUND_KEY = "cardtable.sound";
const AUTO_PASS_KEY = "cardtable.autopass";

/** A short beep (WebAudio, no sound file) when a decision arrives, if the person turned it on. */
let audio = null;
function beep() {
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = 740;
    gain.gain.setValueAtTime(0.0001, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.15, audio.currentTime + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.18);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.2);
  } catch (_) { /* no audio on this browser: the title and the panel still say it */ }
}

/** The auction a bid request belongs to (the turn and the card on sale). */
function auctionKey(msg) {
  const obs = msg.observation || {};
  return `${obs.turns}:${msg.request.info ? msg.request.info.card : ""}`;
}
/** How often a table page re-reads who holds each seat (the board itself is pushed). */
const HOLDERS_MS = 3000;

function gameModule(game) { return game === "cunegonda" ? CU : KH; }

/**
 * Fetches the public view at most every `gap` ms, always once more after the last call; hands
 * on only a view that differs from the last one handed on (the poll of who holds each seat reads
 * the same view every few seconds while a person thinks: a redraw each time was the idle table's
 * only frame besides its clock's).
 */
function publicFetcher(gameId, onView, gap = 120) {
  let timer = null;
  let running = false;
  let again = false;
  let stopped = false;
  let last = null; // the text of the last view handed on: the same view again draws nothing
  const run = async () => {
    timer = null;
    if (running) { again = true; return; }
    running = true;
    const startedAt = performance.now();
    try {
      const view = await getJSON(`/api/tables/${encodeURIComponent(gameId)}/public`);
      const text = JSON.stringify(view);
      if (!stopped && text !== last) { last = text; onView(view, startedAt); }
    } catch (_) {
      // the game ended (404) or the network hiccuped: the events still tell the story
    } finally {
      running = false;
      if (again && !stopped) { again = false; schedule(); }
    }
  };
  const schedule = () => { if (!timer && !stopped) timer = setTimeout(run, gap); };
  return { schedule, now: run, stop: () => { stopped = true; clearTimeout(timer); } };
}

/**
 * At most one draw a frame: the messages that arrive between two frames (an event and the view
 * it leads to, a house bot's burst) are drawn once, in the frame's own layout; a hidden tab
 * (no frames) still draws, within 100 ms. `soon()` asks for a draw, `cancel()` (at the start of
 * a draw) forgets the one asked for.
 */
function drawScheduler(draw) {
  let frame = null;
  let timer = null;
  const cancel = () => {
    if (frame !== null) cancelAnimationFrame(frame);
    if (timer !== null) clearTimeout(timer);
    frame = null;
    timer = null;
  };
  const soon = () => {
    if (timer !== null) return;
    frame = requestAnimationFrame(draw);
    timer = setTimeout(draw, 100);
  };
  return { soon, cancel };
}

function logLine([text, cls]) {
  return h("li", { class: cls || "" }, suitColoured(text));
}

/**
 * The log in `box`. `stick()` says whether the newest line is in view (as the list's last scroll
 * left it: ask it first in a draw, before anything is written);
 * `show(lines, stick)` appends the lines that are new since the last call (the list is built again
 * only when an earlier line changed: an event that came late, after a reconnect) and, with
 * `stick`, scrolls the newest into view. Nothing new: nothing is touched. Lines are compared by
 * identity (eventLines keeps one array per event).
 */
function logView(box) {
  let list = null;
  let shown = [];
  // whether the newest line is in view, as the last scroll (the person's or ours) left it: read
  // when the list scrolls, not in a draw, where a layout made dirty since the last frame (a note
  // landed, a clock ticked) would have to be done first (issue 37: a ninth of the page's script)
  let atEnd = true;
  const follow = (el) => el.addEventListener("scroll", () => {
    atEnd = el.scrollTop + el.clientHeight >= el.scrollHeight - 20;
  }, { passive: true });
  return {
    stick: () => atEnd,
    show(lines, stick) {
      const grows = list && lines.length >= shown.length && (!shown.length || lines[shown.length - 1] === shown[shown.length - 1]);
      if (grows && lines.length === shown.length) return;
      if (grows) {
        list.append(...lines.slice(Math.max(shown.length, lines.length - LOG_LINES)).map(logLine));
        while (list.childElementCount > LOG_LINES) list.firstElementChild.remove();
      } else {
        // the log region is the list's box (.log-box, role=log): a list keeps its list role
        const fresh = h("ol", { class: "log", tabindex: "0", "aria-label": t("web.table.log_label") }, lines.slice(-LOG_LINES).map(logLine));
        if (list) list.replaceWith(fresh);
        else box.appendChild(fresh);
        list = fresh;
        follow(list);
      }
      shown = lines;
      if (stick) list.scrollTop = list.scrollHeight;
    },
  };
}

/**
 * The board in `box`: `show(board, {patch, result, keep, slot})` puts a board just built in; with
 * `patch` (the game module's PATCH_BOARD) the one in the page is patched to match (dom.js morph:
 * only what changed is laid out again, motion under way goes on), otherwise it is replaced.
 * `result` (the end's panel) goes above.
 *
 * `keep` (the Cunegonda hand with its controls) goes where the board has `slot` (an empty child
 * of the board's root) and then never leaves the page: a replaced board is replaced around it.
 * Chrome drops a click whose button left the page between the press and the release, even if it
 * came back at once, so a hand moved into each new board lost the clicks that a draw (a frame,
 * a public view arriving) fell into: on a loaded CI machine a pass panel was clicked 67 times
 * and sent nothing (tests/web/test_cunegonda_clicks.py).
 */
function boardView(box) {
  let board = null;
  return function show(fresh, { patch = false, result = null, keep = null, slot = null } = {}) {
    const kept = keep && board && board.parentNode === box && keep.parentNode === board;
    if (patch && board && board.parentNode === box) board = morph(board, fresh);
    else if (kept && slot && slot.parentNode === fresh) {
      for (const child of [...board.childNodes]) if (child !== keep) child.remove();
      for (const { name } of [...board.attributes]) if (!fresh.hasAttribute(name)) board.removeAttribute(name);
      for (const { name, value } of fresh.attributes) board.setAttribute(name, value);
      const children = [...fresh.childNodes];
      const at = children.indexOf(slot);
      keep.before(...children.slice(0, at));
      keep.after(...children.slice(at + 1));
    } else {
      if (kept) box.after(keep); // a board without a slot: the hand waits below it
      clear(box).appendChild(materialize(fresh));
      board = fresh;
      if (keep && slot && slot.parentNode === fresh) slot.replaceWith(keep);
    }
    const old = box.querySelector(":scope > .result");
    if (old) old.remove();
    if (result) box.prepend(result);
  };
}

const SUIT_OF_SYMBOL = { "\u2663": "C", "\u2666": "D", "\u2665": "H", "\u2660": "S" };

/** A log line with its suit symbols in the suit's colour, as on the card faces (text stays text). */
function suitColoured(text) {
  if (!/[\u2660-\u2666]/.test(text)) return text;
  return text.split(/([\u2663\u2666\u2665\u2660])/).map((part) => (SUIT_OF_SYMBOL[part]
    ? h("span", { class: `suit-sym suit-${SUIT_OF_SYMBOL[part]}` }, part) : part));
}

const HEAD_KINDS = new Set(["draw", "challenge", "round_start", "countdown", "rat", "divide", "end", "match_end", "round_end"]);
/** Each event's log line, described once (an event never changes; a page's names neither). */
const LINE_OF = new WeakMap();

function eventLines(game, events, names) {
  const out = [];
  for (const [, ev] of events) {
    let line = LINE_OF.get(ev);
    if (line === undefined) {
      const text = describe(game, ev, names);
      line = text ? [text, text.startsWith("(") ? "private" : HEAD_KINDS.has(ev.kind) ? "head" : ""] : null;
      LINE_OF.set(ev, line);
    }
    if (line) out.push(line);
  }
  return out;
}

// the title names the rule set with the server's one name (names.js), from the public view
function titleOf(start, view) {
  return gameTitle(start, view && view.rules_label);
}

/** What the house bot did for `me` after event `index`, in words. */
function houseMove(start, events, index, names, me) {
  for (const [i, ev] of events) {
    if (i <= index) continue;
    const d = ev.data || {};
    const mine = d.seat === me || d.from === me;
    if (!mine) continue;
    if (ev.kind === "pass") return start.game === "kuhhandel" ? t("web.table.house_passed") : describe(start.game, ev, names);
    const text = describe(start.game, ev, names);
    if (text) return text.replace(/\.$/, "") + ".";
  }
  return t("web.table.house_moved");
}

function endTitle(result, me) {
  if (!result) return t("web.table.game_over");
  if (result.termination === "aborted") return t("web.table.stopped");
  if (me === null || me === undefined) return t("web.table.game_over");
  const place = result.places[me];
  const shared = result.places.filter((p) => p === place).length > 1;
  if (place === 0) return shared ? t("web.table.you_share_first") : t("web.table.you_win");
  return t("web.table.you_finished", { place: place + 1, shared: String(shared) });
}

// ---------------------------------------------------------------- the seat

export function renderSeat(main, gameId, navigate) {
  let againButton = null; // account.js: "play again" (kept across redraws)
  const cleanups = [];
  let store = session.games.get(gameId);
  let publicView = null; // {view, startedAt}
  let shownRequests = "";
  let auctionActivity = performance.now();
  let lastRejection = 0;
  let headMode = "";
  const statusEl = h("p", { class: "status", "aria-live": "polite" });
  const memory = {}; // what the board showed last (so what changed is animated)
  const timeouts = []; // {at, index}: decisions the house bot answered for this seat
  const autoAnswered = new Set(); // request ids the page passed for this seat
  let soundOn = localStorage.getItem(SOUND_KEY) === "1";
  let lastDecision = "";

  const head = h("div", { class: "table-head" });
  const messages = h("div", { class: "messages", role: "alert" });
  const boardBox = h("div", { class: "board-col" });
  const actionsBox = h("div", { class: "actions", role: "region", "aria-label": t("web.table.decisions_label") });
  const autoBox = h("div", { class: "auto-note", "aria-live": "polite" });
  const clockEl = h("div", { class: "clock", role: "timer", "aria-label": t("web.table.clock_label"), hidden: true });
  const handBox = h("div", { class: "hand-box" });
  const barBox = h("div", { class: "bar-box" }); // the board in one line above the decision (phones)
  const decisionBox = h("div", { class: "decision" }, barBox, clockEl, autoBox, actionsBox);
  const logBox = h("div", { class: "log-box", role: "log" }, h("h2", {}, t("web.table.log")));
  const showBoard = boardView(boardBox);
  const log = logView(logBox);
  const chat = chatPanel(gameId); // table chat (chat.js): shown when this seat has chat
  cleanups.push(chat.stop);
  clear(main).appendChild(h("section", { class: "table-page" }, head, messages,
    h("div", { class: "layout" }, h("div", { class: "main-col" }, boardBox, handBox), h("div", { class: "side-col" }, decisionBox, chat.el, logBox))));

  const fetcher = publicFetcher(gameId, (view, startedAt) => {
    publicView = { view, startedAt };
    drawSoon();
    if (store && store.end) fetcher.stop();
  });
  cleanups.push(() => fetcher.stop());

  const waitFor = (text, links = true) => {
    headMode = "";
    clear(head).appendChild(h("h1", {}, t("web.title.table")));
    clear(boardBox).appendChild(h("div", { class: "panel" }, h("p", {}, text),
      links ? h("p", {}, h("a", { href: `/watch/${gameId}` }, t("web.table.watch_this")), " · ",
        h("a", { href: `/replay/${gameId}` }, t("web.table.its_replay")), " · ", h("a", { href: "/" }, t("web.table.the_lobby"))) : null));
  };

  // own private state: the latest request's observation plus the events since
  function privateState(mod, start) {
    const me = start.seat;
    const base = store.requestObs;
    const events = store.sortedEvents();
    if (start.game === "cunegonda") {
      let hand = base ? base.observation.hand : [];
      for (const [i, ev] of events) if (!base || i > base.lastIndex) hand = CU.trackHand(hand, ev, me);
      return { hand };
    }
    let wallet = base ? base.observation.wallet : KH.startWallet(start.rules);
    for (const [i, ev] of events) if (!base || i > base.lastIndex) wallet = KH.trackWallet(wallet, ev, me);
    return { wallet };
  }

  function currentObs(start, priv) {
    const req = store.requestObs;
    const pub = publicView && publicView.view;
    // the seat's own view only: pushed by the server at every change and with every request.
    // The public view (read for who holds each seat) is a spectator's, as late as the table's
    // spectator delay: it stands in only until the first own view arrives, at a table with no
    // delay (issue 37: the board went back in time while the person decided)
    let obs;
    if (req) obs = { ...req.observation };
    else if (pub && !start.spectator_delay_ms) obs = { ...pub.observation };
    else return null;
    obs.seat = start.seat;
    if (start.game === "cunegonda") obs.hand = priv.hand;
    else obs.wallet = priv.wallet;
    return obs;
  }

  function auctionClock(start, obs) {
    if (start.game !== "kuhhandel" || !obs || !obs.auction || obs.stage !== "bid") return null;
    if (start.rules.auction_style !== "open") return null;
    const quiet = (publicView && publicView.view.quiet_ms) || 5000;
    const left = quiet - (performance.now() - auctionActivity);
    if (left <= 0) return t("web.table.sold");
    if (left < quiet / 3) return t("web.table.going_twice_in", { time: seconds(left) });
    if (left < (2 * quiet) / 3) return t("web.table.going_once_in", { time: seconds(left) });
    return t("web.table.bidding_open_in", { time: seconds(left) });
  }

  const goingEl = h("div", { class: "going-line", role: "status" });

  // The clock is written when what it shows changes, not polled: the next tick is at the next
  // whole second of what is left (seconds() rounds up), or in 250 ms while an open auction's
  // "going once" line shows; no tick at all while no clock shows (a draw calls tick()).
  let ticker = null;
  let ticking = true; // false once the page left the table (a late draw starts no clock)
  function tick() {
    clearTimeout(ticker);
    ticker = null;
    if (!ticking || !store || !store.start) return;
    let next = Infinity;
    const open = [...store.requests.values()];
    const primary = open.find((r) => !r.optional);
    if (primary) {
      const spent = performance.now() - primary.receivedAt;
      const left = primary.deadline_ms - spent;
      const bank = primary.time_bank_ms + Math.min(0, left);
      const shown = left > 0 ? left : bank;
      if (shown > 0) next = shown % 1000 || 1000;
      const cls = `clock${left < 10000 ? " low" : ""}${left <= 0 ? " bank" : ""}`;
      const text = left > 0
        ? t("web.table.clock", { time: seconds(left), bank: seconds(primary.time_bank_ms) })
        : t("web.table.clock_bank", { time: seconds(bank) });
      // written only when it changes: a write lays the page out again at the next frame
      if (clockEl.hidden) clockEl.hidden = false;
      if (clockEl.className !== cls) clockEl.className = cls;
      if (clockEl.textContent !== text) clockEl.textContent = text;
    } else if (!clockEl.hidden) {
      clockEl.hidden = true;
    }
    // the auction clock reads the stage only: no wallet is tracked four times a second
    const going = store.start.game === "kuhhandel" && store.start.rules.auction_style === "open"
      ? auctionClock(store.start, currentObs(store.start, {})) : null;
    if (goingEl.hidden !== !going) goingEl.hidden = !going;
    if (goingEl.textContent !== (going || "")) goingEl.textContent = going || "";
    const inBoard = going && boardBox.querySelector(".going");
    if (inBoard && inBoard.textContent !== going) inBoard.textContent = going;
    if (going) next = Math.min(next, 250);
    // a few ms late, so that the seconds shown have changed when it fires
    if (next < Infinity) ticker = setTimeout(tick, next + 5);
  }
  cleanups.push(() => { ticking = false; clearTimeout(ticker); });

  function send(requestId, action) {
    // passes in one auction, counted: asked again after a pass, the bid panel points at "I'm out"
    const asked = store.requests.get(requestId);
    if (asked && asked.request.kind === "bid" && action.kind === "pass") {
      store.passes = store.passes || {};
      const key = auctionKey(asked);
      store.passes[key] = (store.passes[key] || 0) + 1;
    }
    try {
      session.act(gameId, requestId, action);
      if (store.start.game === "kuhhandel" && action.kind === "offer") store.myOffer = action.notes;
    } catch (err) {
      toast(err.message, "error");
    }
    draw(); // the answered panel goes at once, so it can never be answered twice
  }

  // Messages come in bursts (a house bot's turn is a dozen events): one redraw per burst.
  const drawing = drawScheduler(() => draw());
  const drawSoon = drawing.soon;
  cleanups.push(drawing.cancel);
  // drawn again at a new size (a phone turned): a trick gathered on its winner's card is
  // placed in pixels, and at the old size it lay off the board (the page scrolled sideways)
  window.addEventListener("resize", drawSoon);
  cleanups.push(() => window.removeEventListener("resize", drawSoon));

  /** A decision waits for this seat (an open auction's standing offer to bid does not count). */
  function mustDecide() {
    return !store.end && [...store.requests.values()].some((r) => !r.optional && !autoAnswered.has(r.request_id) && !autoPassReason(r));
  }

  // ---- dropping out of an auction, and passing where nothing else makes sense

  function autoPassReason(msg) {
    const req = msg.request;
    if (req.kind !== "bid" || !store.start || store.start.game !== "kuhhandel") return null;
    if (store.start.rules.auction_style === "open") return null;
    const info = req.info || {};
    if (store.outOf && store.outOf === auctionKey(msg)) return "out";
    if (info.max !== null && info.max !== undefined && info.max < info.min) return "capped";
    if (localStorage.getItem(AUTO_PASS_KEY) !== "0" && info.min > info.money) return "poor";
    return null;
  }

  function autoPass(msg) {
    if (autoAnswered.has(msg.request_id)) return;
    autoAnswered.add(msg.request_id);
    const why = autoPassReason(msg);
    const info = msg.request.info || {};
    if (why === "poor") store.autoNote = { key: auctionKey(msg), text: t("web.table.auto_poor", { min: info.min, money: info.money }) };
    if (why === "capped") store.autoNote = { key: auctionKey(msg), text: t("web.table.auto_capped", { min: info.min }) };
    // a moment later, so the person sees the request come and go
    setTimeout(() => {
      if (store.requests.has(msg.request_id) && autoPassReason(msg)) send(msg.request_id, { kind: "pass" });
      else { autoAnswered.delete(msg.request_id); shownRequests = ""; drawSoon(); }
    }, 300);
  }

  function dropOut(msg) {
    store.outOf = auctionKey(msg);
    autoAnswered.add(msg.request_id);
    send(msg.request_id, { kind: "pass" });
  }

  let autoShown = null; // what the auto note shows ("" nothing, null not drawn yet): drawn again when it changes
  function drawAutoNote(obs) {
    const key = obs && obs.auction && obs.stage === "bid" ? `${obs.turns}:${obs.auction.card}` : null;
    const out = Boolean(store.outOf && key === store.outOf);
    const note = !out && store.autoNote && key === store.autoNote.key ? store.autoNote.text : null;
    const shown = out ? `out ${key}` : note === null ? "" : `note ${note}`;
    if (shown === autoShown) return; // (every draw of an auction the person left: its buttons stay put)
    autoShown = shown;
    clear(autoBox);
    if (out) {
      autoBox.appendChild(h("p", { class: "auto" }, t("web.table.out_note"), " ",
        h("button", { type: "button", "data-undo-out": "1", onclick: () => { store.outOf = null; shownRequests = ""; draw(); } }, t("web.table.undo_out"))));
    } else if (store.autoNote && key === store.autoNote.key) {
      autoBox.appendChild(h("p", { class: "auto" }, store.autoNote.text, " ",
        h("button", { type: "button", onclick: () => { localStorage.setItem(AUTO_PASS_KEY, "0"); store.autoNote = null; draw(); } }, t("web.table.always_ask"))));
    }
    if (autoBox.hidden !== !autoBox.firstChild) autoBox.hidden = !autoBox.firstChild;
  }

  /**
   * The connection was closed for good (another tab of this browser took the seat, or the
   * server refused a reconnect): say so, and reconnect (and resume the seat) on a click.
   */
  function lostNotice() {
    const replaced = session.stopped.error === "replaced";
    const why = replaced ? t("web.table.lost_replaced") : t("web.table.lost_closed");
    const again = h("button", { type: "button", class: "primary", "data-reconnect": "1" }, replaced ? t("web.table.play_here") : t("web.table.reconnect"));
    again.addEventListener("click", () => {
      again.disabled = true;
      session.reconnect().then((welcome) => {
        if ((welcome.games || []).includes(gameId)) { session.current = gameId; draw(); return; }
        // the game ended meanwhile (or the seat was handed on): nothing here to answer any more
        store.requests.clear();
        waitFor(t("web.table.no_longer_waits"));
      })
        .catch((err) => { toast(t("web.table.could_not_reconnect", { error: err.message }), "error"); draw(); });
    });
    return h("div", { class: "error connection-lost" },
      h("p", {}, h("strong", {}, t("web.table.not_connected")), " ", t("web.table.not_connected_why", { why })),
      again);
  }

  function draw() {
    drawing.cancel();
    const stick = log.stick(); // asked before any write
    store = session.games.get(gameId);
    if (!store || !store.start) {
      if (!session.connected) waitFor(t("web.table.connecting"), false);
      else waitFor(t("web.table.waiting_start"));
      return;
    }
    const start = store.start;
    const mod = gameModule(start.game);
    const names = start.names;
    const me = start.seat;
    const priv = privateState(mod, start);
    const obs = currentObs(start, priv);

    // head: rebuilt only when what can be done changes, so its buttons stay put under the
    // pointer while events stream in (a replaced button would swallow the click)
    const away = store.takenOver || store.left;
    const mode = (store.end ? "end" : away ? "away" : "seat") + (publicView ? publicView.view.rules_label : "");
    if (mode !== headMode) {
      headMode = mode;
      const buttons = [];
      if (mode.startsWith("away")) {
        buttons.push(h("button", { type: "button", class: "primary", onclick: () => {
          try { session.resume(gameId); } catch (err) { toast(err.message, "error"); }
          draw();
        } }, t("web.table.take_seat_back")));
      } else if (mode.startsWith("seat")) {
        buttons.push(h("button", {
          type: "button", onclick: () => {
            if (!confirm(t("web.table.leave_confirm"))) return;
            try { session.leave(gameId); } catch (err) { toast(err.message, "error"); }
          },
        }, t("web.table.leave")));
      }
      const sound = h("button", {
        type: "button", class: "sound", "aria-pressed": String(soundOn),
        title: t("web.table.sound_title"),
      }, soundOn ? t("web.table.sound_on") : t("web.table.sound_off"));
      sound.addEventListener("click", () => {
        soundOn = !soundOn;
        localStorage.setItem(SOUND_KEY, soundOn ? "1" : "0");
        sound.setAttribute("aria-pressed", String(soundOn));
        sound.textContent = soundOn ? t("web.table.sound_on") : t("web.table.sound_off");
        if (soundOn) beep();
      });
      const hadFocus = head.contains(document.activeElement);
      clear(head).append(h("h1", {}, titleOf(start, publicView && publicView.view)), statusEl, goingEl,
        // after the end there is nothing to watch (the replay is linked with the result)
        h("div", { class: "row" }, buttons, mode.startsWith("end") ? null : sound, mode.startsWith("end") ? null : h("a", { href: `/watch/${gameId}`, class: "small", target: "_blank", rel: "noopener", title: t("web.table.spectator_title") }, t("web.table.spectator_view"))));
      if (hadFocus && buttons.length) buttons[0].focus({ preventScroll: true });
    }
    const status = store.end ? t("web.table.over")
      : away ? t("web.table.away") : mod.statusLine(obs, names, me);
    if (statusEl.textContent !== status) statusEl.textContent = status; // (a write lays it out again)

    // messages: what the house bot did for this seat, refusals, notices; each goes away
    clear(messages);
    const now = Date.now();
    const sorted = store.sortedEvents();
    for (const tm of timeouts) {
      if (now - tm.at > NOTICE_MS) continue;
      messages.appendChild(h("p", { class: "warn timeout" }, t("web.table.timeout_move", { move: houseMove(start, sorted, tm.index, names, me) })));
    }
    for (const r of store.rejections.slice(-2)) {
      if (r.code === "timeout" || now - r.at > NOTICE_MS) continue;
      messages.appendChild(h("p", { class: "error" }, t("web.table.not_accepted", { why: refusal(r) })));
    }
    // the server's reason names the game by its id: the page says it in words
    if (away && store.takenOver && store.notices.length) messages.appendChild(h("p", { class: "warn" }, t("web.table.taken_over")));
    if (session.stopped && !store.end) messages.appendChild(lostNotice());
    if (store.rejections.length > lastRejection) {
      lastRejection = store.rejections.length;
      const r = store.rejections[store.rejections.length - 1];
      if (r.code === "timeout") {
        timeouts.push({ at: r.at, index: store.lastIndex });
        toast(t("web.table.timeout_toast"), "error");
      } else {
        toast(refusal(r), "error");
      }
      setTimeout(drawSoon, NOTICE_MS + 50);
    }

    // board
    const seatsInfo = publicView ? publicView.view.seats : null;
    let board = h("p", { class: "muted" }, t("web.table.begins"));
    let handSlot = null;
    if (obs) {
      const ctx = {
        names, pages: start.pages, me, rules: start.rules, wallet: priv.wallet, hand: priv.hand, seats: seatsInfo,
        // the hand goes into the board's slot once and stays in the page (boardView)
        revealed: null, clock: auctionClock(start, obs), handSlot: start.game === "cunegonda" ? h("div", { class: "hand-slot" }) : null,
        events: sorted, memory, yourTurn: mustDecide(),
      };
      if (start.game === "kuhhandel" && store.end) {
        const last = [...store.events.values()].reverse().find((e) => e.kind === "wallets");
        if (last) ctx.revealed = last.data.wallets;
      }
      board = mod.renderBoard(obs, ctx);
      handSlot = ctx.handSlot;
    }
    let result = null;
    if (store.end) {
      const res = store.end.result;
      result = h("section", { class: "panel result", "aria-label": t("web.table.result") },
        h("h2", {}, endTitle(res, me)),
        // what to do next first (a rematch offered by the other is seen without scrolling)
        h("p", { class: "row" }, againButton || (againButton = playAgain(gameId, start, navigate)), h("a", { class: againButton ? "button" : "button primary", href: "/" }, againButton ? t("web.page.back_to_lobby") : t("web.table.play_again_lobby")), h("a", { class: "button", href: `/replay/${gameId}` }, t("web.table.watch_replay"))),
        start.game === "kuhhandel" ? KH.scoreBoard(res, obs, start.rules, names, me, start.pages) : CU.roundTable(res, obs, sorted, names, me, start.pages));
    }
    showBoard(board, { patch: !!obs && mod.PATCH_BOARD, result, keep: handBox, slot: handSlot });
    const bar = start.game === "kuhhandel" && obs && !store.end ? KH.boardBar(obs, { names, rules: start.rules, me, memory }) : null;
    const shownBar = barBox.firstElementChild;
    if (!bar) clear(barBox);
    else if (shownBar) morph(shownBar, bar);
    else barBox.appendChild(materialize(bar));

    // actions: rebuilt only when the open requests change (a half-filled picker survives)
    const open = [...store.requests.values()];
    // focus() lays the page out at once: done after the log's read of its height, which lays it
    // out anyway, else a draw with a new panel laid the page out twice (all of it, then the log)
    let focusTarget = null;
    const key = open.map((r) => r.request_id).join(",") + (store.end ? "end" : "");
    if (key !== shownRequests) {
      shownRequests = key;
      clear(actionsBox);
      clear(handBox);
      const ctx = { names, me, rules: start.rules, wallet: priv.wallet, hand: priv.hand, obs, dropOut,
        passesIn: (msg) => (store.passes && store.passes[auctionKey(msg)]) || 0 };
      if (open.length && !store.end && open.map((r) => r.request_id).join(",") !== lastDecision) {
        lastDecision = open.map((r) => r.request_id).join(",");
        if (soundOn && open.some((r) => !r.optional && !autoAnswered.has(r.request_id) && !autoPassReason(r))) beep();
      }
      if (start.game === "cunegonda") {
        const req = open[0] || null;
        if (req || !store.end) handBox.appendChild(CU.handPanel(req, ctx, (action) => send(req.request_id, action)));
        if (!req && !store.end) actionsBox.appendChild(h("p", { class: "muted waiting" }, t("web.table.nothing_to_decide")));
      } else {
        for (const req of open) {
          const why = autoPassReason(req);
          if (why) { autoPass(req); continue; }
          actionsBox.appendChild(KH.actionPanel(req, ctx, (action) => send(req.request_id, action)));
        }
        if (!open.length && !store.end) actionsBox.appendChild(h("p", { class: "muted waiting" }, t("web.table.nothing_to_decide")));
      }
      if (open.length) {
        const box = start.game === "cunegonda" ? handBox : actionsBox;
        const target = box.querySelector("[data-focus]") || box.querySelector("button:not([disabled]), input");
        const active = document.activeElement;
        if (target && (!active || active === document.body || active === main || !main.contains(active) || active.closest(".actions, .hand-box") || active.tagName === "BUTTON")) {
          focusTarget = target; // focused once everything is written (below)
        }
      }
    } else if (start.game === "cunegonda" && !open.length) {
      // the hand changes without a request (passes arrive, cards are played)
      clear(handBox);
      if (!store.end) handBox.appendChild(CU.handPanel(null, { names, hand: priv.hand }, () => {}));
    }

    // deciding: the decision (with the board's line) stays in view while the board scrolls
    decisionBox.classList.toggle("deciding", open.length > 0 && !store.end);
    drawAutoNote(obs);
    const title = mustDecide() ? yourTurnTitle() : `${titleOf(start, publicView && publicView.view)} — ${TITLE}`;
    if (document.title !== title) document.title = title;

    log.show(eventLines(start.game, sorted, names), stick);
    if (focusTarget && focusTarget.isConnected) focusTarget.focus({ preventScroll: true });
    // motion last: it reads the new layout once (laid out by the log's scroll), then writes
    if (obs) mod.afterDraw(boardBox, memory, sorted);
    tick();
  }

  cleanups.push(session.on((kind, data) => {
    if (kind === "event" && data.store.id === gameId) {
      if (["bid", "pass", "auction", "exposed"].includes(data.event.kind)) auctionActivity = performance.now();
    }
    if (kind === "game" && data.id === gameId) {
      // the table is gone once the game is over: its public view would answer 404
      if (data.end) fetcher.stop();
      drawSoon();
    }
    if (kind === "game" && data.id !== gameId && data.start && !data.end && session.current === data.id) {
      navigate(`/table/${data.id}`);
    }
    // a welcome after a dropped connection: the session resumes every running game itself
    if (kind === "welcome") draw();
    if (kind === "closed") {
      // closed for good (no retry): the notice above the board says so and offers a button
      if (data.retry) toast(t("web.table.dropped"), "error");
      draw();
    }
    // "replaced" is said by the notice of the closed connection that follows it
    // a refused chat line is said in the chat box (chat.js), not in a toast
    if (kind === "error" && data.code !== "taken_over" && data.code !== "replaced" && !CHAT_ERRORS.has(data.code)) toast(refusal(data), "error");
  }));

  // arrive: connected already (from the lobby), or a reload (say hello again and resume)
  if (!session.connected) {
    const saved = Session.saved();
    if (!saved) {
      waitFor(t("web.table.not_signed_in"));
    } else {
      waitFor(t("web.table.connecting"), false);
      session.connect(saved).then((welcome) => {
        if ((welcome.games || []).includes(gameId)) {
          session.current = gameId;
          session.resume(gameId);
        } else if (!session.games.get(gameId)) {
          waitFor(t("web.table.no_seat"));
        }
      }).catch((err) => waitFor(t("web.table.could_not_connect", { error: err.message })));
    }
  } else if (!store && session.welcomeGames.includes(gameId)) {
    session.current = gameId;
    session.resume(gameId);
  }
  draw();
  fetcher.now();
  // the observation is pushed; only who holds each seat (away, house bot) is read now and then,
  // while the page is in view (a hidden tab reads it again within HOLDERS_MS of being seen)
  const holders = setInterval(() => { if (!(store && store.end) && !document.hidden) fetcher.now(); }, HOLDERS_MS);
  cleanups.push(() => clearInterval(holders));
  return () => cleanups.forEach((f) => f());
}

// ---------------------------------------------------------------- the spectator

export function renderWatch(main, gameId) {
  const store = new GameStore(gameId); // its events, kept in order (session.js)
  const events = store.events;
  let lastClock = null; // the open auction's words last drawn
  let start = null;
  let end = null;
  let view = null;
  let closed = false;
  let auctionActivity = performance.now();
  const memory = {};
  const head = h("div", { class: "table-head" }, h("h1", {}, t("web.watch.watching")));
  const boardBox = h("div", { class: "board-col" });
  const logBox = h("div", { class: "log-box", role: "log" }, h("h2", {}, t("web.table.log")));
  const showBoard = boardView(boardBox);
  const log = logView(logBox);
  clear(main).appendChild(h("section", { class: "table-page spectator" }, head,
    h("div", { class: "layout" }, h("div", { class: "main-col" }, boardBox), h("div", { class: "side-col" }, logBox))));

  // one redraw per burst of messages
  const drawing = drawScheduler(() => draw());
  const drawSoon = drawing.soon;
  let pushedAt = 0;
  const fetcher = publicFetcher(gameId, (v, startedAt) => {
    // a view pushed while this read was under way is newer than the one read
    view = view && pushedAt > startedAt ? { ...v, observation: view.observation } : v;
    drawSoon();
  });

  /** The open auction's words for spectators ("Going once…"), or null. */
  function watchClock() {
    const obs = view ? view.observation : null;
    if (!start || start.game !== "kuhhandel" || !obs || obs.stage !== "bid" || start.rules.auction_style !== "open") return null;
    const quiet = view.quiet_ms;
    const left = quiet - (performance.now() - auctionActivity);
    return left <= 0 ? t("web.table.sold") : left < quiet / 3 ? t("web.table.going_twice") : left < (2 * quiet) / 3 ? t("web.table.going_once") : t("web.table.bidding_open");
  }

  function draw() {
    drawing.cancel();
    if (!start) return;
    const stick = log.stick(); // read before any write
    const mod = gameModule(start.game);
    const names = start.names;
    const obs = view ? view.observation : null;
    const clock = watchClock();
    lastClock = clock;
    // the head patched (dom.js morph): its words change a few times a game, not at each event
    morph(head, h("div", { class: "table-head" }, h("h1", {}, t("web.watch.title", { title: titleOf(start, view) })),
      h("p", { class: "status" }, end ? t("web.table.over") : obs ? mod.statusLine(obs, names, null) : ""),
      h("p", { class: "small muted" }, t("web.watch.what_spectators_see"))));
    const sorted = store.sortedEvents();
    const result = end ? h("section", { class: "panel result" }, h("h2", {}, endTitle(end.result, null)),
      start.game === "kuhhandel" ? KH.scoreBoard(end.result, obs, start.rules, names, null, start.pages) : CU.roundTable(end.result, obs, sorted, names, null, start.pages),
      h("p", {}, h("a", { href: `/replay/${gameId}` }, t("web.table.watch_replay")))) : null;
    const board = obs ? mod.renderBoard(obs, { names, pages: start.pages, me: null, rules: start.rules, seats: view.seats, clock, events: sorted, memory }) : h("div");
    showBoard(board, { patch: !!obs && mod.PATCH_BOARD, result });
    log.show(eventLines(start.game, sorted, names), stick);
    if (obs) mod.afterDraw(boardBox, memory, sorted);
  }

  let ws = null;
  let stopped = false;
  let retry = 0;
  // a dropped connection is opened again: the server sends the public events from the start
  // again (the map keeps one copy of each) and the game goes on being shown
  const open = () => {
    ws = new WebSocket(wsUrl());
    ws.addEventListener("open", () => ws.send(JSON.stringify({ type: "hello", protocol: 1, spectate: gameId, push_observations: true })));
    ws.addEventListener("message", onMessage);
    ws.addEventListener("close", () => {
      closed = true;
      if (!stopped && start && !end) setTimeout(() => { if (!stopped) open(); }, Math.min(8000, 500 * 2 ** retry++));
    });
  };
  const onMessage = (frame) => {
    const msg = JSON.parse(frame.data);
    if (msg.type === "game_start") { start = msg; closed = false; retry = 0; fetcher.now(); draw(); }
    else if (msg.type === "event") {
      events.set(msg.index, msg.event);
      if (["bid", "pass", "auction", "exposed"].includes(msg.event.kind)) auctionActivity = performance.now();
      drawSoon();
    } else if (msg.type === "observation") {
      pushedAt = performance.now();
      view = { seats: null, quiet_ms: 5000, ...(view || {}), observation: msg.observation };
      drawSoon();
    } else if (msg.type === "game_end") { end = msg; drawSoon(); }
    else if (msg.type === "error") {
      clear(boardBox).appendChild(h("div", { class: "panel" }, h("p", {}, refusal(msg)),
        h("p", {}, h("a", { href: `/replay/${gameId}` }, t("web.watch.open_replay")), " · ", h("a", { href: "/" }, t("web.table.the_lobby")))));
    }
  };
  open();
  // only the open auction's "going once, going twice" needs a redraw without news
  // (drawn when its words change: "Bidding is open" stands for seconds, a whole draw a second was
  // the spectator's main cost of an open auction)
  const ticker = setInterval(() => {
    if (!end && !closed && start && start.game === "kuhhandel" && start.rules.auction_style === "open" && watchClock() !== lastClock) drawSoon();
  }, 1000);
  const holders = setInterval(() => { if (!end && !closed && !document.hidden) fetcher.now(); }, HOLDERS_MS);
  window.addEventListener("resize", drawSoon); // a trick gathered in pixels is placed again
  return () => { stopped = true; fetcher.stop(); clearInterval(ticker); clearInterval(holders); drawing.cancel(); window.removeEventListener("resize", drawSoon); ws.close(1000, "bye"); };
}
