// The replay viewer, lichess-like: an ended game step by step (GET /api/games/{id}/replay
// re-simulates the record on the server). The game is over, so every seat's notes or hand are
// shown, and the move list names the notes of every payment and offer.
//
// - a move list grouped by turn (Kuhhandel: auction, pedigree, rat, cow trade, division;
//   Cunegonda: the passing and each trick, under their round), every move a button;
// - keys: ← → a move, ↑ ↓ a turn, Home/End the first/last position; buttons jump to the
//   previous/next turn, auction, cow trade or round;
// - the address names the position (/replay/{id}?at=N, N moves played), so a link opens there.
//
// The board is drawn by the table's own renderer (kuhhandel.js / cunegonda.js renderBoard, owned
// by the table screens), through drawBoard() below: a replay looks like the table.

import { h, clear, getJSON } from "./dom.js";
import { describe, list as countedNotes, animal } from "./describe.js";
import { t, has, when } from "./i18n.js";
import { gameName, gameTitle, ruleSetName, seatPages } from "./names.js";
import * as KH from "./kuhhandel.js";
import * as CU from "./cunegonda.js";
import { nameLink } from "./botpage.js";
import { seatView } from "./seatview.js";
import { analysisPanel } from "./analysis.js";

const SPEEDS = [0.5, 1, 2, 4, 8, 16];

export function renderReplayList(main) {
  clear(main).append(h("h1", {}, t("web.replay.list_title")), h("p", { class: "muted" }, t("web.replay.loading")));
  getJSON("/api/games?limit=100").then(({ games }) => {
    const ended = games.filter((g) => g.status !== "running");
    const running = games.filter((g) => g.status === "running");
    clear(main).append(...[h("h1", {}, t("web.replay.list_title")),
      running.length ? h("p", {}, `${t("web.replay.running", { count: running.length })} `, running.map((g, i) => [i ? ", " : "", h("a", { href: `/watch/${g.id}` }, t("web.replay.watch", { names: g.names.join(" / ") }))])) : null,
      ended.length ? h("div", { class: "table-wrap" }, h("table", { class: "games" },
        h("caption", { class: "sr-only" }, t("web.replay.caption")),
        h("thead", {}, h("tr", {}, ["game", "rules", "players", "ended", "result", "replay"].map((c) => h("th", { scope: "col" }, t(`web.replay.col.${c}`))))),
        h("tbody", {}, ended.map((g) => h("tr", {},
          h("td", { "data-label": t("web.replay.col.game") }, gameName(g.game)), h("td", { class: "rules", "data-label": t("web.replay.col.rules") }, ruleSetName(g)),
          h("td", { "data-label": t("web.replay.col.players") }, g.names.map((n, s) => [s ? ", " : "", nameLink(n, g.pages && g.pages[s])])),
          h("td", { "data-label": t("web.replay.col.ended") }, g.ended_at ? when(g.ended_at) : ""),
          h("td", { "data-label": t("web.replay.col.result") }, g.result ? winners(g) : has(`web.replay.status.${g.status}`) ? t(`web.replay.status.${g.status}`) : g.status),
          h("td", {}, h("a", { href: `/replay/${g.id}`, class: "button", "aria-label": t("web.replay.replay_label", { names: g.names.join(", ") }) }, t("web.replay.replay_button"))))))))
        : h("p", {}, t("web.replay.none"))].filter(Boolean));
  }).catch((err) => clear(main).append(h("h1", {}, t("web.replay.list_title")), h("p", { class: "error" }, err.message)));
}

function winners(g) {
  const best = g.names.filter((_, s) => g.result.places[s] === 0);
  const term = g.result.termination;
  const key = { normal: "web.replay.won", aborted: "web.replay.won_aborted", timeout: "web.replay.won_timeout" }[term];
  return t(key || "web.replay.won_other", { names: best.join(" & "), termination: term });
}

// ---------------------------------------------------------------- moves in words

const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const cardText = (name) => `${name.slice(0, -1)}${SUITS[name.slice(-1)] || name.slice(-1)}`;
// notes counted as the log counts them ("4 × 0 + 500 = 500"), not one by one
const noteList = (notes) => (notes.length ? countedNotes(notes) : t("web.replay.nothing"));

/** One move in a few words, hidden values included (the game is over). */
export function moveText(game, frame, names, rules) {
  const who = names[frame.seat] || t("web.replay.seat", { seat: frame.seat });
  const say = (key, args = {}) => t(`web.replay.move.${key}`, { who, ...args });
  const a = frame.action || {};
  if (game === "cunegonda") {
    if (a.pass) return say("passes_cards", { cards: a.pass.map(cardText).join(" ") });
    if (a.play) return say("plays", { card: cardText(a.play) });
    return say("moves");
  }
  const species = (k) => (rules && rules.species && rules.species[k] ? animal(rules.species[k].name) : t("web.replay.species", { k }));
  switch (a.kind) {
    case "auction": {
      const drawn = frame.events.find((e) => e.kind === "draw");
      return drawn ? say("draws_the", { animal: animal(drawn.data.name) }) : say("auctions");
    }
    case "draw": {
      const drawn = frame.events.find((e) => e.kind === "peek" || e.kind === "draw");
      return drawn && drawn.data.name ? say("draws_the", { animal: animal(drawn.data.name) }) : say("draws");
    }
    case "bid": return say("bids", { amount: a.amount });
    case "pass": return say("passes");
    case "knock": return say("knocks");
    case "buy": return say("buys");
    case "sell": return say("sells");
    case "pay": return say("pays", { notes: noteList(a.notes) });
    case "challenge": return say("challenges", { opponent: names[a.opponent], animal: species(a.species) });
    case "offer": return say("offers", { notes: noteList(a.notes) });
    case "accept": return say("accepts");
    case "counter": return say("counters", { notes: noteList(a.notes) });
    case "claim": return a.count ? say("claims", { count: a.count }) : say("no_claim");
    case "preempt": return say("preempts");
    case "release": return say("releases");
    case "take_rat": return say("takes_rat");
    case "place_note": return say("places_note", { note: a.note });
    case "keep": return say("keeps");
    case "give": return say("gives");
    default: return say("other", { action: String(a.kind || "moves").replace(/_/g, " ") });
  }
}

const KH_TURNS = [
  ["challenge", "trade", "trade"], ["divide", "divide", "division"], ["rat", "rat", "rat"],
  ["countdown", "auction", "pedigree"], ["draw", "auction", "auction"], ["auction", "auction", "auction"],
  ["skip", "turn", "skipped"],
];

/**
 * The move list: groups of moves. Kuhhandel: one group per turn (a turn ends with the engine's
 * `turn` event), its kind "auction" (also pedigree cards and rats), "trade" or "divide".
 * Cunegonda: the passing and each trick (a trick ends with its `trick` event), with the round.
 * Each group: {kind, title, round, start (first frame), moves: [{step, text}]}; frame 0 (before
 * the first move) belongs to no group.
 */
export function moveGroups(game, frames, names, rules) {
  const groups = [];
  let round = 0;
  let trick = 0;
  let open = null;
  for (let i = 1; i < frames.length; i++) {
    const f = frames[i];
    const prev = frames[i - 1].events.map((e) => e.kind);
    const kinds = f.events.map((e) => e.kind);
    if (game === "cunegonda") {
      const rs = frames[i - 1].events.find((e) => e.kind === "round_start");
      if (rs) { round = rs.data.round + 1; trick = 0; }
      const boundary = !open || prev.includes("trick") || prev.includes("round_start") || (prev.includes("pass") && open.kind === "passing");
      if (boundary) {
        const passing = Boolean(f.action && f.action.pass);
        if (!passing) trick += 1;
        const title = passing ? t("web.replay.round_passing", { round }) : t("web.replay.round_trick", { round, trick });
        open = { kind: passing ? "passing" : "trick", round, title, label: title, start: i, moves: [] };
        groups.push(open);
      }
    } else {
      if (!open || prev.includes("turn")) {
        open = { kind: "turn", round: 0, title: "", start: i, moves: [], events: [] };
        groups.push(open);
      }
      open.events.push(...kinds);
    }
    open.moves.push({ step: i, text: moveText(game, f, names, rules) });
  }
  if (game !== "cunegonda") {
    const count = {};
    groups.forEach((g, n) => {
      const found = KH_TURNS.find(([ev]) => g.events.includes(ev));
      const [, kind, name] = found || ["", "turn", "turn"];
      g.kind = kind;
      count[name] = (count[name] || 0) + 1;
      const first = g.moves[0] ? g.moves[0].text : "";
      const word = t(`web.replay.turn.${name}`);
      g.label = kind === "turn" ? word : `${word} ${count[name]}`;
      g.title = `${n + 1}. ${g.label}: ${first}`;
      delete g.events;
    });
  }
  return groups;
}

// ---------------------------------------------------------------- the board

/**
 * The board of one replay frame, drawn by the table's renderer (the contract with the table
 * screens): renderBoard(publicObservation, {names, pages, me: null, rules, seats: null, revealed}),
 * where `revealed` holds every seat's wallet (Kuhhandel) or hand (Cunegonda) and `pages` the
 * seats' pages (names link to them as at the live table).
 */
function drawBoard(game, frame, names, rules, pages) {
  const mod = game === "cunegonda" ? CU : KH;
  const revealed = frame.private.map((p) => (game === "cunegonda" ? p.hand : p.wallet) || []);
  return mod.renderBoard(frame.public, { names, pages, me: null, rules, seats: null, revealed });
}

// ---------------------------------------------------------------- the viewer

/** The position the address names (?at=N), or null. */
function askedStep() {
  const at = new URLSearchParams(location.search).get("at");
  return at !== null && /^\d+$/.test(at) ? Number(at) : null;
}

export function renderReplay(main, gameId) {
  let timer = null;
  let cleanupKeys = () => {};
  clear(main).append(h("h1", {}, t("web.replay.title")), h("p", { class: "muted" }, t("web.replay.loading_record")));
  const stop = () => { if (timer) clearInterval(timer); timer = null; };
  Promise.all([getJSON(`/api/games/${encodeURIComponent(gameId)}`), getJSON(`/api/games/${encodeURIComponent(gameId)}/replay`)])
    .then(([detail, replay]) => build(detail, replay))
    .catch((err) => clear(main).append(h("h1", {}, t("web.replay.title")), h("p", { class: "error" }, t("web.replay.no_replay", { error: err.message })),
      h("p", {}, `${t("web.replay.once_over")} `, h("a", { href: `/watch/${gameId}` }, t("web.replay.watch_live")), " · ", h("a", { href: "/replay" }, t("web.replay.all")))));

  function build(detail, replay) {
    const names = replay.names;
    const pages = seatPages(detail);
    const frames = replay.frames;
    const last = frames.length - 1;
    const cu = replay.game === "cunegonda";
    let index = 0;
    let speed = 1;
    const lines = [];
    frames.forEach((f, i) => {
      for (const ev of f.events) {
        const text = describe(replay.game, ev, names);
        if (text) lines.push({ step: i, text, private: ev.to !== null });
      }
    });
    const allEvents = []; // [index, event] of the whole game, as the table keeps them
    frames.forEach((f) => f.events.forEach((ev) => allEvents.push([allEvents.length, ev])));
    const groups = moveGroups(replay.game, frames, names, replay.rules);
    const groupOf = new Array(frames.length).fill(-1);
    groups.forEach((g, n) => g.moves.forEach((m) => { groupOf[m.step] = n; }));

    const boardBox = h("div", { class: "board-col" });
    const logBox = h("ol", { class: "log", tabindex: "0", "aria-label": t("web.replay.log_label") });
    const stepText = h("p", { class: "step", "aria-live": "polite" });
    const linkHere = h("a", { class: "position-link small" }, t("web.replay.link_here"));
    const scrub = h("input", { type: "range", min: 0, max: last, value: 0, id: "scrub" });
    const playButton = h("button", { type: "button", class: "primary", "aria-label": t("web.replay.play_label"), "data-control": "play" }, t("web.replay.play"));
    const speedSelect = h("select", { id: "speed" }, SPEEDS.map((s) => h("option", { value: s, selected: s === 1 }, `${s}×`)));

    // the move list: one button per move, grouped by turn
    const moveButtons = new Map();
    const groupHeads = [];
    const movesBox = h("div", { class: "moves-box", tabindex: "-1" });
    const startButton = h("button", { type: "button", class: "move start", tabindex: "-1", "data-step": 0, onclick: () => show(0) }, t("web.replay.start"));
    moveButtons.set(0, startButton);
    const list = h("ol", { class: "move-groups" }, groups.map((g, n) => {
      const head = h("button", { type: "button", class: "group-head", tabindex: "-1", "data-group": g.kind, "data-step": g.start, onclick: () => show(g.start) }, g.title);
      groupHeads.push(head);
      return h("li", { class: `move-group ${g.kind}` }, head,
        h("ol", { class: "moves" }, g.moves.map((m) => {
          const b = h("button", { type: "button", class: "move", tabindex: "-1", "data-step": m.step, onclick: () => show(m.step) }, m.text);
          moveButtons.set(m.step, b);
          return h("li", {}, b);
        })));
    }));
    movesBox.append(startButton, list);

    let analysis = null; // the expert's analysis panel (analysis.js)
    const show = (i, { keepAddress = false } = {}) => {
      index = Math.max(0, Math.min(last, i));
      if (analysis) analysis.update(index);
      scrub.value = String(index);
      scrub.setAttribute("aria-valuetext", t("web.replay.valuetext", { index, last }));
      const f = frames[index];
      clear(boardBox).appendChild(drawBoard(replay.game, f, names, replay.rules, pages));
      const note = analysis && analysis.boardNote(index); // the expert's better answer, on the board
      if (note) boardBox.prepend(note);
      if (index === last && replay.result) {
        // the end explained as at the table: Kuhhandel's quartets and money, Cunegonda's rounds
        boardBox.prepend(h("section", { class: "panel result", "aria-label": t("web.replay.result") }, h("h2", {}, t("web.replay.result")),
          cu ? CU.roundTable(replay.result, f.public, allEvents, names, null, pages)
            : KH.scoreBoard(replay.result, f.public, replay.rules, names, null, pages)));
      }
      const g = groups[groupOf[index]];
      const said = f.events.map((ev) => describe(replay.game, ev, names)).filter((x) => x && !x.startsWith("("));
      const sentence = (x) => (/[.!?]$/.test(x) ? x : `${x}.`);
      const actor = f.seat === null ? t("web.replay.begins") : said.length ? said.map(sentence).join(" ") : moveText(replay.game, f, names, replay.rules);
      stepText.textContent = g ? t("web.replay.step_group", { index, last, group: g.label, actor }) : t("web.replay.step", { index, last, actor });
      clear(logBox).append(...lines.filter((l) => l.step <= index).slice(-300).map((l) =>
        h("li", { class: `${l.step === index ? "now" : ""}${l.private ? " private" : ""}` }, l.text)));
      logBox.scrollTop = logBox.scrollHeight;
      // one tab stop in the move list: the current move (the arrow keys walk the list)
      const hadFocus = movesBox.contains(document.activeElement);
      for (const b of movesBox.querySelectorAll("[aria-current]")) { b.removeAttribute("aria-current"); b.classList.remove("now"); b.tabIndex = -1; }
      const current = moveButtons.get(index);
      if (current) {
        current.setAttribute("aria-current", "step");
        current.classList.add("now");
        current.tabIndex = 0;
        if (hadFocus) current.focus({ preventScroll: true });
        // scroll the move list only (never the page)
        const top = current.offsetTop; // .moves-box is positioned: offsets are inside it
        if (top < movesBox.scrollTop || top > movesBox.scrollTop + movesBox.clientHeight - current.offsetHeight) {
          movesBox.scrollTop = Math.max(0, top - movesBox.clientHeight / 2);
        }
      }
      const here = `/replay/${encodeURIComponent(gameId)}?at=${index}`;
      linkHere.setAttribute("href", here);
      if (!keepAddress && location.pathname === `/replay/${gameId}`) history.replaceState(history.state, "", here);
      for (const [kind, prev, next] of jumpButtons) {
        prev.disabled = target(kind, -1) === null;
        next.disabled = target(kind, 1) === null;
      }
    };

    /** The first move of the previous/next group of `kind` ("turn": any group; "round"). */
    const target = (kind, dir) => {
      const starts = groups
        .filter((g, n) => kind === "turn" || (kind === "round" ? n === 0 || groups[n - 1].round !== g.round : g.kind === kind))
        .map((g) => g.start);
      if (dir > 0) return starts.find((s) => s > index) ?? null;
      const before = starts.filter((s) => s < index);
      return before.length ? before[before.length - 1] : null;
    };
    const jump = (kind, dir) => { const to = target(kind, dir); if (to !== null) show(to); };

    const play = () => {
      const idle = () => { playButton.textContent = t("web.replay.play"); playButton.setAttribute("aria-label", t("web.replay.play_label")); };
      if (timer) { stop(); idle(); return; }
      if (index >= last) show(0);
      playButton.textContent = t("web.replay.pause");
      playButton.setAttribute("aria-label", t("web.replay.pause_label"));
      timer = setInterval(() => {
        if (index >= last) { stop(); idle(); return; }
        show(index + 1);
      }, 500 / speed);
    };
    scrub.addEventListener("input", () => show(Number(scrub.value)));
    speedSelect.addEventListener("change", () => {
      speed = Number(speedSelect.value);
      if (timer) { stop(); play(); }
    });
    playButton.addEventListener("click", play);
    const ctl = (label, text, fn, key) => h("button", { type: "button", "aria-label": label, "data-control": key, onclick: fn }, text);

    const jumpKinds = cu ? ["round", "trick"] : ["turn", "auction", "trade"];
    if (!cu && groups.some((g) => g.kind === "divide")) jumpKinds.push("divide");
    const jumpButtons = jumpKinds.map((kind) => [kind,
      ctl(t(`web.replay.prev.${kind}`), `‹ ${t(`web.replay.jump.${kind}`)}`, () => jump(kind, -1), `prev-${kind}`),
      ctl(t(`web.replay.next.${kind}`), `${t(`web.replay.jump.${kind}`)} ›`, () => jump(kind, 1), `next-${kind}`)]);

    const controls = h("div", { class: "replay-controls", role: "toolbar", "aria-label": t("web.replay.controls") },
      ctl(t("web.replay.first_label"), t("web.replay.first"), () => show(0), "first"), ctl(t("web.replay.back_label"), t("web.replay.back"), () => show(index - 1), "back"),
      playButton, ctl(t("web.replay.forward_label"), t("web.replay.forward"), () => show(index + 1), "forward"), ctl(t("web.replay.last_label"), t("web.replay.last"), () => show(last), "last"),
      h("label", { for: "speed" }, `${t("web.replay.speed")} `), speedSelect);
    const jumps = h("div", { class: "replay-jumps", role: "toolbar", "aria-label": t("web.replay.jumps") },
      jumpButtons.map(([kind, prev, next]) => h("span", { class: "jump-pair", "data-kind": kind }, prev, next)));
    const keys = (ev) => {
      if (ev.target.closest("input, select, textarea") || ev.altKey || ev.ctrlKey || ev.metaKey) return;
      const act = {
        ArrowRight: () => show(index + 1), ArrowLeft: () => show(index - 1),
        ArrowDown: () => jump(cu ? "trick" : "turn", 1), ArrowUp: () => jump(cu ? "trick" : "turn", -1),
        Home: () => show(0), End: () => show(last),
      }[ev.key];
      if (act) { act(); ev.preventDefault(); }
      if (ev.key === " " && !ev.target.closest("button")) { play(); ev.preventDefault(); }
    };
    document.addEventListener("keydown", keys);
    cleanupKeys = () => document.removeEventListener("keydown", keys);
    const title = gameTitle(replay);
    analysis = analysisPanel({ gameId, replay, show, moveButtons, board: boardBox });
    clear(main).appendChild(h("section", { class: "table-page replay" },
      h("div", { class: "table-head" }, h("h1", {}, t("web.replay.heading", { title })),
        h("p", { class: "small muted" }, names.map((n, s) => [s ? ", " : "", nameLink(n, pages[s], false, (detail.seats_detail || [])[s]?.kind === "person" ? "person" : "bot")]), ` · ${has(`web.replay.status.${detail.status}`) ? t(`web.replay.status.${detail.status}`) : detail.status}${detail.ended_at ? " · " + when(detail.ended_at) : ""}. ${t(cu ? "web.replay.over_hands" : "web.replay.over_notes")}`),
        controls, h("div", { class: "scrub-row" }, h("label", { for: "scrub" }, t("web.replay.move_label")), scrub, linkHere), jumps, stepText,
        h("p", { class: "small muted keys-help" }, t(cu ? "web.replay.keys_trick" : "web.replay.keys_turn"))),
      // board, value graph and move list in one view: the analysis beside the board (on a phone
      // the graph above it), so a mistake's dot moves the board without the page scrolling
      h("div", { class: "layout" }, h("div", { class: "main-col" }, boardBox, analysis.decision),
        h("div", { class: "side-col" }, analysis.element,
          h("nav", { class: "moves-nav", "aria-label": t("web.replay.moves") }, h("h2", {}, t("web.replay.moves")), movesBox),
          h("div", { class: "log-box", role: "log" }, h("h2", {}, t("web.replay.log")), logBox))),
      seatView({ gameId, replay, detail, pages, current: () => index, show })));
    const asked = askedStep();
    show(asked === null ? 0 : asked, { keepAddress: asked === null });
  }
  return () => { stop(); cleanupKeys(); };
}
