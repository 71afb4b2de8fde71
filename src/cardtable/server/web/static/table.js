// The seat page (/table/{id}) and the spectator page (/watch/{id}).
//
// Both draw the same board. The seat's page gets its own observation pushed by the server after
// every change (hello with push_observations) and with every request, and its own events over
// the session's WebSocket; GET /api/tables/{id}/public (public information only) is read at the
// start and every few seconds for who holds each seat. The spectator's page says hello as a
// spectator (with push_observations: the public view), so its stream never carries a private
// event, and it never asks for a seat's view.

import { h, clear, getJSON, toast, seconds } from "./dom.js";
import { session, Session, wsUrl } from "./session.js";
import { describe } from "./describe.js";
import * as KH from "./kuhhandel.js";
import * as CU from "./cunegonda.js";

const LOG_LINES = 300;
/** How often a table page re-reads who holds each seat (the board itself is pushed). */
const HOLDERS_MS = 3000;

function gameModule(game) { return game === "cunegonda" ? CU : KH; }

/** Fetches the public view at most every `gap` ms, always once more after the last call. */
function publicFetcher(gameId, onView, gap = 120) {
  let timer = null;
  let running = false;
  let again = false;
  let stopped = false;
  const run = async () => {
    timer = null;
    if (running) { again = true; return; }
    running = true;
    const startedAt = performance.now();
    try {
      const view = await getJSON(`/api/tables/${encodeURIComponent(gameId)}/public`);
      if (!stopped) onView(view, startedAt);
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

function logList(lines) {
  return h("ol", { class: "log", role: "log", "aria-label": "What happened" },
    lines.slice(-LOG_LINES).map(([text, cls]) => h("li", { class: cls || "" }, text)));
}

function eventLines(game, events, names, me) {
  const out = [];
  for (const [, ev] of events) {
    const text = describe(game, ev, names);
    if (!text) continue;
    let cls = "";
    if (["draw", "challenge", "round_start", "countdown", "rat", "divide", "end", "match_end", "round_end"].includes(ev.kind)) cls = "head";
    if (text.startsWith("(")) cls = "private";
    out.push([text, cls]);
  }
  return out;
}

function scrollLog(container) {
  const log = container.querySelector(".log");
  if (log) log.scrollTop = log.scrollHeight;
}

function titleOf(start) {
  let rules = start.rules_name;
  if (!rules) {
    const r = start.rules || {};
    const notes = [];
    if (r.auction_style === "open") notes.push("open auction");
    if (start.game === "cunegonda" && r.rounds) notes.push(`${r.rounds} rounds`);
    rules = `${r.name && r.name !== "custom" ? r.name : "custom rules"}${notes.length ? ` (${notes.join(", ")})` : ""}`;
  }
  return `${start.game === "cunegonda" ? "Cunegonda" : "Kuhhandel"} · ${rules}`;
}

// ---------------------------------------------------------------- the seat

export function renderSeat(main, gameId, navigate) {
  const cleanups = [];
  let store = session.games.get(gameId);
  let publicView = null; // {view, startedAt}
  let shownRequests = "";
  let auctionActivity = performance.now();
  let lastRejection = 0;
  let headMode = "";
  const statusEl = h("p", { class: "status", "aria-live": "polite" });

  const head = h("div", { class: "table-head" });
  const messages = h("div", { class: "messages", role: "alert" });
  const boardBox = h("div", { class: "board-col" });
  const actionsBox = h("div", { class: "actions", "aria-label": "Your decisions" });
  const handBox = h("div", { class: "hand-box" });
  const logBox = h("div", { class: "log-box" }, h("h2", {}, "Log"));
  clear(main).appendChild(h("section", { class: "table-page" }, head, messages,
    h("div", { class: "layout" }, h("div", { class: "main-col" }, boardBox, handBox), h("div", { class: "side-col" }, actionsBox, logBox))));

  const fetcher = publicFetcher(gameId, (view, startedAt) => {
    publicView = { view, startedAt };
    drawSoon();
    if (store && store.end) fetcher.stop();
  });
  cleanups.push(() => fetcher.stop());

  const waitFor = (text, links = true) => {
    headMode = "";
    clear(head).appendChild(h("h1", {}, "Table"));
    clear(boardBox).appendChild(h("div", { class: "panel" }, h("p", {}, text),
      links ? h("p", {}, h("a", { href: `/watch/${gameId}` }, "Watch this game"), " · ",
        h("a", { href: `/replay/${gameId}` }, "its replay (once it is over)"), " · ", h("a", { href: "/" }, "the lobby")) : null));
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
    let obs;
    if (pub && (!req || publicView.startedAt >= req.at)) obs = { ...pub.observation };
    else if (req) obs = { ...req.observation };
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
    if (left <= 0) return "Sold!";
    if (left < quiet / 3) return `Going twice… (${seconds(left)})`;
    if (left < (2 * quiet) / 3) return `Going once… (${seconds(left)})`;
    return `Bidding is open: sold in ${seconds(left)} without a new bid`;
  }

  const clockEl = h("div", { class: "clock", role: "timer", "aria-label": "Your decision clock" });
  const goingEl = h("div", { class: "going-line", role: "status" });

  function tick() {
    if (!store || !store.start) return;
    const open = [...store.requests.values()];
    const primary = open.find((r) => !r.optional);
    if (primary) {
      const spent = performance.now() - primary.receivedAt;
      const left = primary.deadline_ms - spent;
      const bank = primary.time_bank_ms + Math.min(0, left);
      clockEl.hidden = false;
      clockEl.className = `clock${left < 10000 ? " low" : ""}${left <= 0 ? " bank" : ""}`;
      clockEl.textContent = left > 0
        ? `Your decision: ${seconds(left)} (time bank ${seconds(primary.time_bank_ms)})`
        : `Time bank: ${seconds(bank)} left, then the house bot answers`;
    } else {
      clockEl.hidden = true;
    }
    const obs = currentObs(store.start, privateState(gameModule(store.start.game), store.start));
    const going = auctionClock(store.start, obs);
    goingEl.hidden = !going;
    goingEl.textContent = going || "";
    const inBoard = boardBox.querySelector(".going");
    if (inBoard && going) inBoard.textContent = going;
  }
  const ticker = setInterval(tick, 250);
  cleanups.push(() => clearInterval(ticker));

  function send(requestId, action) {
    try {
      session.act(gameId, requestId, action);
      if (store.start.game === "kuhhandel" && action.kind === "offer") store.myOffer = action.notes;
    } catch (err) {
      toast(err.message, "error");
    }
    draw(); // the answered panel goes at once, so it can never be answered twice
  }

  // Messages come in bursts (a house bot's turn is a dozen events): one redraw per burst.
  let drawTimer = null;
  const drawSoon = () => {
    if (drawTimer === null) drawTimer = setTimeout(draw, 0);
  };
  cleanups.push(() => clearTimeout(drawTimer));

  function draw() {
    clearTimeout(drawTimer);
    drawTimer = null;
    store = session.games.get(gameId);
    if (!store || !store.start) {
      if (!session.connected) waitFor("Connecting…", false);
      else waitFor("Waiting for the game to start…");
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
    const mode = store.end ? "end" : away ? "away" : "seat";
    if (mode !== headMode) {
      headMode = mode;
      const buttons = [];
      if (mode === "away") {
        buttons.push(h("button", { type: "button", class: "primary", onclick: () => {
          try { session.resume(gameId); } catch (err) { toast(err.message, "error"); }
          draw();
        } }, "Take my seat back"));
      } else if (mode === "seat") {
        buttons.push(h("button", {
          type: "button", onclick: () => {
            if (!confirm("Leave the table? A house bot plays your seat until you come back.")) return;
            try { session.leave(gameId); } catch (err) { toast(err.message, "error"); }
          },
        }, "Leave the table"));
      }
      const hadFocus = head.contains(document.activeElement);
      clear(head).append(h("h1", {}, titleOf(start)), statusEl, clockEl, goingEl,
        h("div", { class: "row" }, buttons, h("a", { href: `/watch/${gameId}`, class: "small" }, "spectator view")));
      if (hadFocus && buttons.length) buttons[0].focus({ preventScroll: true });
    }
    statusEl.textContent = store.end ? "The game is over."
      : away ? "A house bot plays your seat until you take it back." : mod.statusLine(obs, names, me);

    // messages: rejections and notices
    clear(messages);
    const recent = store.rejections.slice(-2);
    for (const r of recent) messages.appendChild(h("p", { class: "error" }, `Not accepted (${r.code}): ${r.reason}`));
    for (const n of store.notices.slice(-1)) messages.appendChild(h("p", { class: "warn" }, n));
    if (store.rejections.length > lastRejection) {
      lastRejection = store.rejections.length;
      toast(store.rejections[store.rejections.length - 1].reason, "error");
    }

    // board
    const seatsInfo = publicView ? publicView.view.seats : null;
    clear(boardBox);
    if (obs) {
      const ctx = {
        names, me, rules: start.rules, wallet: priv.wallet, hand: priv.hand, seats: seatsInfo,
        revealed: null, clock: auctionClock(start, obs), handSlot: start.game === "cunegonda" ? handBox : null,
      };
      if (start.game === "kuhhandel" && store.end) {
        const last = [...store.events.values()].reverse().find((e) => e.kind === "wallets");
        if (last) ctx.revealed = last.data.wallets;
      }
      boardBox.appendChild(mod.renderBoard(obs, ctx));
    } else {
      boardBox.appendChild(h("p", { class: "muted" }, "The game begins…"));
    }
    if (store.end) {
      const result = store.end.result;
      boardBox.prepend(h("section", { class: "panel result", "aria-label": "Result" },
        h("h2", {}, "Game over"),
        start.game === "kuhhandel" ? KH.scoreTable(result, names) : KH.scoreTable({ ...result, details: null }, names),
        h("p", {}, h("a", { href: `/replay/${gameId}` }, "Watch the replay"), " · ", h("a", { href: "/" }, "Back to the lobby"))));
    }

    // actions: rebuilt only when the open requests change (a half-filled picker survives)
    const open = [...store.requests.values()];
    const key = open.map((r) => r.request_id).join(",") + (store.end ? "end" : "");
    if (key !== shownRequests) {
      shownRequests = key;
      clear(actionsBox);
      clear(handBox);
      const ctx = { names, me, rules: start.rules, wallet: priv.wallet, hand: priv.hand, obs };
      if (start.game === "cunegonda") {
        const req = open[0] || null;
        handBox.appendChild(CU.handPanel(req, ctx, (action) => send(req.request_id, action)));
        if (!req && !store.end) actionsBox.appendChild(h("p", { class: "muted waiting" }, "Nothing to decide right now."));
      } else {
        for (const req of open) actionsBox.appendChild(KH.actionPanel(req, ctx, (action) => send(req.request_id, action)));
        if (!open.length && !store.end) actionsBox.appendChild(h("p", { class: "muted waiting" }, "Nothing to decide right now."));
      }
      if (open.length) {
        const target = (start.game === "cunegonda" ? handBox : actionsBox).querySelector("button:not([disabled]), input");
        const active = document.activeElement;
        if (target && (!active || active === document.body || active === main || !main.contains(active) || active.closest(".actions, .hand-box") || active.tagName === "BUTTON")) {
          target.focus({ preventScroll: true });
        }
      }
    } else if (start.game === "cunegonda" && !open.length) {
      // the hand changes without a request (passes arrive, cards are played)
      clear(handBox).appendChild(CU.handPanel(null, { names, hand: priv.hand }, () => {}));
    }

    // log
    const lines = eventLines(start.game, store.sortedEvents(), names, me);
    const oldLog = logBox.querySelector(".log");
    const atBottom = !oldLog || oldLog.scrollTop + oldLog.clientHeight >= oldLog.scrollHeight - 20;
    if (oldLog) oldLog.remove();
    logBox.appendChild(logList(lines));
    if (atBottom) scrollLog(logBox);
    tick();
  }

  cleanups.push(session.on((kind, data) => {
    if (kind === "event" && data.store.id === gameId) {
      if (["bid", "pass", "auction", "exposed"].includes(data.event.kind)) auctionActivity = performance.now();
    }
    if (kind === "game" && data.id === gameId) {
      drawSoon();
    }
    if (kind === "game" && data.id !== gameId && data.start && !data.end && session.current === data.id) {
      navigate(`/table/${data.id}`);
    }
    // a welcome after a dropped connection: the session resumes every running game itself
    if (kind === "welcome") draw();
    if (kind === "closed") {
      toast("The connection dropped; reconnecting…", "error");
      draw();
    }
    if (kind === "error" && data.code !== "taken_over") toast(data.reason, "error");
  }));

  // arrive: connected already (from the lobby), or a reload (say hello again and resume)
  if (!session.connected) {
    const saved = Session.saved();
    if (!saved) {
      waitFor("You are not signed in on this browser: join from the lobby, or watch this game.");
    } else {
      waitFor("Connecting…", false);
      session.connect(saved).then((welcome) => {
        if ((welcome.games || []).includes(gameId)) {
          session.current = gameId;
          session.resume(gameId);
        } else if (!session.games.get(gameId)) {
          waitFor("You hold no seat in a running game with this id.");
        }
      }).catch((err) => waitFor(`Could not connect: ${err.message}`));
    }
  } else if (!store && session.welcomeGames.includes(gameId)) {
    session.current = gameId;
    session.resume(gameId);
  }
  draw();
  fetcher.now();
  // the observation is pushed; only who holds each seat (away, house bot) is read now and then
  const holders = setInterval(() => { if (!(store && store.end)) fetcher.now(); }, HOLDERS_MS);
  cleanups.push(() => clearInterval(holders));
  return () => cleanups.forEach((f) => f());
}

// ---------------------------------------------------------------- the spectator

export function renderWatch(main, gameId) {
  const events = new Map();
  let start = null;
  let end = null;
  let view = null;
  let closed = false;
  let auctionActivity = performance.now();
  const head = h("div", { class: "table-head" }, h("h1", {}, "Watching…"));
  const boardBox = h("div", { class: "board-col" });
  const logBox = h("div", { class: "log-box" }, h("h2", {}, "Log"));
  clear(main).appendChild(h("section", { class: "table-page spectator" }, head,
    h("div", { class: "layout" }, h("div", { class: "main-col" }, boardBox), h("div", { class: "side-col" }, logBox))));

  // one redraw per burst of messages
  let drawTimer = null;
  const drawSoon = () => {
    if (drawTimer === null) drawTimer = setTimeout(draw, 0);
  };
  let pushedAt = 0;
  const fetcher = publicFetcher(gameId, (v, startedAt) => {
    // a view pushed while this read was under way is newer than the one read
    view = view && pushedAt > startedAt ? { ...v, observation: view.observation } : v;
    drawSoon();
  });

  function draw() {
    clearTimeout(drawTimer);
    drawTimer = null;
    if (!start) return;
    const mod = gameModule(start.game);
    const names = start.names;
    const obs = view ? view.observation : null;
    let clock = null;
    if (start.game === "kuhhandel" && obs && obs.stage === "bid" && start.rules.auction_style === "open") {
      const quiet = view.quiet_ms;
      const left = quiet - (performance.now() - auctionActivity);
      clock = left <= 0 ? "Sold!" : left < quiet / 3 ? "Going twice…" : left < (2 * quiet) / 3 ? "Going once…" : "Bidding is open";
    }
    clear(head).append(h("h1", {}, `Watching: ${titleOf(start)}`),
      h("p", { class: "status" }, end ? "The game is over." : obs ? mod.statusLine(obs, names, null) : ""),
      h("p", { class: "small muted" }, "Spectators see what everyone at the table may see: no notes in hand, no cards in hand."));
    clear(boardBox);
    if (end) {
      boardBox.appendChild(h("section", { class: "panel result" }, h("h2", {}, "Game over"),
        KH.scoreTable(start.game === "kuhhandel" ? end.result : { ...end.result, details: null }, names),
        h("p", {}, h("a", { href: `/replay/${gameId}` }, "Watch the replay"))));
    }
    if (obs) {
      boardBox.appendChild(mod.renderBoard(obs, { names, me: null, rules: start.rules, seats: view.seats, clock }));
    }
    const old = logBox.querySelector(".log");
    if (old) old.remove();
    logBox.appendChild(logList(eventLines(start.game, [...events.entries()].sort((a, b) => a[0] - b[0]), names, null)));
    scrollLog(logBox);
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
      clear(boardBox).appendChild(h("div", { class: "panel" }, h("p", {}, msg.reason),
        h("p", {}, h("a", { href: `/replay/${gameId}` }, "Open the replay"), " · ", h("a", { href: "/" }, "the lobby"))));
    }
  };
  open();
  const ticker = setInterval(() => { if (!end && !closed) draw(); }, 1000);
  const holders = setInterval(() => { if (!end && !closed) fetcher.now(); }, HOLDERS_MS);
  return () => { stopped = true; fetcher.stop(); clearInterval(ticker); clearInterval(holders); clearTimeout(drawTimer); ws.close(1000, "bye"); };
}
