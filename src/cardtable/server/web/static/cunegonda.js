// The Cunegonda table: four seats, the trick in the middle, your hand, the match table.
// Cards are named like the engine names them: "2C", "10H", "QS", "AD".

import { h, svg } from "./dom.js";
import { t } from "./i18n.js";
import { cardLongName } from "./describe.js";
import { seatName, presenceTag } from "./names.js";

const SUIT_ART = "/static/cards/suits.svg";
const SUIT_SYMBOL = { C: "♣", D: "♦", H: "♥", S: "♠" };
const SIGNED = (n) => (n > 0 ? `+${n}` : String(n));

/** A suit's own shape (cards/suits.svg): told apart by shape, not only by colour. */
function suitMark(suit, cls) {
  return svg("svg", { class: `suit ${cls}`, viewBox: "0 0 100 100", "aria-hidden": "true", focusable: "false" },
    svg("use", { href: `${SUIT_ART}#${suit}` }));
}
const SUIT_ORDER = { C: 0, D: 1, S: 2, H: 3 };
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];

function rankIndex(name) { return RANKS.indexOf(name.slice(0, -1)); }

export function sortHand(cards) {
  return [...cards].sort((a, b) => SUIT_ORDER[a.slice(-1)] - SUIT_ORDER[b.slice(-1)] || rankIndex(a) - rankIndex(b));
}

/** A card as its face shows it: "J♣" (the engine's "JC"). */
const cardShown = (name) => `${name.slice(0, -1)}${SUIT_SYMBOL[name.slice(-1)]}`;

/** A card button's name: the card as shown, then in words ("J♣, the jack of clubs"). */
function cardLabel(name) {
  return `${cardShown(name)}, ${cardLongName(name)}`;
}

/** A card face (not a control). */
export function cardFace(name, extra = "") {
  const suit = name.slice(-1);
  return h("span", { class: `card suit-${suit} ${extra}`, "aria-label": cardLongName(name), role: "img", title: cardLongName(name) },
    h("span", { class: "corner", "aria-hidden": "true" }, h("span", { class: "rank" }, name.slice(0, -1)), suitMark(suit, "mini")),
    suitMark(suit, "pip"));
}

/** The own hand after `event` (deal, pass and play move cards). */
export function trackHand(hand, event, me) {
  const d = event.data;
  switch (event.kind) {
    case "deal": return d.seat === me ? [...d.cards] : hand;
    case "pass": {
      let out = hand;
      if (d.seat === me) out = out.filter((c) => !d.cards.includes(c));
      if (d.to === me) out = [...out, ...d.cards];
      return out;
    }
    case "play": return d.seat === me ? hand.filter((c) => c !== d.card) : hand;
    default: return hand;
  }
}

/** The newest finished trick, while no card of the next one is down: [trick event data] or null. */
function finishedTrick(obs, events) {
  if (obs.trick.length) return null;
  if (events && events.length) {
    for (let i = events.length - 1; i >= 0; i--) {
      const ev = events[i][1];
      if (["play", "pass", "pass_chosen"].includes(ev.kind)) return null;
      if (ev.kind === "trick") return ev.data;
    }
    return null;
  }
  if (obs.phase !== "play" || !obs.tricks.length) return null;
  const last = obs.tricks[obs.tricks.length - 1];
  return { cards: last.cards.map(([, c]) => c), leader: last.leader, winner: last.winner, value: last.value, trick: obs.tricks.length - 1 };
}

/**
 * The board is built again at every draw, not patched: a finished trick's cards carry motion of
 * their own from draw to draw (an animation that fills forwards, a transform set in pixels), which
 * a patch would carry onto the next trick's cards.
 */
export const PATCH_BOARD = false;

/**
 * ctx: {names, me, hand (own cards or null), revealed (every hand, replays), seats (holders),
 * events (the events so far, to keep a finished trick on the table until the next card)}
 */
export function renderBoard(obs, ctx) {
  const { names, me } = ctx;
  const who = (s) => names[s] || `#${s}`;
  const root = h("div", { class: "cu-board" });
  // seats around the table, the viewer at the bottom
  const base = me === null || me === undefined ? 0 : me;
  const positions = ["south", "west", "north", "east"];
  const done = finishedTrick(obs, ctx.events);
  const memory = ctx.memory || {};
  const lastSlots = memory.slots || {};
  memory.slots = {};
  const ring = h("div", { class: `cu-ring${obs.phase === "pass" ? " passing" : ""}${done ? ` won-${positions[(done.winner - base + 4) % 4]}` : ""}` });
  for (let k = 0; k < 4; k++) {
    const s = (base + k) % 4;
    let played = obs.trick.find(([seat]) => seat === s);
    let cls = "";
    if (done) {
      played = [s, done.cards[(s - done.leader + 4) % 4]];
      cls = s === done.winner ? " won" : " taken";
    }
    const holder = ctx.seats && ctx.seats[s];
    const tags = [];
    if (s === me) tags.push(h("span", { class: "tag you" }, t("web.kh.tag_you")));
    if (obs.turn === s) tags.push(h("span", { class: "tag turn" }, s === me ? t("web.cu.tag_your_turn") : t("web.cu.tag_to_play")));
    if (obs.phase === "pass" && obs.passes_chosen[s]) tags.push(h("span", { class: "tag" }, "passed"));
    tags.push(presenceTag(holder));
    const revealed = ctx.revealed && ctx.revealed[s];
    ring.appendChild(h("div", { class: `cu-seat ${positions[k]}${obs.turn === s ? " active" : ""}${s === me && obs.turn === me ? " your-turn" : ""}`, "data-seat": s },
      h("div", { class: "seat-head" }, h("strong", {}, seatName(names, ctx.pages, s, `#${s}`)), tags),
      h("div", { class: "small" }, h("span", { class: "bit" }, `${t("web.cu.this_round", { points: SIGNED(obs.round_points[s]) })} ·`), " ", h("span", { class: "bit" }, t("web.cu.total_is", { total: obs.totals[s] }))),
      revealed && s !== me ? h("div", { class: "mini-hand", role: "group", "aria-label": `${names[s]}'s hand` }, sortHand(revealed).map((c) => cardFace(c, "small"))) : null,
      h("div", { class: `slot${cls}` }, played ? cardFace(played[1], lastSlots[s] !== played[1] && !done ? "fresh" : "") : null)));
    memory.slots[s] = played ? played[1] : null;
  }
  ring.appendChild(h("div", { class: "cu-middle", "aria-live": "polite" },
    h("div", { class: "round-no" }, t("web.cu.round_of", { round: Math.min(obs.round + 1, obs.rounds), rounds: obs.rounds })),
    obs.phase === "pass" ? h("div", {}, t("web.cu.passing")) : null,
    obs.phase === "play" && !done ? h("div", {}, t("web.cu.trick_of", { trick: obs.tricks.length + 1 })) : null,
    done ? h("div", { class: "trick-news" }, t("web.cu.takes_trick", { you: String(done.winner === me), name: who(done.winner), trick: done.trick + 1, value: SIGNED(done.value) })) : null));
  root.appendChild(ring);
  if (ctx.handSlot) root.appendChild(ctx.handSlot); // the seat's hand, right under the table
  root.appendChild(matchTable(obs, names, ctx.pages));
  return root;
}

/** The first column's head: "Round" (a "#" on a phone, where the names need the width). */
function roundHead() {
  return h("th", { scope: "col", class: "round-col" }, h("span", { class: "long" }, t("web.cu.round")), h("span", { class: "short", "aria-hidden": "true" }, "#"));
}

/**
 * A player's name at the head of a column: at most two lines (a longer name ends in "…"), the
 * whole name in its tooltip; linked to the player's page as at the seats.
 */
function nameCell(names, pages, s, me = null) {
  const name = names[s] || `#${s}`;
  return [h("span", { class: "who", title: name }, seatName(names, pages, s, name)), s === me ? h("span", { class: "you-mark" }, ` ${t("web.score.you")}`) : null];
}

export function matchTable(obs, names, pages = null) {
  const rows = [];
  for (let r = 0; r < obs.rounds; r++) {
    const scores = obs.round_scores[r];
    rows.push(h("tr", { class: r === obs.round && obs.phase !== "over" ? "current" : "" },
      h("th", { scope: "row" }, String(r + 1)),
      names.map((_, s) => h("td", {}, scores ? SIGNED(scores[s]) : ""))));
  }
  return h("div", { class: "table-wrap" }, h("table", { class: "match", "aria-label": t("web.cu.match_label") },
    h("caption", {}, t("web.cu.match_caption", { rounds: obs.rounds })),
    h("thead", {}, h("tr", {}, roundHead(), names.map((n, s) => h("th", { scope: "col" }, nameCell(names, pages, s))))),
    h("tbody", {}, rows),
    h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, t("web.cu.total")), obs.totals.map((v) => h("td", {}, String(v)))))));
}

/**
 * The end of a match: per round and player the tricks won, the hearts taken, who took the queen
 * of spades, a moon, and the round's score; then the totals and places (from the result).
 */
export function roundTable(result, obs, events, names, me = null, pages = null) {
  if (!result) return null;
  if (result.termination === "aborted") return h("p", {}, t("web.cu.stopped"));
  const rounds = new Map(); // round -> {tricks, hearts, queen, moon, scores}
  const row = (r) => {
    if (!rounds.has(r)) rounds.set(r, { tricks: [0, 0, 0, 0], hearts: [0, 0, 0, 0], queen: null, moon: null, scores: null });
    return rounds.get(r);
  };
  for (const [, ev] of events || []) {
    const d = ev.data || {};
    if (ev.kind === "trick") {
      const x = row(d.round);
      x.tricks[d.winner] += 1;
      x.hearts[d.winner] += (d.hearts || []).length;
      if (d.queen) x.queen = d.winner;
    } else if (ev.kind === "round_end") {
      const x = row(d.round);
      x.scores = d.scores;
      if (d.moon !== null && d.moon !== undefined) x.moon = d.moon;
    }
  }
  if (obs) obs.round_scores.forEach((sc, r) => { if (!row(r).scores) row(r).scores = sc; });
  const order = [...rounds.keys()].sort((a, b) => a - b);
  const cell = (x, s) => {
    if (!x.scores) return h("td", {}, "");
    const bits = [t("web.cu.tricks", { count: x.tricks[s] })];
    if (x.hearts[s]) bits.push(`${x.hearts[s]} ♥`);
    if (x.queen === s) bits.push("Q♠");
    // a line breaks between the bits, never inside one ("3 tricks ·" / "2 ♥ · Q♠")
    const parts = x.moon === s ? [t("web.cu.shot_moon")] : bits;
    return h("td", { class: x.moon === s ? "moon" : "" },
      h("strong", {}, SIGNED(x.scores[s])),
      h("div", { class: "small" }, parts.map((b, i) => [i ? " " : "", h("span", { class: "bit" }, i < parts.length - 1 ? `${b} ·` : b)])));
  };
  const place = (s) => t("web.place", { place: result.places[s] + 1 });
  return h("div", { class: "table-wrap" }, h("table", { class: "match rounds-table" },
    h("caption", {}, t("web.cu.rounds_caption")),
    h("thead", {}, h("tr", {}, roundHead(),
      names.map((n, s) => h("th", { scope: "col", class: s === me ? "me" : "" }, nameCell(names, pages, s, me))))),
    h("tbody", {}, order.map((r) => h("tr", {}, h("th", { scope: "row" }, String(r + 1)), names.map((_, s) => cell(rounds.get(r), s))))),
    h("tfoot", {},
      h("tr", {}, h("th", { scope: "row" }, t("web.cu.total")), result.scores.map((v) => h("td", {}, String(v)))),
      h("tr", { class: "places" }, h("th", { scope: "row" }, t("web.score.place")), names.map((_, s) => h("td", { class: result.places[s] === 0 ? "winner" : "" }, place(s)))))));
}

/** The own hand: a control when a request is open (pass: choose 3; play: legal cards only). */
export function handPanel(msg, ctx, send) {
  const hand = sortHand(ctx.hand || []);
  const names = ctx.names;
  if (!msg) {
    return h("section", { class: "panel hand", "aria-label": t("web.cu.your_hand") }, h("h3", {}, t("web.cu.your_hand")),
      h("div", { class: "cards" }, hand.map((c) => cardFace(c))));
  }
  const req = msg.request;
  if (req.kind === "pass") {
    const chosen = new Set();
    const go = h("button", { type: "button", class: "primary", disabled: true, "data-pass-send": "1" });
    const refresh = () => {
      go.disabled = chosen.size !== req.info.count;
      go.textContent = t("web.cu.pass_to", { cards: [...chosen].map(cardShown).join(" ") || t("web.count.cards", { count: 3 }), name: names[req.info.to] });
    };
    const buttons = hand.map((c) => {
      const b = h("button", { type: "button", class: "card-button", "aria-pressed": "false", "data-card": c, "aria-label": t("web.cu.choose_to_pass", { card: cardLabel(c) }) }, cardFace(c));
      b.addEventListener("click", () => {
        if (chosen.has(c)) chosen.delete(c);
        else if (chosen.size < req.info.count) chosen.add(c);
        b.setAttribute("aria-pressed", String(chosen.has(c)));
        refresh();
      });
      return b;
    });
    go.addEventListener("click", () => send({ pass: [...chosen] }));
    refresh();
    return h("section", { class: "panel hand", "aria-label": t("web.cu.choose_3"), "data-kind": "pass" },
      h("h3", {}, t("web.cu.choose_3_to", { name: names[req.info.to] })),
      h("div", { class: "cards", role: "group", "aria-label": t("web.cu.your_hand") }, buttons),
      h("div", { class: "row" }, go));
  }
  const legal = new Set((req.choices || []).map((c) => c.play));
  const buttons = hand.map((c) => {
    const ok = legal.has(c);
    return h("button", {
      type: "button", class: "card-button", disabled: !ok, "data-card": c,
      "data-action": ok ? JSON.stringify({ play: c }) : undefined,
      "aria-label": ok ? cardLabel(c) : t("web.cu.must_follow", { card: cardLabel(c) }),
      onclick: ok ? () => send({ play: c }) : undefined,
    }, cardFace(c));
  });
  return h("section", { class: "panel hand", "aria-label": t("web.cu.play_a_card"), "data-kind": "play" },
    h("h3", {}, t("web.cu.your_turn_play")),
    h("div", { class: "cards", role: "group", "aria-label": t("web.cu.hand_disabled") }, buttons));
}

export function statusLine(obs, names, me) {
  if (!obs) return "";
  if (obs.phase === "over") return t("web.cu.over");
  // a spectator (me null) chooses nothing
  if (obs.phase === "pass") return me !== null && me !== undefined && obs.seat === me && !obs.passes_chosen[me] ? t("web.cu.choose_3_dot") : t("web.cu.wait_pass");
  return obs.turn === me ? t("web.cu.your_turn_play_dot") : t("web.cu.wait_play", { name: names[obs.turn] });
}

/**
 * Motion once the board is in the page: a finished trick, after a moment on the table, gathers
 * on the winner's card (it stays there, visible, until the next card is played).
 */
export function afterDraw(root, memory) {
  const won = root.querySelector(".slot.won .card");
  const key = won ? [...root.querySelectorAll(".slot .card")].map((c) => c.getAttribute("aria-label")).join("|") : "";
  const fresh = key && key !== memory.trickKey;
  memory.trickKey = key;
  if (!key) return;
  const still = (typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches)
    || typeof Element.prototype.animate !== "function";
  if (still) return;
  const to = won.getBoundingClientRect();
  for (const card of root.querySelectorAll(".slot.taken .card")) {
    const from = card.getBoundingClientRect();
    const end = `translate(${to.left - from.left + 6}px, ${to.top - from.top + 6}px) scale(0.9)`;
    if (fresh) {
      card.animate([{ transform: "none" }, { transform: end }], { duration: 350, delay: 700, easing: "ease-in", fill: "forwards" });
    } else {
      card.style.transform = end; // drawn again while the trick waits: it is gathered already
    }
  }
}
