// The Kuhhandel table: the board (seats, animals, notes, the auction or cow trade under way) and
// one panel per open request that offers only legal choices.
//
// Requests and actions are the engine's JSON (cardtable/games/kuhhandel/actions.py); the
// observation is observe.py's to_json. A seat's own notes come with every request; between
// requests they are kept up to date from the events this seat receives.

import { h, svg, plural, toast, kept } from "./dom.js";
import { list as countedNotes, animal, animals as countedAnimals } from "./describe.js";
import { seatName, presenceTag } from "./names.js";
import { t, has } from "./i18n.js";

// ---------------------------------------------------------------- money (spec §4.6, money.py)

/** Counts per note value of a list of notes, as [[value, count], ...] ascending. */
function countNotes(notes) {
  const m = new Map();
  for (const v of notes) m.set(v, (m.get(v) || 0) + 1);
  return [...m.entries()].sort((a, b) => a[0] - b[0]);
}

/**
 * Every valid payment of `amount` from `wallet` (note values): the notes total at least the
 * amount and no note could be left out (total - smallest < amount). Cheapest first (least
 * overpaid, then fewest notes), so the first one is what money.cheapest_payment suggests.
 */
export function legalPayments(wallet, amount, limit = 40) {
  if (amount <= 0) return [[]];
  const kinds = countNotes(wallet.filter((v) => v > 0));
  const out = [];
  const pick = new Array(kinds.length).fill(0);
  const walk = (i, total) => {
    if (i === kinds.length) {
      if (total < amount) return;
      const chosen = [];
      kinds.forEach(([v], k) => { for (let n = 0; n < pick[k]; n++) chosen.push(v); });
      if (chosen.length && total - chosen[0] < amount) out.push(chosen);
      return;
    }
    const [v, c] = kinds[i];
    for (let n = 0; n <= c; n++) {
      pick[i] = n;
      walk(i + 1, total + n * v);
      if (total + n * v >= amount) break; // more of this note could always be left out
    }
    pick[i] = 0;
  };
  walk(0, 0);
  const sum = (p) => p.reduce((a, b) => a + b, 0);
  out.sort((a, b) => sum(a) - sum(b) || a.length - b.length);
  return out.slice(0, limit);
}

/** Pedigree payments (§9.2): exactly `count` notes of any value; the cheapest first. */
export function countPayments(wallet, count, limit = 40) {
  const kinds = countNotes(wallet);
  const out = [];
  const pick = new Array(kinds.length).fill(0);
  const walk = (i, left) => {
    if (i === kinds.length) {
      if (left === 0) {
        const chosen = [];
        kinds.forEach(([v], k) => { for (let n = 0; n < pick[k]; n++) chosen.push(v); });
        out.push(chosen);
      }
      return;
    }
    const [, c] = kinds[i];
    for (let n = 0; n <= Math.min(c, left); n++) {
      pick[i] = n;
      walk(i + 1, left - n);
    }
    pick[i] = 0;
  };
  walk(0, count);
  const sum = (p) => p.reduce((a, b) => a + b, 0);
  out.sort((a, b) => sum(a) - sum(b));
  return out.slice(0, limit);
}

function removeNotes(wallet, notes) {
  const w = [...wallet];
  for (const v of notes) {
    const i = w.indexOf(v);
    if (i >= 0) w.splice(i, 1);
  }
  return w;
}

function addNotes(wallet, notes) {
  return [...wallet, ...notes].sort((a, b) => a - b);
}

/** The seat's notes after `event` (only events this seat receives move its notes). */
export function trackWallet(wallet, event, me) {
  const d = event.data;
  switch (event.kind) {
    case "payout": return d.seats.includes(me) ? addNotes(wallet, [d.note]) : wallet;
    case "payment_notes":
      if (d.from === me) return removeNotes(wallet, d.notes);
      if (d.to === me) return addNotes(wallet, d.notes);
      return wallet;
    case "trade_notes":
    case "tie_notes": {
      let w = wallet;
      const counter = d.counter || [];
      if (d.challenger === me) w = addNotes(removeNotes(w, d.offer), counter);
      if (d.opponent === me) w = addNotes(removeNotes(w, counter), d.offer);
      return w;
    }
    case "rat_note_value": return d.seat === me ? removeNotes(wallet, [d.note]) : wallet;
    case "rat_notes": return d.seat === me ? addNotes(wallet, d.notes) : wallet;
    case "wallets": return d.wallets[me] || wallet;
    default: return wallet;
  }
}

/** The start wallet of a rule set (before the first request arrives). */
export function startWallet(rules) {
  const out = [];
  rules.notes.forEach((v, i) => { for (let n = 0; n < rules.start_wallet[i]; n++) out.push(v); });
  return out;
}

// ---------------------------------------------------------------- names

/** An animal's name in the person's language (the catalog's animal.*), else the rule set's. */
export const animalName = (name) => animal(name);

/** The English name a species has in the events and the catalogs' keys ("Rat" for the rats). */
const speciesKey = (rules, k) => (k === rules.species.length || !rules.species[k] ? "Rat" : rules.species[k].name);

function speciesName(rules, k) {
  if (k === rules.species.length) return t("web.kh.rat");
  return rules.species[k] ? animalName(rules.species[k].name) : `#${k}`;
}

/** "2 Dogs" in the person's language, from the species' English name. */
const animals = (count, name) => countedAnimals(count, name);

function cardName(rules, card) {
  const n = rules.species.length;
  if (card < n) return animalName(rules.species[card].name);
  if (card < 2 * n) return t("web.kh.pedigree_of", { name: animalName(rules.species[card - n].name) });
  return t("web.kh.rat");
}

// ---------------------------------------------------------------- card art

/** The drawings of cards/kuhhandel.svg (one symbol per classic animal, the rat, a fallback). */
const ART = "/static/cards/kuhhandel.svg";
const DRAWN = new Set(["chicken", "goose", "cat", "dog", "sheep", "goat", "donkey", "pig", "cow", "horse"]);

/**
 * The pictures (an <svg> with a <use> of a symbol) are built once each and then copied: a draw
 * builds every card and note of the parts that changed, and a copy costs a fraction of building
 * two SVG elements and setting their attributes (the href of a <use> most); in a profile of a
 * Master game the pictures were an eighth of the page's script (issue 37).
 */
const PICTURES = new Map();
function copied(key, build) {
  let model = PICTURES.get(key);
  if (!model) PICTURES.set(key, (model = build()));
  return model.cloneNode(true);
}

function picture(id, cls = "art") {
  return copied(`${cls} ${id}`, () => svg("svg", { class: cls, viewBox: id === "back" ? "0 0 100 140" : "0 0 100 100", "aria-hidden": "true", focusable: "false" },
    svg("use", { href: `${ART}#${id}` })));
}

function speciesArt(rules, k) {
  if (k === rules.species.length) return "rat";
  const name = (rules.species[k] ? rules.species[k].name : "").toLowerCase();
  return DRAWN.has(name) ? name : "animal";
}

/**
 * One card as a picture: an animal (card < species), its pedigree card (< 2 × species) or a rat.
 * size: "big" (the lot), "" (herds).
 */
export function cardArt(rules, card, size = "") {
  const n = rules.species.length;
  if (card >= 2 * n) {
    return h("span", { class: `kcard rat ${size}`, role: "img", "aria-label": t("web.kh.rat") },
      h("span", { class: "kname" }, t("web.kh.rat")), picture("rat"));
  }
  const k = card % n;
  const sp = rules.species[k];
  const pedigree = card >= n;
  return h("span", {
    class: `kcard${pedigree ? " pedigree" : ""} ${size}`, role: "img", "data-species": k,
    "aria-label": pedigree ? t("web.kh.pedigree_card", { name: animalName(sp.name) }) : t("web.kh.card_label", { name: animalName(sp.name), value: sp.value }),
  },
  h("span", { class: animalName(sp.name).length > 6 ? "kname long" : "kname" }, animalName(sp.name)),
  picture(speciesArt(rules, k)),
  pedigree ? h("span", { class: "ribbon" }, picture("rosette", "art rosette")) : null,
  h("span", { class: "kvalue" }, pedigree ? t("web.kh.pedigree") : String(sp.value)));
}

const NOTE_ART = "/static/cards/notes.svg";
/** The values drawn in cards/notes.svg (every preset's notes); others get plain paper. */
export const DRAWN_NOTES = new Set([0, 10, 20, 50, 100, 200, 500]);

/** A note's picture from cards/notes.svg: "n500" (a face) or "back". */
function notePicture(id) {
  return copied(`note ${id}`, () => svg("svg", { class: "note-art", viewBox: "0 0 80 44", "aria-hidden": "true", focusable: "false" },
    svg("use", { href: `${NOTE_ART}#${id}` })));
}

/** A banknote: its value large in the middle, its own colour and pattern by value (cards/notes.svg). */
export function noteArt(v, extra = "") {
  if (!DRAWN_NOTES.has(v)) {  // a custom rule set's value: plain paper, the value written on it
    return h("span", { class: `note n${v} other ${extra}`, "aria-hidden": "true", "data-value": v },
      notePicture("nother"), h("span", { class: "nv" }, String(v)));
  }
  return h("span", { class: `note n${v} ${extra}`, "aria-hidden": "true", "data-value": v }, notePicture(`n${v}`));
}

/** A note lying face down (an offer, the rat's pile, another seat's wallet). */
export function noteBack(extra = "") {
  return h("span", { class: `note back ${extra}`, "aria-hidden": "true" }, notePicture("back"));
}

function noteChips(notes, label) {
  if (!notes || notes.length === 0) return h("span", { class: "muted" }, t("web.kh.no_notes"));
  return h("span", { class: "notes", role: "img", "aria-label": `${label}: ${countedNotes(notes)}` },
    notes.map((v) => noteArt(v)));
}

/** Notes grouped by value: one note per value with "×count". */
function noteStacks(notes, label) {
  if (!notes || notes.length === 0) return h("span", { class: "muted" }, t("web.kh.no_notes"));
  return h("span", { class: "notes stacks", role: "img", "aria-label": `${label}: ${countNotes(notes).map(([v, c]) => `${c} × ${v}`).join(", ")}` },
    countNotes(notes).map(([v, c]) => h("span", { class: `stack${c > 1 ? " many" : ""}` }, noteArt(v), c > 1 ? h("span", { class: "times" }, `×${c}`) : null)));
}

/** Face-down notes (an offer, the rat's pile): backs only. */
function noteBacks(count, label) {
  return h("span", { class: "notes backs", role: "img", "aria-label": label },
    Array.from({ length: Math.min(count, 12) }, () => noteBack()));
}

// ---------------------------------------------------------------- the board

/** Where each seat sits: the viewer at the bottom, the others clockwise from its left. */
function placeSeats(n, me) {
  const base = me === null || me === undefined ? 0 : me;
  const others = [];
  for (let i = 1; i < n; i++) others.push((base + i) % n);
  const spots = { south: [base], west: [], north: [], east: [] };
  if (others.length === 1) spots.north = others;
  else if (others.length === 2) { spots.west = [others[0]]; spots.east = [others[1]]; }
  else { spots.west = [others[0]]; spots.east = [others[others.length - 1]]; spots.north = others.slice(1, -1); }
  return spots;
}

/** The board is patched in place from draw to draw (table.js, dom.js morph). */
export const PATCH_BOARD = true;

/**
 * ctx: {names, me (seat or null), rules, wallet (own notes or null), revealed (every wallet, for
 * replays and the end), seats (holders from /public: away flags), clock (open-auction text),
 * events (the events so far, [index, event] sorted: for "what just happened"), memory (an object
 * kept between draws: what changed since the last draw is animated), yourTurn}
 */
export function renderBoard(obs, ctx) {
  const { me } = ctx;
  const memory = ctx.memory || {};
  // what changed since the last draw gets a one-shot highlight (a class whose CSS animation plays
  // once); for a person who asked for reduced motion the CSS plays none, so none is drawn: an
  // element drawn with one is put in new, with its pictures (dom.js morph), for nothing
  const still = reducedMotion();
  const changed = {
    herds: obs.herds.map((herd, s) => herd.map((c, k) => !still && memory.herds && memory.herds[s] && c > memory.herds[s][k])),
    notes: obs.note_counts.map((c, s) => (!still && memory.notes ? Math.sign(c - memory.notes[s]) : 0)),
  };
  memory.herds = obs.herds.map((x) => [...x]);
  memory.notes = [...obs.note_counts];
  const spots = placeSeats(obs.seats, me);
  // a seat whose drawing did not change since the last draw is kept as it is in the page
  // (dom.js kept/morph): an event changes one or two seats, not all of them
  const keys = memory.seatKeys || (memory.seatKeys = {});
  const versions = memory.seatVersions || (memory.seatVersions = {});
  const seat = (s, where) => {
    const key = seatKey(obs, ctx, s, where, changed);
    if (keys[s] === key) return kept("section", versions[s], () => seatCard(obs, ctx, s, where, changed));
    keys[s] = key;
    versions[s] = (versions[s] || 0) + 1;
    const el = seatCard(obs, ctx, s, where, changed);
    el.setAttribute("data-v", String(versions[s]));
    return el;
  };
  const table = h("div", { class: `kh-table seats-${obs.seats}${spots.west.length ? "" : " no-sides"}` },
    spots.north.length ? h("div", { class: "kh-north" }, spots.north.map((s) => seat(s, "north"))) : null,
    spots.west.length ? h("div", { class: "kh-west" }, seat(spots.west[0], "west")) : null,
    h("div", { class: "kh-center", "aria-label": t("web.kh.the_table") }, center(obs, ctx)),
    spots.east.length ? h("div", { class: "kh-east" }, seat(spots.east[0], "east")) : null,
    h("div", { class: "kh-south" }, seat(spots.south[0], "south")));
  const root = h("div", { class: "kh-board" }, table);
  if (me !== null && me !== undefined && ctx.wallet) {
    const total = ctx.wallet.reduce((a, b) => a + b, 0);
    root.appendChild(h("section", { class: "kh-mine", "aria-label": t("web.kh.your_notes"), "data-notes": ctx.wallet.join(",") },
      h("h3", {}, t("web.kh.your_notes_worth", { count: ctx.wallet.length, total })),
      drawnOnce(ctx, `${t("web.kh.your_notes")}|${ctx.wallet.join(",")}`, () => noteStacks(ctx.wallet, t("web.kh.your_notes")))));
  }
  return root;
}

/**
 * A part of a board drawn with pictures (a `<span>`) that is the same as long as `v` is: on a
 * board patched from draw to draw (`ctx.memory`: table.js), a stand-in (dom.js kept) that leaves
 * the part in the page alone, else the part itself. Each picture built (an `<svg>` whose `<use>`
 * names the drawings' file) costs the page a request to its cache even when the draw throws it
 * away unchanged: nine a draw in a Master game, the notes and the lot.
 */
function drawnOnce(ctx, v, build) {
  return ctx.memory ? kept("span", v, build) : build();
}

/** Everything seatCard() draws a seat from, as one string (equal: the same drawing). */
function seatKey(obs, ctx, s, where, changed) {
  const a = obs.auction, t = obs.trade;
  return JSON.stringify([where, ctx.me, ctx.names[s], ctx.pages && ctx.pages[s], ctx.seats && ctx.seats[s],
    obs.turn_seat === s, obs.over, Boolean(a), a && a.high_bidder === s ? a.high : null,
    t && (t.challenger === s || t.opponent === s), obs.herds[s], obs.pedigrees && obs.pedigrees[s],
    obs.rats && obs.rats[s], obs.note_counts[s], ctx.revealed && ctx.revealed[s], s === ctx.me ? ctx.wallet : null,
    a && a.exposed && a.exposed[String(s)], obs.payment && obs.payment.payer === s, s === ctx.me && ctx.yourTurn,
    changed.herds[s], changed.notes[s]]);
}

function seatCard(obs, ctx, s, where, changed) {
  const { names, me, rules } = ctx;
  const tags = [];
  if (s === me) tags.push(h("span", { class: "tag you" }, t("web.kh.tag_you")));
  if (obs.turn_seat === s && !obs.over) tags.push(h("span", { class: "tag turn" }, obs.auction ? t("web.kh.tag_auctioneer") : t("web.kh.tag_turn")));
  if (obs.auction && obs.auction.high_bidder === s) tags.push(h("span", { class: "tag high" }, t("web.kh.tag_high", { amount: obs.auction.high })));
  if (obs.trade && (obs.trade.challenger === s || obs.trade.opponent === s)) tags.push(h("span", { class: "tag trade" }, t("web.kh.tag_trade")));
  tags.push(presenceTag(ctx.seats && ctx.seats[s]));

  // a seat drawn again (its tags, its count of notes changed) keeps the pictures in the page
  // (drawnOnce): a new one of each was built and thrown away, a request to the cache each
  const herdCard = (card) => drawnOnce(ctx, `herd ${card} ${cardName(rules, card)}`, () => cardArt(rules, card));
  const herd = [];
  rules.species.forEach((sp, k) => {
    const have = obs.herds[s][k];
    if (!have) return;
    const complete = have === sp.payouts.length;
    herd.push(h("li", {
      class: `herd c${Math.min(have, 4)}${complete ? " quartet" : ""}${changed.herds[s][k] ? " arrived" : ""}`,
      "aria-label": t("web.kh.herd_label", { name: animalName(sp.name), have, of: sp.payouts.length, complete: String(complete) }),
    }, herdCard(k), h("span", { class: "hcount", "aria-hidden": "true" }, complete ? `✓ ${t("web.kh.quartet")}` : `${have}/${sp.payouts.length}`)));
  });
  for (const p of obs.pedigrees[s] || []) {
    herd.push(h("li", { class: "herd c1", "aria-label": t("web.kh.pedigree_card", { name: speciesName(rules, p) }) }, herdCard(rules.species.length + p)));
  }
  if (obs.rats && obs.rats[s]) {
    herd.push(h("li", { class: `herd c${Math.min(obs.rats[s], 4)}`, "aria-label": t("web.count.rats", { count: obs.rats[s] }) },
      herdCard(2 * rules.species.length), h("span", { class: "hcount", "aria-hidden": "true" }, `${obs.rats[s]}/${rules.rats}`)));
  }
  const revealed = ctx.revealed && ctx.revealed[s];
  const flow = changed.notes[s] > 0 ? " notes-in" : changed.notes[s] < 0 ? " notes-out" : "";
  let notes;
  if (revealed && !(s === me && ctx.wallet)) notes = h("div", { class: `seat-notes${flow}` }, noteStacks(revealed, `${names[s]}'s notes`));
  else if (s === me && ctx.wallet) notes = h("div", { class: `seat-notes${flow}` }, t("web.kh.notes_worth", { count: ctx.wallet.length, total: ctx.wallet.reduce((a, b) => a + b, 0) }));
  else notes = h("div", { class: `seat-notes${flow}` }, drawnOnce(ctx, "back mini", () => noteBack("mini")), ` ${t("web.count.notes", { count: obs.note_counts[s] })}`);
  const exposed = obs.auction && obs.auction.exposed && obs.auction.exposed[String(s)];
  const active = !obs.over && (obs.turn_seat === s || (obs.payment && obs.payment.payer === s));
  return h("section", {
    class: `seat ${where}${s === me ? " me" : ""}${active ? " active" : ""}${s === me && ctx.yourTurn ? " your-turn" : ""}`,
    "data-seat": s, "aria-label": s === me ? t("web.kh.name_you", { name: names[s] || `#${s}` }) : names[s] || `#${s}`,
  },
  h("div", { class: "seat-head" }, h("strong", {}, seatName(names, ctx.pages, s)), tags),
  notes,
  exposed ? h("div", { class: "exposed" }, t("web.kh.shown"), " ", noteChips(exposed, t("web.kh.shown_notes"))) : null,
  herd.length ? h("ul", { class: "herds", "aria-label": t("web.kh.animals_of", { name: names[s] }) }, herd) : h("div", { class: "muted small" }, obs.over ? t("web.kh.no_animals") : t("web.kh.no_animals_yet")));
}

/** The newest thing that happened that a person should see (a sale, a trade, a payment…). */
function lastNews(events, names, me, rules) {
  if (!events || !events.length) return null;
  const who = (s) => names[s] || `#${s}`;
  const you = (s) => String(s === me);
  for (let i = events.length - 1; i >= Math.max(0, events.length - 8); i--) {
    const ev = events[i][1];
    const d = ev.data || {};
    switch (ev.kind) {
      case "trade": return t("web.kh.news.trade", { you: you(d.winner), name: who(d.winner), animals: animals(d.cards, d.name) });
      case "tie": return t("web.kh.news.tie");
      case "payment": return t("web.kh.news.payment", { you: you(d.from), name: who(d.from), amount: d.amount, to: d.to === me ? t("web.kh.you") : who(d.to), count: d.count });
      case "card": return t("web.kh.news.card", { you: you(d.seat), name: who(d.seat), card: animalName(d.name) });
      case "no_bid": return t("web.kh.news.no_bid", { you: you(d.seat), name: who(d.seat), card: animalName(d.name) });
      case "closed": return t("web.kh.news.closed", { you: you(d.high_bidder), name: who(d.high_bidder), amount: d.high });
      case "decision":
        return t(d.for === "pedigree" ? (d.buy ? "web.kh.news.keep_pay_claimant" : "web.kh.news.let_claimant") : (d.buy ? "web.kh.news.keep_pay_bid" : "web.kh.news.sell"), { you: you(d.seat), name: who(d.seat) });
      case "exposed": return t("web.kh.news.exposed", { you: you(d.seat), name: who(d.seat), value: d.value });
      case "rat_taken": return t("web.kh.news.rat_taken", { you: you(d.seat), name: who(d.seat), count: d.count || 0 });
      case "payout": return t("web.kh.news.payout", { note: d.note });
      case "divided": return t(d.keep ? "web.kh.news.kept" : "web.kh.news.gave", { you: you(d.seat), name: who(d.seat) });
      case "skip": return t("web.kh.news.skip", { you: you(d.seat), name: who(d.seat) });
      case "turn": case "draw": case "challenge": case "rat": case "countdown": case "divide": return null;
      default: break;
    }
  }
  return null;
}

function center(obs, ctx) {
  const { names, rules } = ctx;
  const who = (s) => (s === ctx.me ? t("web.kh.you") : names[s] || `#${s}`);
  const named = (s) => names[s] || `#${s}`;
  const you = (s) => String(s === ctx.me);
  const parts = [];
  const bigCard = (card) => drawnOnce(ctx, `big ${card} ${cardName(rules, card)}`, () => cardArt(rules, card, "big"));
  parts.push(h("div", { class: "deck", "aria-label": t("web.kh.deck_label", { count: obs.deck_size }) },
    drawnOnce(ctx, `deck ${obs.deck_size}`, () => h("span", { class: "deck-pile", "aria-hidden": "true" }, picture("back", "art back"), h("span", { class: "deck-count" }, String(obs.deck_size)))),
    h("span", {}, obs.deck_size ? t("web.kh.cards_left", { count: obs.deck_size }) : t("web.kh.deck_empty")),
    obs.end_phase && !obs.over ? h("span", { class: "tag" }, t("web.kh.trades_only")) : null));
  const news = lastNews(ctx.events, names, ctx.me, rules);
  const memory = ctx.memory || {};
  const still = reducedMotion(); // no one-shot highlights (renderBoard)
  if (news) parts.push(h("p", { class: `news${memory.news !== news && !still ? " fresh" : ""}`, role: "status" }, news));
  memory.news = news;
  if (obs.over) {
    parts.push(h("p", { class: "stage" }, t("web.table.over")));
    return parts;
  }
  const a = obs.auction;
  if (a) {
    const lot = a.lot.map((c) => cardName(rules, c)).join(" + ");
    const bids = a.bids.slice(-5);
    const freshBid = !still && memory.bids !== undefined && memory.bids !== a.bids.length;
    memory.bids = a.bids.length;
    parts.push(h("div", { class: "auction", "aria-live": "polite" },
      h("div", { class: "lot" }, a.lot.map(bigCard)),
      h("div", { class: "lot-text" },
        h("p", { class: "stage" }, t("web.kh.auctions", { you: you(a.auctioneer), name: named(a.auctioneer) }), " ", h("strong", {}, lot)),
        h("p", { class: "high" }, a.high_bidder === null ? t("web.kh.no_bid_yet") : t("web.kh.highest_bid_from", { amount: a.high, name: who(a.high_bidder) })),
        bids.length ? h("ol", { class: "bids", "aria-label": t("web.kh.bids_label"), "data-count": a.bids.length },
          bids.map(([s, amount], i) => h("li", { class: `${i === bids.length - 1 ? `new${freshBid ? " fresh" : ""}${memory.landing === a.bids.length ? " landing" : ""}` : ""}${amount ? "" : " passed"}` },
            amount ? `${who(s)}: ${amount}` : t("web.kh.bid_pass", { name: who(s) })))) : null,
        ctx.clock ? h("p", { class: "going", role: "timer" }, ctx.clock) : null)));
  }
  const tr = obs.trade;
  if (tr) {
    const k = tr.species;
    parts.push(h("div", { class: "trade", "aria-live": "polite" },
      h("div", { class: "lot" }, bigCard(k < rules.species.length ? k : 2 * rules.species.length)),
      h("div", { class: "lot-text" },
        h("p", { class: "stage" }, t("web.kh.trade_stage", { you: you(tr.challenger), name: named(tr.challenger), opponent: who(tr.opponent), animals: animals(tr.cards, speciesKey(rules, k)) })),
        tr.again ? h("p", { class: "tie" }, t("web.kh.tie_again")) : null,
        tr.offer_count === null
          ? h("p", {}, tr.challenger === ctx.me ? t("web.kh.your_offer_choose") : t("web.kh.waiting_offer", { name: named(tr.challenger) }))
          : h("p", {}, t("web.kh.offer_on_table"), " ", noteBacks(tr.offer_count, t("web.kh.face_down", { count: tr.offer_count })), " ", t("web.kh.face_down", { count: tr.offer_count })),
        tr.my_offer ? h("p", {}, t("web.kh.your_offer"), " ", noteChips(tr.my_offer, t("web.kh.your_offer"))) : null)));
  }
  const c = obs.countdown;
  if (c) {
    const name = cardName(rules, c.card);
    parts.push(h("div", { class: "countdown-box" },
      h("div", { class: "lot" }, bigCard(c.card)),
      h("div", { class: "lot-text" },
        h("p", { class: "stage" }, t("web.kh.countdown_stage", { card: name, from: c.from })),
        c.claimant === null || c.claimant === undefined
          ? h("p", {}, t("web.kh.decided_so_far", { count: c.chosen.length }))
          : h("p", {}, t("web.kh.claimed_at", { you: you(c.claimant), name: named(c.claimant), count: c.count })))));
  }
  if (obs.payment && !a) {
    const p = obs.payment;
    parts.push(h("p", { class: "stage" }, t("web.kh.pays_to", { you: you(p.payer), name: named(p.payer), amount: p.for === "pedigree" ? t("web.count.notes", { count: p.amount }) : p.amount, to: who(p.payee) })));
  } else if (obs.payment && a) {
    parts.push(h("p", {}, t("web.kh.pays", { you: you(obs.payment.payer), name: named(obs.payment.payer), amount: obs.payment.amount })));
  }
  if (obs.rat_pile !== null && obs.rat_pile !== undefined) {
    parts.push(h("div", { class: "ratbox" },
      h("div", { class: "lot" }, bigCard(2 * rules.species.length)),
      h("div", { class: "lot-text" },
        h("p", { class: "stage" }, t("web.kh.rat_stage", { count: obs.rat_pile })),
        obs.rat_pile ? h("p", {}, noteBacks(obs.rat_pile, t("web.kh.face_down", { count: obs.rat_pile }))) : null,
        h("p", { class: "small" }, t("web.kh.rat_rule")))));
  }
  if (obs.stage === "divide" && obs.peek !== null && obs.peek !== undefined && obs.turn_seat === ctx.me) {
    parts.push(h("div", { class: "peekbox" },
      h("div", { class: "lot" }, cardArt(rules, obs.peek, "big")),
      h("div", { class: "lot-text" }, h("p", { class: "stage" }, t("web.kh.only_you_see", { card: cardName(rules, obs.peek) })),
        h("p", {}, t("web.kh.keep_or_give")))));
  } else if (obs.stage === "divide") {
    parts.push(h("p", { class: "stage" }, t("web.kh.divides", { you: you(obs.turn_seat), name: named(obs.turn_seat) })));
  }
  if (obs.stage === "turn") {
    parts.push(h("p", { class: "stage" }, obs.turn_seat === ctx.me ? t("web.kh.your_turn") : t("web.kh.someones_turn", { name: named(obs.turn_seat) })));
  }
  return parts;
}

/**
 * The board in one line for a narrow screen, above the decision (as Board Game Arena's action
 * bar): the lot, the high bid and the last bids, or the cow trade, and whose turn it is. Shown by
 * style.css only where the board is not beside the decision. ctx: {names, rules, me, memory (given
 * when the bar in the page is patched from draw to draw: its cards may be stand-ins, drawnOnce)}.
 */
export function boardBar(obs, ctx) {
  const { names, rules, me } = ctx;
  if (!obs || obs.over) return null;
  // the board's own words (its tags, its bids), no sentence of its own
  const who = (s) => (s === me ? t("web.kh.you") : names[s] || `#${s}`);
  const a = obs.auction, trade = obs.trade;
  let turn;
  if (a) turn = `${who(a.auctioneer)}: ${t("web.kh.tag_auctioneer")}`;
  else if (trade) turn = `${who(trade.challenger)} → ${who(trade.opponent)}: ${t("web.kh.tag_trade")}`;
  else turn = statusLine(obs, names, me);
  const parts = [];
  const smallCard = (card) => drawnOnce(ctx, `small ${card} ${cardName(rules, card)}`, () => cardArt(rules, card));
  if (a) {
    parts.push(h("div", { class: "lot" }, a.lot.map((c) => smallCard(c))));
    parts.push(h("div", { class: "bar-text" },
      h("p", { class: "high" }, a.high_bidder === null ? t("web.kh.no_bid_yet") : t("web.kh.highest_bid_from", { amount: a.high, name: who(a.high_bidder) })),
      a.bids.length ? h("p", { class: "small bar-bids" }, a.bids.slice(-3).map(([s, amount]) => (amount ? `${who(s)}: ${amount}` : t("web.kh.bid_pass", { name: who(s) }))).join(" · ")) : null,
      h("p", { class: "small", "data-whose-turn": "1" }, turn)));
  } else {
    if (trade) parts.push(h("div", { class: "lot" }, smallCard(trade.species < rules.species.length ? trade.species : 2 * rules.species.length)));
    parts.push(h("div", { class: "bar-text" }, h("p", { "data-whose-turn": "1" }, turn)));
  }
  return h("div", { class: "kh-bar", "aria-hidden": "true" }, parts);
}

// ---------------------------------------------------------------- the panels

/**
 * One panel for an open request. `send(action)` answers it. ctx as for the board, plus
 * `names` and `rules`. Returns an element whose first control takes the focus.
 */
export function actionPanel(msg, ctx, send) {
  const req = msg.request;
  const info = req.info || {};
  const names = ctx.names;
  const who = (s) => names[s] || `seat ${s}`;
  const rules = ctx.rules;
  const wallet = info.wallet || ctx.wallet || [];
  const panel = (title, ...body) => h("section", { class: "panel", "aria-label": title, "data-kind": req.kind },
    h("h3", {}, title), body);
  const button = (label, action, extra = {}) => h("button", {
    type: "button", class: extra.primary ? "primary" : "", "data-action": JSON.stringify(action),
    onclick: () => send(action), ...(extra.attrs || {}),
  }, label);

  switch (req.kind) {
    case "turn": {
      const buttons = [];
      const trades = [];
      for (const choice of req.choices) {
        if (choice.kind === "auction") buttons.push(button(t("web.kh.auction_top"), choice, { primary: true }));
        else if (choice.kind === "draw") buttons.push(button(t("web.kh.draw_divide"), choice, { primary: true }));
        else if (choice.kind === "pass") buttons.push(button(t("web.kh.end_turn"), choice));
        else if (choice.kind === "challenge") trades.push(choice);
      }
      let tradeBox = null;
      if (trades.length) {
        tradeBox = h("fieldset", { class: "trades" }, h("legend", {}, t("web.kh.or_trade")),
          trades.map((c) => {
            const k = c.species;
            const mine = k === rules.species.length ? null : ctx.obs && ctx.obs.herds[ctx.me][k];
            const theirs = k === rules.species.length ? null : ctx.obs && ctx.obs.herds[c.opponent][k];
            const what = mine && theirs ? animals(Math.min(mine, theirs), speciesKey(rules, k)) : speciesName(rules, k);
            return button(t("web.kh.challenge", { name: who(c.opponent), what }), c, { attrs: { class: "trade-choice" } });
          }));
      }
      return panel(info.end_phase ? t("web.kh.your_turn_trade") : t("web.kh.your_turn_short"), h("div", { class: "row" }, buttons), tradeBox);
    }
    case "bid": {
      const min = info.min;
      const cap = info.max === null || info.max === undefined ? null : info.max;
      const step = rules.min_raise || 10;
      const quick = [];
      for (const extra of [0, step, 2 * step, 5 * step]) {
        const amount = min + extra;
        if (cap !== null && amount > cap) continue;
        quick.push(button(t("web.kh.bid_amount", { amount }), { kind: "bid", amount }, { attrs: { class: amount > info.money ? "over" : "" } }));
      }
      const input = h("input", {
        // empty, focused: Enter on a fresh panel bids nothing (it used to bid the minimum)
        type: "number", min, step, max: cap === null ? undefined : cap, placeholder: String(min), "data-focus": "1",
        id: `bid-${msg.request_id}`, inputmode: "numeric", "aria-describedby": `bidhelp-${msg.request_id}`,
      });
      const submit = (ev) => {
        ev.preventDefault();
        if (input.value.trim() === "") { toast(t("web.kh.type_bid", { min }), "error"); return; }
        const amount = Number(input.value);
        if (!Number.isInteger(amount) || amount < min) { toast(t("web.kh.bid_whole", { min }), "error"); return; }
        if (cap !== null && amount > cap) { toast(t("web.kh.bid_capped", { cap }), "error"); return; }
        send({ kind: "bid", amount });
      };
      const lot = cardName(rules, info.card);
      const canDropOut = Boolean(ctx.dropOut) && rules.auction_style !== "open";
      const passedBefore = ctx.passesIn ? ctx.passesIn(msg) : 0;
      return panel(t("web.kh.bid_for", { card: lot }), h("div", { class: "panel-lot" }, cardArt(rules, info.card)),
        h("p", {}, info.high ? t("web.kh.highest_bid_from_dot", { amount: info.high, name: who(info.high_bidder) }) : t("web.kh.no_bid_yet"),
          " ", t("web.kh.you_hold", { money: info.money }), cap !== null ? ` ${t("web.kh.your_limit", { cap })}` : ""),
        h("div", { class: "row" }, quick),
        h("div", { class: "row pass-row" }, button(t("web.kh.pass"), { kind: "pass" }),
          canDropOut
            ? h("button", { type: "button", class: "out", "data-out": "1", onclick: () => ctx.dropOut(msg),
              title: t("web.kh.out_title") }, t("web.kh.out"))
            : null),
        canDropOut && passedBefore
          ? h("p", { class: "out-hint", "data-out-hint": "1" },
            t("web.kh.passed_before", { card: lot, times: passedBefore }), " ",
            h("strong", {}, t("web.kh.out")), " ", t("web.kh.out_explain"))
          : null,
        h("form", { class: "row", onsubmit: submit },
          h("label", { for: `bid-${msg.request_id}` }, t("web.kh.your_bid")), input,
          h("button", { type: "submit", class: "primary" }, t("web.kh.bid"))),
        h("p", { class: "small muted", id: `bidhelp-${msg.request_id}` },
          t("web.kh.bid_help", { min })));
    }
    case "knock":
      return panel(t("web.kh.you_auctioneer"),
        h("p", {}, info.high ? t("web.kh.highest_bid", { amount: info.high }) : t("web.kh.no_bid_yet"), " ", t("web.kh.closes_itself")),
        h("div", { class: "row" }, button(t("web.kh.knock"), { kind: "knock" }, { primary: true })));
    case "sell_or_buy": {
      const buttons = req.choices.map((c) => (c.kind === "sell"
        ? button(t("web.kh.sell_to", { name: who(info.high_bidder), amount: info.high }), c, { primary: true })
        : button(t("web.kh.buy_myself", { name: who(info.high_bidder), amount: info.high }), c)));
      return panel(t("web.kh.auction_closed", { card: cardName(rules, info.card) }), h("div", { class: "row" }, buttons));
    }
    case "pay": {
      const pedigree = info.for === "pedigree";
      const options = pedigree ? countPayments(wallet, info.count) : legalPayments(wallet, info.amount);
      const what = pedigree ? t("web.kh.notes_any_value", { count: info.count }) : String(info.amount);
      return panel(t("web.kh.pay_to", { what, name: who(info.to) }),
        h("p", { class: "small muted" }, pedigree
          ? t("web.kh.pedigree_paid_by_count")
          : t("web.kh.no_change")),
        paymentPicker(options, (notes) => send({ kind: "pay", notes })));
    }
    case "offer": {
      const title = info.again
        ? t("web.kh.offer_again_title", { name: who(info.opponent), animals: animals(info.cards, speciesKey(rules, info.species)) })
        : t("web.kh.offer_title", { name: who(info.opponent), animals: animals(info.cards, speciesKey(rules, info.species)) });
      return panel(title,
        h("p", { class: "small muted" }, t("web.kh.offer_hidden")),
        notePicker(wallet, "offer", (notes) => send({ kind: "offer", notes })));
    }
    case "respond": {
      const species = speciesName(rules, info.species);
      const stake = info.cards === 1 ? species : animals(info.cards, speciesKey(rules, info.species)); // "Dog", "2 Dogs"
      return panel(t("web.kh.respond_title", { name: who(info.challenger), count: info.offer_notes, animals: animals(info.cards, speciesKey(rules, info.species)) }),
        h("div", { class: "panel-lot" }, cardArt(rules, info.species < rules.species.length ? info.species : 2 * rules.species.length), noteBacks(info.offer_notes, t("web.kh.face_down", { count: info.offer_notes }))),
        info.again ? h("p", { class: "tie" }, t("web.kh.second_offer")) : null,
        h("div", { class: "row" }, button(t("web.kh.accept", { count: info.offer_notes, stake }), { kind: "accept" }, { primary: true })),
        h("fieldset", { class: "counter-box" }, h("legend", {}, t("web.kh.or_counter")),
          h("p", {}, t("web.kh.counter_explain")),
          notePicker(wallet, "counter", (notes) => send({ kind: "counter", notes }), {
            primary: false,
            emptyLabel: t("web.kh.counter_none"),
            emptyHint: t(rules.trade_tie === "offer_again" ? "web.kh.counter_none_hint_again" : "web.kh.counter_none_hint", { name: who(info.challenger), stake }),
          })));
    }
    case "claim":
      return claimPanel(msg, ctx, send);
    case "preempt": {
      const buttons = req.choices.map((c) => (c.kind === "preempt"
        ? button(t("web.kh.take_myself", { name: who(info.claimant), count: info.count }), c)
        : button(t("web.kh.let_have", { name: who(info.claimant), count: info.count }), c, { primary: true })));
      return panel(t("web.kh.claims_title", { name: who(info.claimant), card: cardName(rules, info.card), count: info.count }), h("div", { class: "row" }, buttons));
    }
    case "rat": {
      const take = req.choices.find((c) => c.kind === "take_rat");
      const places = req.choices.filter((c) => c.kind === "place_note");
      return panel(t("web.kh.a_rat"),
        h("p", {}, info.pile
          ? t("web.kh.rat_pile", { count: info.pile })
          : t("web.kh.rat_empty")),
        h("div", { class: "row" }, take ? button(info.pile ? t("web.kh.take_rat_notes", { count: info.pile }) : t("web.kh.take_rat"), take, { primary: true }) : null),
        h("div", { class: "row", role: "group", "aria-label": t("web.kh.place_note_label") },
          places.map((c) => button([noteArt(c.note, "small"), ` ${t("web.kh.place_note", { note: c.note })}`], c, { attrs: { class: "place-note" } }))));
    }
    case "divide":
      return panel(t("web.kh.look_top", { card: animalName(info.name) }),
        h("p", {}, info.next ? t("web.kh.keep_or_give_next") : t("web.kh.last_card")),
        h("div", { class: "row" }, req.choices.map((c) => (c.kind === "keep"
          ? button(t("web.kh.keep_card", { card: animalName(info.name) }), c, { primary: true }) : button(t("web.kh.give_card", { card: animalName(info.name) }), c)))));
    default:
      return panel(t("web.kh.decision", { kind: req.kind }), h("div", { class: "row" },
        (req.choices || []).map((c) => button(JSON.stringify(c), c))));
  }
}

function paymentPicker(options, pay) {
  if (!options.length) return h("p", { class: "error" }, t("web.kh.cannot_pay"));
  const sum = (p) => p.reduce((a, b) => a + b, 0);
  return h("div", { class: "payments", role: "group", "aria-label": t("web.kh.payments_label") },
    options.map((notes, i) => h("button", {
      type: "button", class: i === 0 ? "primary payment" : "payment",
      "data-action": JSON.stringify({ kind: "pay", notes }),
      "aria-label": t("web.kh.payment_label", { notes: notes.length ? countedNotes(notes, false) : t("web.kh.nothing"), total: sum(notes), cheapest: String(i === 0) }),
      onclick: () => pay(notes),
    }, noteChips(notes, t("web.kh.notes")), h("span", { class: "total" }, ` = ${sum(notes)}`),
    i === 0 ? h("span", { class: "tag" }, t("web.kh.cheapest")) : null)));
}

/**
 * Choose any notes of the wallet (offers and counters): one row per note value with a stepper
 * (− n +) up to the number held, plus a send button. Buttons are real <button>s (keyboard: Tab,
 * Enter/Space), at least 44 px square.
 */
export function notePicker(wallet, verb, done, opts = {}) {
  const kinds = countNotes(wallet);
  const chosen = new Map(kinds.map(([v]) => [v, 0]));
  const total = h("span", { class: "total", "aria-live": "polite" });
  const sendButton = h("button", { type: "button", class: opts.primary === false ? "secondary" : "primary", "data-picker-send": verb.toLowerCase() });
  // what sending no notes means, in words, while none are chosen
  const emptyHint = opts.emptyHint ? h("p", { class: "empty-hint small", "aria-live": "polite" }) : null;
  const picked = () => kinds.flatMap(([v]) => Array(chosen.get(v)).fill(v));
  const rows = [];
  const refresh = () => {
    const notes = picked();
    const sum = notes.reduce((a, b) => a + b, 0);
    total.textContent = t("web.kh.chosen", { count: notes.length, total: sum });
    sendButton.textContent = notes.length ? t(`web.kh.${verb.toLowerCase()}_notes`, { count: notes.length, total: sum }) : opts.emptyLabel || t(`web.kh.${verb.toLowerCase()}_none`);
    if (emptyHint) {
      emptyHint.textContent = notes.length ? "" : opts.emptyHint;
      emptyHint.hidden = notes.length > 0;
    }
    for (const r of rows) r();
  };
  sendButton.addEventListener("click", () => done(picked()));
  const steppers = kinds.map(([v, held]) => {
    const count = h("output", { class: "step-count" }, "0");
    const less = h("button", { type: "button", class: "stepper less", "data-note-remove": v, "aria-label": t("web.kh.one_less", { note: v }) }, "−");
    const more = h("button", { type: "button", class: "stepper more", "data-note-add": v, "aria-label": t("web.kh.one_more", { note: v }) }, "+");
    const row = h("div", { class: "note-step", role: "group", "data-value": v },
      h("span", { class: "stack" }, noteArt(v), h("span", { class: "times" }, `×${held}`)),
      less, count, more);
    less.addEventListener("click", () => { chosen.set(v, Math.max(0, chosen.get(v) - 1)); refresh(); });
    more.addEventListener("click", () => { chosen.set(v, Math.min(held, chosen.get(v) + 1)); refresh(); });
    rows.push(() => {
      const n = chosen.get(v);
      count.textContent = String(n);
      less.disabled = n === 0;
      more.disabled = n === held;
      row.classList.toggle("some", n > 0);
      row.setAttribute("aria-label", t("web.kh.stepper_label", { note: v, n, held }));
    });
    return row;
  });
  refresh();
  return h("div", { class: "picker" },
    h("div", { class: "note-steps", role: "group", "aria-label": t("web.kh.choose_notes_label") },
      steppers.length ? steppers : h("span", { class: "muted" }, t("web.kh.no_notes_held"))),
    h("div", { class: "row" }, total, sendButton), emptyHint);
}

/**
 * Master's pedigree countdown (§9.2): the engine takes a sealed Claim(count). The page counts
 * down from `from` once a second; a click at count c sends Claim(c), and Claim(0) goes out when
 * the count runs out without a click.
 */
function claimPanel(msg, ctx, send) {
  const info = msg.request.info;
  const allowed = new Set(msg.request.choices.map((c) => c.count));
  const most = Math.max(...allowed);
  const name = cardName(ctx.rules, info.card);
  let count = info.from;
  let done = false;
  const display = h("div", { class: "count", role: "timer", "aria-live": "assertive" }, String(count));
  const claim = h("button", { type: "button", class: "primary big", "data-claim": "1" }, t("web.kh.claim_at", { count }));
  const hint = h("p", { class: "small muted" });
  const finish = (c) => {
    if (done) return;
    done = true;
    clearInterval(timer);
    send({ kind: "claim", count: c });
  };
  const update = () => {
    display.textContent = count > 0 ? String(count) : "–";
    const ok = count > 0 && allowed.has(count);
    claim.disabled = !ok;
    claim.textContent = count > 0 ? t("web.kh.claim_at", { count }) : t("web.kh.too_late");
    hint.textContent = count > most
      ? t("web.kh.claim_from", { count: info.notes, most })
      : t("web.kh.claim_rule");
  };
  claim.addEventListener("click", () => finish(count));
  const timer = setInterval(() => {
    if (!display.isConnected) { clearInterval(timer); return; }
    count -= 1;
    if (count <= 0) { update(); finish(0); return; }
    update();
  }, ctx.claimTickMs || 1000);
  update();
  return h("section", { class: "panel countdown", "aria-label": t("web.kh.countdown"), "data-kind": "claim" },
    h("h3", {}, t("web.kh.countdown_title", { card: name })), display,
    h("div", { class: "row" }, claim, h("button", { type: "button", "data-claim": "0", onclick: () => finish(0) }, t("web.kh.dont_claim"))), hint);
}

/** What the seat is waiting for, in words (the status line). */
export function statusLine(obs, names, me) {
  if (!obs) return "";
  const wait = (key, s) => t(`web.kh.wait.${key}`, { you: String(s === me), name: names[s] || `#${s}` });
  if (obs.over) return t("web.table.over");
  switch (obs.stage) {
    case "turn": return obs.turn_seat === me ? t("web.kh.your_turn") : wait("turn", obs.turn_seat);
    case "bid": return t("web.kh.wait.bid");
    case "sell_or_buy": return wait("sell_or_buy", obs.turn_seat);
    case "pay": return obs.payment ? wait("pay", obs.payment.payer) : t("web.kh.wait.a_payment");
    case "offer": return obs.trade ? wait("offer", obs.trade.challenger) : t("web.kh.wait.a_trade");
    case "respond": return obs.trade ? wait("respond", obs.trade.opponent) : t("web.kh.wait.a_trade");
    case "claim": return t("web.kh.wait.claim");
    case "preempt": return wait("preempt", obs.turn_seat);
    case "rat": return t("web.kh.wait.rat");
    case "divide": return wait("divide", obs.turn_seat);
    default: return "";
  }
}

// ---------------------------------------------------------------- the end: the score, explained

const place = (p) => t("web.place", { place: p + 1 });

/** Master points (§7 steps 2–5) of the given quartets, as the engine counts them. */
function masterPoints(rules, pedigrees, sets) {
  const bonus = rules.pedigree_bonus;
  const matching = pedigrees.filter((p) => sets.includes(p));
  const base = sets.reduce((a, k) => a + rules.species[k].value, 0) + bonus * matching.length;
  return base * sets.length + bonus * (pedigrees.length - matching.length);
}

/**
 * Per seat, how its score comes about, from the result (its quartets and money) and the final
 * public board (pedigrees and rats): [{seat, quartets, struck, pedigrees, rats, sum, score, lines}].
 */
export function scoreBreakdown(result, obs, rules) {
  const details = result.details || {};
  const out = [];
  for (let s = 0; s < result.scores.length; s++) {
    let sets = (details.quartets && details.quartets[s]) || (obs ? rules.species.map((sp, k) => k).filter((k) => obs.herds[s][k] === rules.species[k].payouts.length) : []);
    const pedigrees = (obs && obs.pedigrees && obs.pedigrees[s]) || [];
    const rats = (obs && obs.rats && obs.rats[s]) || 0;
    const lines = [];
    let struck = null;
    let computed;
    if (rules.scoring === "master") {
      if (rules.rats && rats >= rules.rats && sets.length) {
        struck = sets.reduce((best, k) => {
          const without = masterPoints(rules, pedigrees, sets.filter((q) => q !== k));
          const bestWithout = best === null ? -1 : masterPoints(rules, pedigrees, sets.filter((q) => q !== best));
          return best === null || without > bestWithout || (without === bestWithout && k < best) ? k : best;
        }, null);
      }
      const kept = struck === null ? sets : sets.filter((k) => k !== struck);
      computed = masterPoints(rules, pedigrees, kept);
      sets = kept;
    } else {
      computed = sets.reduce((a, k) => a + rules.species[k].value, 0) * sets.length;
    }
    const money = details.money ? details.money[s] : null;
    out.push({ seat: s, quartets: sets, struck, pedigrees, rats, score: result.scores[s], computed, money, place: result.places[s] });
  }
  return out;
}

function breakdownWords(row, rules) {
  const name = (k) => animalName(rules.species[k].name);
  const parts = [];
  const sum = row.quartets.reduce((a, k) => a + rules.species[k].value, 0);
  const n = row.quartets.length;
  if (row.struck !== null) parts.push(h("li", { class: "struck" }, t("web.kh.score.struck", { rats: rules.rats, name: name(row.struck), value: rules.species[row.struck].value })));
  if (!n) parts.push(h("li", {}, t("web.kh.score.none")));
  else parts.push(h("li", {}, t("web.kh.score.quartets"), " ", row.quartets.map((k) => h("span", { class: "qchip" }, `${name(k)} ${rules.species[k].value}`))));
  if (rules.scoring === "master") {
    const matching = row.pedigrees.filter((p) => row.quartets.includes(p));
    const loose = row.pedigrees.filter((p) => !row.quartets.includes(p));
    const bonus = rules.pedigree_bonus;
    const base = sum + bonus * matching.length;
    if (matching.length) parts.push(h("li", {}, t("web.kh.score.pedigree_with", { names: matching.map(name).join(", "), bonus })));
    if (n) parts.push(h("li", { class: "sum" }, t("web.kh.score.product", { sum: base, count: n, total: base * n })));
    if (loose.length) {
      parts.push(h("li", {}, t("web.kh.score.pedigree_without", { names: loose.map(name).join(", "), bonus })));
      parts.push(h("li", { class: "sum" }, `${base * n} + ${bonus} × ${loose.length} = ${base * n + bonus * loose.length}`));
    }
  } else if (n) {
    parts.push(h("li", { class: "sum" }, t("web.kh.score.product", { sum, count: n, total: sum * n })));
  }
  if (row.struck === null && row.rats) parts.push(h("li", {}, t("web.kh.score.rats_harmless", { count: row.rats, rats: rules.rats })));
  if (row.computed !== row.score) parts.push(h("li", {}, t("web.kh.score.with_money", { score: row.score })));
  return parts;
}

/** The end of a Kuhhandel game: places, points and how each seat's points come about. */
export function scoreBoard(result, obs, rules, names, me = null, pages = null) {
  if (!result) return null;
  if (result.termination === "aborted") return h("p", {}, t("web.kh.score.stopped"));
  const rows = scoreBreakdown(result, obs, rules);
  rows.sort((a, b) => a.place - b.place || a.seat - b.seat);
  const tiedPoints = (r) => rows.some((o) => o.seat !== r.seat && o.score === r.score);
  return h("table", { class: "scores breakdown" },
    h("caption", {}, result.termination === "normal" ? t("web.kh.score.final") : t("web.kh.score.final_cut", { termination: result.termination })),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("web.score.place")), h("th", { scope: "col" }, t("web.score.player")),
      h("th", { scope: "col" }, t("web.kh.score.how")), h("th", { scope: "col" }, t("web.score.points")), h("th", { scope: "col" }, t("web.kh.score.money")))),
    h("tbody", {}, rows.map((r) => h("tr", { class: `${r.place === 0 ? "winner" : ""}${r.seat === me ? " me" : ""}`, "data-seat": r.seat },
      h("td", {}, place(r.place)),
      h("th", { scope: "row" }, seatName(names, pages, r.seat), r.seat === me ? ` ${t("web.score.you")}` : ""),
      h("td", {}, h("ul", { class: "why" }, breakdownWords(r, rules))),
      h("td", { class: "points" }, String(r.score)),
      h("td", { class: "money" }, r.money === null ? "" : String(r.money), r.money !== null && tiedPoints(r) ? h("div", { class: "small muted" }, t("web.kh.score.breaks_tie")) : null)))));
}

// ---------------------------------------------------------------- motion after a draw

/** The person's wish for reduced motion (a live MediaQueryList: it follows a change of the wish). */
const STILL = typeof matchMedia === "function" ? matchMedia("(prefers-reduced-motion: reduce)") : null;
function reducedMotion() {
  return Boolean(STILL && STILL.matches);
}

/** A face-down note flying from one place to another (a payment, an offer), then gone. */
function flyNote(from, to, delay = 0) {
  const el = noteBack("flying");
  Object.assign(el.style, { position: "fixed", left: `${from.left + from.width / 2 - 18}px`, top: `${from.top + from.height / 2 - 10}px`, zIndex: 30, pointerEvents: "none" });
  document.body.appendChild(el);
  const dx = to.left + to.width / 2 - (from.left + from.width / 2);
  const dy = to.top + to.height / 2 - (from.top + from.height / 2);
  const run = el.animate([{ transform: "none", opacity: 1 }, { transform: `translate(${dx}px, ${dy}px) rotate(8deg)`, opacity: 0.9 }],
    { duration: 450, delay, easing: "ease-in-out", fill: "backwards" });
  run.onfinish = () => el.remove();
  run.oncancel = () => el.remove();
}

/** `count` face-down notes (at most 5 drawn) flying one after the other. */
function flyNotes(from, to, count) {
  for (let k = 0; k < Math.min(Math.max(count, 1), 5); k++) flyNote(from, to, k * 90);
}

/**
 * Motion once the board is in the page (it needs the layout): a card that arrived in a herd flies
 * there from where the lot lay; notes paid fly face down from the payer's seat to the payee's; a
 * new bid flies from the bidder's seat into the list of bids.
 * `memory` is the object kept between draws; each thing moves once.
 */
export function afterDraw(root, memory, events) {
  if (reducedMotion() || typeof Element.prototype.animate !== "function") {
    // nothing moves: no place is read (each read lays the page out at once, in the draw);
    // motion turned on again starts from the next draw's places
    memory.lotRect = memory.ratRect = null;
    memory.movedUpTo = events && events.length ? events[events.length - 1][0] : -1;
    return;
  }
  const lot = root.querySelector(".kh-center .lot .kcard");
  const from = memory.lotRect;
  if (lot) memory.lotRect = lot.getBoundingClientRect();
  const ratBox = root.querySelector(".kh-center .ratbox");
  const ratFrom = memory.ratRect;  // where the rat's pile lay (gone once the rat is taken)
  memory.ratRect = ratBox ? ratBox.getBoundingClientRect() : ratFrom;
  const newest = events && events.length ? events[events.length - 1][0] : -1;
  const since = memory.movedUpTo === undefined ? newest : memory.movedUpTo;
  memory.movedUpTo = newest;
  // every place is read first, then everything moves: reads between writes would lay the page
  // out again for each one
  const arrivals = from ? [...root.querySelectorAll(".herd.arrived .kcard")].map((card) => [card, card.getBoundingClientRect()]) : [];
  const seatNotes = (s) => {
    const el = root.querySelector(`.seat[data-seat="${s}"] .seat-notes`);
    return el ? el.getBoundingClientRect() : null;
  };
  const flights = [];
  const fly = (a, b, count) => { if (a && b) flights.push([a, b, count]); };
  let trade = null;  // the cow trade under way: its challenger and opponent (from its challenge)
  let bidder = null; // the newest bid since the last draw: it flies from its seat to the list
  for (const [i, ev] of events || []) {
    const d = ev.data || {};
    if (ev.kind === "challenge") trade = { challenger: d.seat, opponent: d.opponent };
    if (i <= since) continue;
    if (ev.kind === "bid") bidder = d.seat;
    else if (ev.kind === "pass" || ev.kind === "auction") bidder = null; // the list's newest is no bid
    if (ev.kind === "payment") fly(seatNotes(d.from), seatNotes(d.to), 1);
    // a cow trade's offer and counter-offer cross the table face down, to the other side
    else if (ev.kind === "offer" && trade) fly(seatNotes(trade.challenger), seatNotes(trade.opponent), d.count);
    else if (ev.kind === "counter" && trade) fly(seatNotes(trade.opponent), seatNotes(trade.challenger), d.count);
    // the rat's pile: a note placed flies to it; taken, the pile flies to the taker
    else if (ev.kind === "rat_note") fly(seatNotes(d.seat), memory.ratRect, 1);
    else if (ev.kind === "rat_taken" && d.count) fly(ratFrom || memory.ratRect, seatNotes(d.seat), d.count);
  }
  const bid = root.querySelector(".kh-center .bids li.new");
  const head = bidder === null ? null : root.querySelector(`.seat[data-seat="${bidder}"] .seat-head`);
  const bidFlight = bid && head ? [head.getBoundingClientRect(), bid.getBoundingClientRect()] : null;
  for (const [card, to] of arrivals) {
    card.animate([{ transform: `translate(${from.left - to.left}px, ${from.top - to.top}px) scale(1.3)` }, { transform: "none" }],
      { duration: 400, easing: "ease-out" });
  }
  for (const [a, b, count] of flights) flyNotes(a, b, count);
  if (bidFlight) {
    const [from, to] = bidFlight;
    const dx = from.left + from.width / 2 - (to.left + to.width / 2);
    const dy = from.top + from.height / 2 - (to.top + to.height / 2);
    // a copy flies in a fixed layer over the page, as the notes do: the line itself moved off
    // towards a seat at the screen's edge would make a phone's page scroll sideways meanwhile
    const layer = h("ol", { class: "bids flying", "aria-hidden": "true" });
    Object.assign(layer.style, { position: "fixed", left: `${to.left}px`, top: `${to.top}px`, width: `${to.width}px`, margin: 0, zIndex: 30, pointerEvents: "none" });
    const copy = bid.cloneNode(true);
    copy.classList.remove("fresh");
    layer.appendChild(copy);
    document.body.appendChild(layer);
    // the line stays hidden (class landing, kept by the draws meanwhile) until its copy lands
    const count = Number(bid.parentElement.dataset.count);
    memory.landing = count;
    // hidden while its copy flies, the line's own slide and fade would be drawn for no one
    bid.classList.remove("fresh");
    bid.classList.add("landing");
    const run = copy.animate([{ transform: `translate(${dx}px, ${dy}px) scale(0.85)`, opacity: 0.5 }, { transform: "none", opacity: 1 }],
      { duration: 400, easing: "ease-out" });
    const landed = () => {
      layer.remove();
      if (memory.landing !== count) return; // a newer bid is flying in
      memory.landing = null;
      const line = root.querySelector(".kh-center .bids li.landing");
      if (line) line.classList.remove("landing");
    };
    run.onfinish = landed;
    run.oncancel = landed;
  }
}
