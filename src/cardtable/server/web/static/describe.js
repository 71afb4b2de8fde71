// Plain-words lines for events, in the person's language: the same catalog keys and arguments as
// the engines' describe.py modules (cardtable/games/kuhhandel/describe.py and
// cardtable/games/cunegonda/describe.py), rendered with the same catalogs
// (src/cardtable/i18n/catalogs/). tests/web/test_describe_shared.py runs this file in Node.js on
// real games and checks that every line is the Python side's in English and in German.

import { t, has } from "./i18n.js";

export function describe(game, event, names) {
  return game === "cunegonda" ? describeCunegonda(event, names) : describeKuhhandel(event, names);
}

/** The sentence of `key`, or `fallback` when no catalog holds the key (a custom species). */
const say = (key, args = {}, fallback = null) => (fallback !== null && !has(key) ? fallback : t(key, args));

/** An animal by its English species name, counted (the catalog's animal.goose), or the name. */
export function animal(name, count = 1) {
  const slug = String(name).toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
  return say(`animal.${slug}`, { count }, name);
}

/** A Kuhhandel card by the name its events carry: "Goose", "Goose pedigree", "Rat". */
export function card(name, count = 1) {
  if (name === "Rat") return t("card.rat", { count });
  if (name.endsWith(" pedigree")) return t("card.pedigree", { animal: animal(name.slice(0, -" pedigree".length)) });
  return animal(name, count);
}

/** A number of cards of one animal: "1 Goose", "2 Geese". */
export const animals = (count, name) => t("count.animals", { count, animal: card(name, count) });
const notes = (count) => t("count.notes", { count });

// note values as a person counts them, not a list: [10, 10, 50] -> "2 × 10 + 50 = 70"
// (equal notes grouped, smallest first, the total after several)
export function list(values, total = true) {
  if (!values || !values.length) return t("notes.none");
  const ordered = [...values].sort((a, b) => a - b);
  const groups = [...new Set(ordered)].map((v) => [v, ordered.filter((x) => x === v).length]);
  const terms = groups.map(([v, n]) => (n === 1 ? String(v) : t("notes.group", { count: n, value: v }))).join(" + ");
  if (total && ordered.length > 1) return t("notes.sum", { terms, total: ordered.reduce((a, b) => a + b, 0) });
  return t("notes.list", { terms });
}

export function describeKuhhandel(event, names = []) {
  const d = event.data || {};
  const who = (seat) => (Number.isInteger(seat) && seat >= 0 && seat < names.length ? names[seat] : t("log.kuhhandel.seat", { seat: String(seat) }));
  const k = event.kind;
  const key = `log.kuhhandel.${k}`;
  switch (k) {
    case "turn": case "auction": case "pass": case "claim_chosen": case "wallets": return "";
    case "start": return t(key, { seats: d.seats, first: who(d.first), deck: d.deck });
    case "end_phase": case "tie": return t(key);
    case "draw": return t(key, { who: who(d.seat), card: card(d.name), deck: d.deck });
    case "laid": case "no_bid": case "card": case "no_claim": return t(key, { who: who(d.seat), card: card(d.name) });
    case "payout": return t(key, { note: d.note, seats: d.seats.length });
    case "bid": return t(key, { who: who(d.seat), amount: d.amount });
    case "knock": case "accept": case "skip": case "divide": case "rat": case "super_trade": return t(key, { who: who(d.seat) });
    case "closed": return t(key, { high: d.high, who: who(d.high_bidder) });
    case "decision": {
      const how = d.for === "pedigree" ? (d.buy ? "preempt" : "release") : (d.buy ? "buy" : "sell");
      return t(`${key}.${how}`, { who: who(d.seat) });
    }
    case "exposed": return t(key, { who: who(d.seat), notes: list(d.notes, false), value: d.value });
    case "payment": return t(key, { payer: who(d.from), amount: d.amount, payee: who(d.to), count: d.count });
    case "payment_notes": case "rat_notes": return t(key, { notes: list(d.notes) });
    case "challenge": return t(key, { who: who(d.seat), opponent: who(d.opponent), animals: animals(d.cards, d.name) });
    case "offer": case "counter": case "rat_note": case "rat_taken": return t(key, { who: who(d.seat), count: d.count });
    case "tie_notes": return t(key, { offer: list(d.offer), counter: list(d.counter) });
    case "trade": return t(key, { who: who(d.winner), animals: animals(d.cards, d.name) });
    case "trade_notes":
      if (d.counter === null) return t(`${key}.accepted`, { offer: list(d.offer) });
      return t(key, { offer: list(d.offer), counter: list(d.counter) });
    case "countdown": return t(key, { who: who(d.seat), start: d.from });
    case "claimed": return t(key, { who: who(d.seat), count: d.count });
    case "rat_note_value": return t(key, { who: who(d.seat), note: d.note });
    case "peek": return t(key, { who: who(d.seat), card: card(d.name) });
    case "divided": return t(`${key}.${d.keep ? "keep" : "give"}`, { who: who(d.seat) });
    case "end": return t(key, { termination: String(d.termination), reason: String(d.reason) });
    default: return t("log.unknown", { kind: k, data: JSON.stringify(d) });
  }
}

/** A Cunegonda card in words: "the queen of spades" (rank and suit as codes for `select`). */
export const cardLongName = (code) => t("card.cunegonda.long", { rank: code.slice(0, -1), suit: code.slice(-1) });

export function heartPenalty(name) {
  const rank = name.slice(0, -1);
  return { J: 11, Q: 12, K: 13, A: 14 }[rank] || Number(rank);
}
const QUEEN_PENALTY = 26;

// cards as on the table's faces, not engine codes: ["6C", "QS"] -> "6♣ Q♠" (the same everywhere)
const SUIT_SYMBOLS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
export const cardsInSymbols = (codes) => codes.map((c) => c.slice(0, -1) + SUIT_SYMBOLS[c.slice(-1)]).join(" ");

const signed = (n) => (n >= 0 ? `+${n}` : `${n}`);

export function describeCunegonda(event, names = []) {
  const d = event.data || {};
  const who = (seat) => (seat >= 0 && seat < names.length && names[seat] ? names[seat] : t("log.cunegonda.seat", { seat: String(seat) }));
  const key = `log.cunegonda.${event.kind}`;
  switch (event.kind) {
    case "play": return t(key, { who: who(d.seat), card: cardLongName(d.card) });
    case "trick": {
      const costs = [];
      if (d.queen) costs.push(t("log.cunegonda.cost.queen", { points: QUEEN_PENALTY }));
      if (d.hearts && d.hearts.length) {
        const points = d.hearts.reduce((sum, c) => sum + heartPenalty(c), 0);
        costs.push(t("log.cunegonda.cost.hearts", { cards: cardsInSymbols(d.hearts), points }));
      }
      const args = { who: who(d.winner), trick: d.trick + 1, card: cardLongName(d.card), value: signed(d.value) };
      return costs.length ? t(`${key}.costs`, { ...args, costs: costs.join(", ") }) : t(key, args);
    }
    case "round_start": return t(key, { round: d.round + 1, rounds: d.rounds, who: who(d.leader) });
    case "deal": return t(key, { who: who(d.seat), cards: cardsInSymbols(d.cards) });
    case "pass_chosen": return t(key, { who: who(d.seat), count: 3 });
    case "pass": return t(key, { who: who(d.seat), cards: cardsInSymbols(d.cards), to: who(d.to) });
    case "moon": return t(key, { who: who(d.seat) });
    case "round_end": {
      const scores = d.scores.map((v, s) => t("log.cunegonda.seat_points", { who: who(s), points: signed(v) })).join(", ");
      const totals = d.totals.map((v, s) => t("log.cunegonda.seat_points", { who: who(s), points: v })).join(", ");
      return t(key, { round: d.round + 1, scores, totals });
    }
    case "match_end": {
      const order = d.totals.map((_, s) => s).sort((a, b) => d.places[a] - d.places[b] || a - b);
      const standing = order.map((s) => t("log.cunegonda.standing", { place: d.places[s] + 1, who: who(s), total: d.totals[s] })).join(", ");
      return t(key, { rounds: d.rounds, standing });
    }
    case "aborted": return t(key, { reason: String(d.reason) });
    default: return t("log.unknown", { kind: event.kind, data: JSON.stringify(d) });
  }
}
