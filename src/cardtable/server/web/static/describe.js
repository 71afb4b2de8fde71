// Plain-words lines for events, the same words as the engines' describe.py modules
// (cardtable/games/kuhhandel/describe.py and cardtable/games/cunegonda/describe.py);
// tests/web/test_describe_mirror.py runs this file in Node.js on real games and checks every line.

export function describe(game, event, names) {
  return game === "cunegonda" ? describeCunegonda(event, names) : describeKuhhandel(event, names);
}

function whoOf(names) {
  return (seat) => (Number.isInteger(seat) && seat >= 0 && seat < names.length ? names[seat] : `seat ${seat}`);
}

// note values as a person counts them, not a list: [10, 10, 50] -> "2 × 10 + 50 = 70"
// (the engine's describe.py _values: equal notes grouped, smallest first, the total after several)
export function list(notes, total = true) {
  if (!notes || !notes.length) return "no notes";
  const values = [...notes].sort((a, b) => a - b);
  const groups = [...new Set(values)].map((v) => [v, values.filter((x) => x === v).length]);
  const words = groups.map(([v, n]) => (n === 1 ? String(v) : `${n} \u00d7 ${v}`)).join(" + ");
  return total && values.length > 1 ? `${words} = ${values.reduce((a, b) => a + b, 0)}` : words;
}
const notes = (n) => `${n} ${n === 1 ? "note" : "notes"}`;

// an animal's plural as a person says it (describe.py's plural_name): Dogs, Geese, Sheep
const PLURALS = { Goose: "Geese", Sheep: "Sheep", Mouse: "Mice", Ox: "Oxen", Deer: "Deer" };
export function pluralName(name) {
  if (Object.hasOwn(PLURALS, name)) return PLURALS[name];
  if (/(s|x|z|ch|sh)$/.test(name)) return `${name}es`;
  if (name.length > 1 && name.endsWith("y") && !"aeiou".includes(name[name.length - 2])) return `${name.slice(0, -1)}ies`;
  return `${name}s`;
}
/** A number of cards of one animal: "1 Goose", "2 Geese". */
export const animals = (count, name) => `${count} ${count === 1 ? name : pluralName(name)}`;

export function describeKuhhandel(event, names = []) {
  const d = event.data || {};
  const who = whoOf(names);
  switch (event.kind) {
    case "start": return `A game for ${d.seats} seats begins; ${who(d.first)} starts; ${d.deck} cards in the deck.`;
    case "turn": case "auction": case "pass": case "claim_chosen": case "wallets": return "";
    case "end_phase": return "The deck is empty: every turn is now a cow trade.";
    case "draw": return `${who(d.seat)} draws the ${d.name} (${d.deck} left).`;
    case "laid": return `The ${d.name} is laid face up in front of ${who(d.seat)}.`;
    case "payout": return `Donkey! The bank pays a ${d.note} note to ${d.seats.length} seats.`;
    case "bid": return `${who(d.seat)} bids ${d.amount}.`;
    case "knock": return `${who(d.seat)} knocks the auction down.`;
    case "no_bid": return `Nobody bids: ${who(d.seat)} takes the ${d.name} for free.`;
    case "closed": return `Going once, going twice, sold: ${d.high} from ${who(d.high_bidder)}.`;
    case "decision":
      if (d.for === "pedigree") return `${who(d.seat)} ${d.buy ? "keeps the card and pays the claimant" : "lets the claimant have it"}.`;
      return `${who(d.seat)} ${d.buy ? "keeps the card and pays the highest bid" : "sells to the highest bidder"}.`;
    case "exposed": return `${who(d.seat)} cannot pay and shows ${list(d.notes, false)} (worth ${d.value}); the auction is repeated.`;
    case "payment": return `${who(d.from)} pays ${d.amount} to ${who(d.to)} (${notes(d.count)}).`;
    case "payment_notes": return `(notes: ${list(d.notes)})`;
    case "card": return `${who(d.seat)} gets the ${d.name}.`;
    case "challenge": return `${who(d.seat)} challenges ${who(d.opponent)} to a cow trade for ${animals(d.cards, d.name)}.`;
    case "offer": return `${who(d.seat)} offers ${notes(d.count)} face down.`;
    case "accept": return `${who(d.seat)} accepts.`;
    case "counter": return `${who(d.seat)} counters with ${notes(d.count)}.`;
    case "tie": return "A tie! The offers are exchanged and the challenger offers again.";
    case "tie_notes": return `(offers: ${list(d.offer)} against ${list(d.counter)})`;
    case "trade": return `${who(d.winner)} wins ${animals(d.cards, d.name)}.`;
    case "trade_notes": return d.counter === null ? `(offer ${list(d.offer)}; accepted, no counter-offer)` : `(offer ${list(d.offer)}; counter ${list(d.counter)})`;
    case "skip": return `${who(d.seat)} cannot trade and is skipped.`;
    case "countdown": return `${who(d.seat)} counts down from ${d.from} for the pedigree card.`;
    case "claimed": return `${who(d.seat)} claims it at ${d.count}!`;
    case "no_claim": return `Nobody claims: ${who(d.seat)} keeps the ${d.name} for free.`;
    case "rat": return `A rat! Starting left of ${who(d.seat)}, each takes it or places a note.`;
    case "rat_note": return `${who(d.seat)} places a note beside the rat (${notes(d.count)} there).`;
    case "rat_note_value": return `(${who(d.seat)} placed ${d.note})`;
    case "rat_taken": return `${who(d.seat)} takes the rat and ${notes(d.count)}.`;
    case "rat_notes": return `(the notes: ${list(d.notes)})`;
    case "super_trade": return `Super trade: ${who(d.seat)} may still hold an auction.`;
    case "divide": return `${who(d.seat)} looks at the top card to divide it.`;
    case "peek": return `(${who(d.seat)} sees the ${d.name})`;
    case "divided": return `${who(d.seat)} ${d.keep ? "keeps it" : "gives it away"}.`;
    case "end": return `The game ends: ${d.reason}.`;
    default: return `${event.kind}: ${JSON.stringify(d)}`;
  }
}

const SUIT_WORDS = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const RANK_WORDS = { J: "jack", Q: "queen", K: "king", A: "ace" };
const PLACE_WORDS = ["1st", "2nd", "3rd", "4th"];

export function cardLongName(name) {
  const suit = name.slice(-1);
  const rank = name.slice(0, -1);
  return `the ${RANK_WORDS[rank] || rank} of ${SUIT_WORDS[suit]}`;
}

export function heartPenalty(name) {
  const rank = name.slice(0, -1);
  return { J: 11, Q: 12, K: 13, A: 14 }[rank] || Number(rank);
}

// cards as on the table's faces, not engine codes: ["6C", "QS"] -> "6♣ Q♠" (describe.py _cards)
const SUIT_SYMBOLS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
export const cardsInSymbols = (codes) => codes.map((c) => c.slice(0, -1) + SUIT_SYMBOLS[c.slice(-1)]).join(" ");

const signed = (n) => (n >= 0 ? `+${n}` : `${n}`);

export function describeCunegonda(event, names = []) {
  const d = event.data || {};
  const who = (seat) => (seat >= 0 && seat < names.length && names[seat] ? names[seat] : `Seat ${seat}`);
  switch (event.kind) {
    case "play": return `${who(d.seat)} plays ${cardLongName(d.card)}`;
    case "trick": {
      let line = `${who(d.winner)} wins trick ${d.trick + 1} with ${cardLongName(d.card)}: ${signed(d.value)}`;
      const costs = [];
      if (d.queen) costs.push("queen of spades -26");
      if (d.hearts && d.hearts.length) {
        const points = d.hearts.reduce((sum, c) => sum + heartPenalty(c), 0);
        costs.push(`hearts ${cardsInSymbols(d.hearts)} -${points}`);
      }
      return costs.length ? `${line} (${costs.join(", ")})` : line;
    }
    case "round_start": return `Round ${d.round + 1} of ${d.rounds}: ${who(d.leader)} leads`;
    case "deal": return `${who(d.seat)} is dealt ${cardsInSymbols(d.cards)}`;
    case "pass_chosen": return `${who(d.seat)} has chosen 3 cards to pass`;
    case "pass": return `${who(d.seat)} passes ${cardsInSymbols(d.cards)} to ${who(d.to)}`;
    case "moon": return `${who(d.seat)} shoots the moon: all 13 hearts and the queen of spades (+60, -20 for each other seat)`;
    case "round_end": {
      const scores = d.scores.map((v, s) => `${who(s)} ${signed(v)}`).join(", ");
      const totals = d.totals.map((v, s) => `${who(s)} ${v}`).join(", ");
      return `Round ${d.round + 1} scores: ${scores}; totals: ${totals}`;
    }
    case "match_end": {
      const order = d.totals.map((_, s) => s).sort((a, b) => d.places[a] - d.places[b] || a - b);
      const standing = order.map((s) => `${PLACE_WORDS[d.places[s]]} ${who(s)} ${d.totals[s]}`).join(", ");
      return `Match over after ${d.rounds} ${d.rounds === 1 ? "round" : "rounds"}: ${standing}`;
    }
    case "aborted": return `The match was stopped: ${d.reason}`;
    default: return `${event.kind}: ${JSON.stringify(d)}`;
  }
}
