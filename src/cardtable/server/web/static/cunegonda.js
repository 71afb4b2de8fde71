// The Cunegonda table: four seats, the trick in the middle, your hand, the match table.
// Cards are named like the engine names them: "2C", "10H", "QS", "AD".

import { h } from "./dom.js";
import { cardLongName } from "./describe.js";

const SUIT_SYMBOL = { C: "♣", D: "♦", H: "♥", S: "♠" };
const SUIT_ORDER = { C: 0, D: 1, S: 2, H: 3 };
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];

function rankIndex(name) { return RANKS.indexOf(name.slice(0, -1)); }

export function sortHand(cards) {
  return [...cards].sort((a, b) => SUIT_ORDER[a.slice(-1)] - SUIT_ORDER[b.slice(-1)] || rankIndex(a) - rankIndex(b));
}

/** A card face (not a control). */
export function cardFace(name, extra = "") {
  const suit = name.slice(-1);
  return h("span", { class: `card suit-${suit} ${extra}`, "aria-label": cardLongName(name), role: "img" },
    h("span", { class: "rank", "aria-hidden": "true" }, name.slice(0, -1)),
    h("span", { class: "pip", "aria-hidden": "true" }, SUIT_SYMBOL[suit]));
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

/** ctx: {names, me, hand (own cards or null), revealed (every hand, replays), seats (holders)} */
export function renderBoard(obs, ctx) {
  const { names, me } = ctx;
  const who = (s) => (s === me ? "You" : names[s] || `Seat ${s}`);
  const root = h("div", { class: "cu-board" });
  // seats around the table, the viewer at the bottom
  const base = me === null || me === undefined ? 0 : me;
  const positions = ["south", "west", "north", "east"];
  const ring = h("div", { class: "cu-ring" });
  for (let k = 0; k < 4; k++) {
    const s = (base + k) % 4;
    const played = obs.trick.find(([seat]) => seat === s);
    const holder = ctx.seats && ctx.seats[s];
    const tags = [];
    if (obs.turn === s) tags.push(h("span", { class: "tag turn" }, s === me ? "your turn" : "to play"));
    if (obs.phase === "pass" && obs.passes_chosen[s]) tags.push(h("span", { class: "tag" }, "passed"));
    if (holder && holder.away) tags.push(h("span", { class: "tag away" }, "house bot playing"));
    else if (holder && holder.kind !== "guest") tags.push(h("span", { class: "tag bot" }, holder.kind === "house" ? "house bot" : "bot"));
    const revealed = ctx.revealed && ctx.revealed[s];
    ring.appendChild(h("div", { class: `cu-seat ${positions[k]}${obs.turn === s ? " active" : ""}`, "data-seat": s },
      h("div", { class: "seat-head" }, h("strong", {}, names[s] || `Seat ${s}`), tags),
      h("div", { class: "small" }, `round ${obs.round_points[s] >= 0 ? "+" : ""}${obs.round_points[s]} · total ${obs.totals[s]}`),
      revealed && s !== me ? h("div", { class: "mini-hand", "aria-label": `${names[s]}'s hand` }, sortHand(revealed).map((c) => cardFace(c, "small"))) : null,
      h("div", { class: "slot" }, played ? cardFace(played[1]) : null)));
  }
  const last = obs.tricks.length ? obs.tricks[obs.tricks.length - 1] : null;
  ring.appendChild(h("div", { class: "cu-middle", "aria-live": "polite" },
    h("div", {}, `Round ${Math.min(obs.round + 1, obs.rounds)} of ${obs.rounds}`),
    obs.phase === "pass" ? h("div", {}, "Passing: each seat chooses 3 cards for the seat on its right.") : null,
    obs.phase === "play" ? h("div", {}, `Trick ${obs.tricks.length + 1} of 13`) : null,
    last && obs.trick.length === 0 && obs.phase === "play"
      ? h("div", { class: "last-trick" }, `${who(last.winner)} won the last trick (${last.value >= 0 ? "+" : ""}${last.value}): `,
        last.cards.map(([, c]) => cardFace(c, "small")))
      : null));
  root.appendChild(ring);
  if (ctx.handSlot) root.appendChild(ctx.handSlot); // the seat's hand, right under the table
  root.appendChild(matchTable(obs, names));
  return root;
}

export function matchTable(obs, names) {
  const rows = [];
  for (let r = 0; r < obs.rounds; r++) {
    const scores = obs.round_scores[r];
    rows.push(h("tr", { class: r === obs.round && obs.phase !== "over" ? "current" : "" },
      h("th", { scope: "row" }, String(r + 1)),
      names.map((_, s) => h("td", {}, scores ? String(scores[s]) : ""))));
  }
  return h("table", { class: "match", "aria-label": "The match table: scores per round" },
    h("caption", {}, `Match table (${obs.rounds} rounds)`),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Round"), names.map((n) => h("th", { scope: "col" }, n)))),
    h("tbody", {}, rows),
    h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, "Total"), obs.totals.map((t) => h("td", {}, String(t))))));
}

/** The own hand: a control when a request is open (pass: choose 3; play: legal cards only). */
export function handPanel(msg, ctx, send) {
  const hand = sortHand(ctx.hand || []);
  const names = ctx.names;
  if (!msg) {
    return h("section", { class: "panel hand", "aria-label": "Your hand" }, h("h3", {}, "Your hand"),
      h("div", { class: "cards" }, hand.map((c) => cardFace(c))));
  }
  const req = msg.request;
  if (req.kind === "pass") {
    const chosen = new Set();
    const go = h("button", { type: "button", class: "primary", disabled: true, "data-pass-send": "1" });
    const refresh = () => {
      go.disabled = chosen.size !== req.info.count;
      go.textContent = `Pass ${[...chosen].join(" ") || "3 cards"} to ${names[req.info.to]}`;
    };
    const buttons = hand.map((c) => {
      const b = h("button", { type: "button", class: "card-button", "aria-pressed": "false", "data-card": c, "aria-label": `${cardLongName(c)}: choose to pass` }, cardFace(c));
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
    return h("section", { class: "panel hand", "aria-label": "Choose 3 cards to pass", "data-kind": "pass" },
      h("h3", {}, `Choose 3 cards to pass to ${names[req.info.to]}`),
      h("div", { class: "cards", role: "group", "aria-label": "Your hand" }, buttons),
      h("div", { class: "row" }, go));
  }
  const legal = new Set((req.choices || []).map((c) => c.play));
  const buttons = hand.map((c) => {
    const ok = legal.has(c);
    return h("button", {
      type: "button", class: "card-button", disabled: !ok, "data-card": c,
      "data-action": ok ? JSON.stringify({ play: c }) : undefined,
      "aria-label": `${cardLongName(c)}${ok ? "" : " (you must follow suit)"}`,
      onclick: ok ? () => send({ play: c }) : undefined,
    }, cardFace(c));
  });
  return h("section", { class: "panel hand", "aria-label": "Play a card", "data-kind": "play" },
    h("h3", {}, "Your turn: play a card"),
    h("div", { class: "cards", role: "group", "aria-label": "Your hand (cards you may not play are disabled)" }, buttons));
}

export function statusLine(obs, names, me) {
  if (!obs) return "";
  if (obs.phase === "over") return "The match is over.";
  if (obs.phase === "pass") return obs.seat === me && !obs.passes_chosen[me] ? "Choose 3 cards to pass." : "Waiting for every seat to pass.";
  return obs.turn === me ? "Your turn: play a card." : `Waiting for ${names[obs.turn]} to play.`;
}
