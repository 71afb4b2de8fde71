// The Kuhhandel table: the board (seats, animals, notes, the auction or cow trade under way) and
// one panel per open request that offers only legal choices.
//
// Requests and actions are the engine's JSON (cardtable/games/kuhhandel/actions.py); the
// observation is observe.py's to_json. A seat's own notes come with every request; between
// requests they are kept up to date from the events this seat receives.

import { h, plural, toast } from "./dom.js";

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

function speciesName(rules, k) {
  if (k === rules.species.length) return "Rat";
  return rules.species[k] ? rules.species[k].name : `species ${k}`;
}

function cardName(rules, card) {
  const n = rules.species.length;
  if (card < n) return rules.species[card].name;
  if (card < 2 * n) return `${rules.species[card - n].name} pedigree`;
  return "Rat";
}

function noteChips(notes, label) {
  if (!notes || notes.length === 0) return h("span", { class: "muted" }, "no notes");
  return h("span", { class: "notes", "aria-label": `${label}: ${notes.join(", ")}` },
    notes.map((v) => h("span", { class: `note n${v}`, "aria-hidden": "true" }, String(v))));
}

// ---------------------------------------------------------------- the board

/**
 * ctx: {names, me (seat or null), rules, wallet (own notes or null), revealed (every wallet, for
 * replays and the end), seats (holders from /public: away flags), clock (open-auction text)}
 */
export function renderBoard(obs, ctx) {
  const { names, me, rules } = ctx;
  const root = h("div", { class: "kh-board" });
  root.appendChild(h("div", { class: "kh-center", "aria-label": "The table" }, center(obs, ctx)));
  const seatsEl = h("ul", { class: "kh-seats", "aria-label": "Seats" });
  for (let s = 0; s < obs.seats; s++) seatsEl.appendChild(seatCard(obs, ctx, s));
  root.appendChild(seatsEl);
  if (me !== null && me !== undefined && ctx.wallet) {
    const total = ctx.wallet.reduce((a, b) => a + b, 0);
    root.appendChild(h("section", { class: "kh-mine", "aria-label": "Your notes" },
      h("h3", {}, `Your notes (${plural(ctx.wallet.length, "note")}, worth ${total})`),
      noteChips(ctx.wallet, "your notes")));
  }
  return root;
}

function seatCard(obs, ctx, s) {
  const { names, me, rules } = ctx;
  const tags = [];
  if (s === me) tags.push(h("span", { class: "tag you" }, "you"));
  if (obs.turn_seat === s && !obs.over) tags.push(h("span", { class: "tag turn" }, obs.auction ? "auctioneer" : "turn"));
  if (obs.auction && obs.auction.high_bidder === s) tags.push(h("span", { class: "tag high" }, `high bid ${obs.auction.high}`));
  if (obs.trade && (obs.trade.challenger === s || obs.trade.opponent === s)) tags.push(h("span", { class: "tag trade" }, "cow trade"));
  const holder = ctx.seats && ctx.seats[s];
  if (holder && holder.away) tags.push(h("span", { class: "tag away", title: "a house bot plays until they come back" }, "house bot playing"));
  else if (holder && holder.kind !== "guest") tags.push(h("span", { class: "tag bot" }, holder.kind === "house" ? "house bot" : "bot"));

  const animals = [];
  rules.species.forEach((sp, k) => {
    const have = obs.herds[s][k];
    if (!have) return;
    const complete = have === sp.payouts.length;
    animals.push(h("li", {
      class: `animal${complete ? " quartet" : ""}`,
      "aria-label": `${sp.name}: ${have} of ${sp.payouts.length}${complete ? ", complete quartet" : ""}`,
    }, h("span", { class: "aname" }, sp.name), h("span", { class: "acount" }, complete ? `✓ ${have}` : `${have}/${sp.payouts.length}`)));
  });
  for (const p of obs.pedigrees[s] || []) {
    animals.push(h("li", { class: "animal pedigree" }, h("span", { class: "aname" }, `${speciesName(rules, p)} pedigree`)));
  }
  if (obs.rats && obs.rats[s]) {
    animals.push(h("li", { class: "animal rat" }, h("span", { class: "aname" }, "Rat"), h("span", { class: "acount" }, `${obs.rats[s]}`)));
  }
  const revealed = ctx.revealed && ctx.revealed[s];
  let notes;
  if (s === me && ctx.wallet) notes = h("div", { class: "seat-notes" }, `${plural(ctx.wallet.length, "note")} (yours, below)`);
  else if (revealed) notes = h("div", { class: "seat-notes" }, noteChips(revealed, `${names[s]}'s notes`));
  else notes = h("div", { class: "seat-notes" }, `${plural(obs.note_counts[s], "note")}`);
  const exposed = obs.auction && obs.auction.exposed && obs.auction.exposed[String(s)];
  return h("li", { class: `seat${s === me ? " me" : ""}${obs.turn_seat === s ? " active" : ""}`, "data-seat": s },
    h("div", { class: "seat-head" }, h("strong", {}, names[s] || `seat ${s}`), tags),
    notes,
    exposed ? h("div", { class: "exposed" }, "Shown: ", noteChips(exposed, "shown notes")) : null,
    animals.length ? h("ul", { class: "animals", "aria-label": `${names[s]}'s animals` }, animals) : h("div", { class: "muted small" }, "no animals yet"));
}

function center(obs, ctx) {
  const { names, rules } = ctx;
  const who = (s) => (s === ctx.me ? "you" : names[s] || `seat ${s}`);
  // at the start of a sentence
  const Who = (s) => { const w = who(s); return w.charAt(0).toUpperCase() + w.slice(1); };
  const parts = [];
  parts.push(h("div", { class: "deck", "aria-label": `${obs.deck_size} cards in the deck` },
    h("span", { class: "deck-card", "aria-hidden": "true" }, String(obs.deck_size)), " cards in the deck",
    obs.end_phase ? h("span", { class: "tag" }, "end phase: cow trades only") : null));
  if (obs.over) {
    parts.push(h("p", { class: "stage" }, "The game is over."));
    return parts;
  }
  const a = obs.auction;
  if (a) {
    const lot = a.lot.map((c) => cardName(rules, c)).join(" + ");
    const value = a.card < rules.species.length ? ` (quartet worth ${rules.species[a.card].value})` : "";
    parts.push(h("div", { class: "auction", "aria-live": "polite" },
      h("p", { class: "stage" }, `${Who(a.auctioneer)} ${a.auctioneer === ctx.me ? "auction" : "auctions"} the `, h("strong", {}, lot), value),
      h("p", { class: "high" }, a.high_bidder === null ? "No bid yet." : `Highest bid: ${a.high} from ${who(a.high_bidder)}`),
      a.bids.length ? h("ol", { class: "bids", "aria-label": "Bids so far" },
        a.bids.slice(-6).map(([s, amount]) => h("li", {}, amount ? `${who(s)}: ${amount}` : `${who(s)}: pass`))) : null,
      ctx.clock ? h("p", { class: "going", role: "timer" }, ctx.clock) : null));
  }
  const t = obs.trade;
  if (t) {
    parts.push(h("div", { class: "trade", "aria-live": "polite" },
      h("p", { class: "stage" }, `Cow trade: ${who(t.challenger)} ${t.challenger === ctx.me ? "challenge" : "challenges"} ${who(t.opponent)} for ${t.cards} ${speciesName(rules, t.species)}`),
      t.again ? h("p", { class: "tie" }, "A tie: the challenger offers again.") : null,
      h("p", {}, t.offer_count === null
        ? (t.challenger === ctx.me ? "Your offer: choose your notes on the right." : `Waiting for ${who(t.challenger)}'s offer…`)
        : `Offer on the table: ${plural(t.offer_count, "note")}, face down.`),
      t.my_offer ? h("p", {}, "Your offer: ", noteChips(t.my_offer, "your offer")) : null));
  }
  const c = obs.countdown;
  if (c) {
    const name = cardName(rules, c.card);
    parts.push(h("div", { class: "countdown-box" },
      h("p", { class: "stage" }, `Pedigree countdown for the ${name}, from ${c.from}`),
      c.claimant === null || c.claimant === undefined
        ? h("p", {}, `${plural(c.chosen.length, "seat")} chose so far.`)
        : h("p", {}, `${Who(c.claimant)} claimed it at ${c.count}.`)));
  }
  if (obs.payment && !a) {
    const p = obs.payment;
    parts.push(h("p", { class: "stage" }, `${Who(p.payer)} ${p.payer === ctx.me ? "pay" : "pays"} ${who(p.payee)} ${p.for === "pedigree" ? plural(p.amount, "note") : p.amount}.`));
  } else if (obs.payment && a) {
    parts.push(h("p", {}, `${Who(obs.payment.payer)} ${obs.payment.payer === ctx.me ? "pay" : "pays"} ${obs.payment.amount}.`));
  }
  if (obs.rat_pile !== null && obs.rat_pile !== undefined) {
    parts.push(h("p", { class: "stage" }, `A rat! ${plural(obs.rat_pile, "note")} face down beside it.`));
  }
  if (obs.stage === "divide") {
    parts.push(h("p", { class: "stage" }, `${Who(obs.turn_seat)} ${obs.turn_seat === ctx.me ? "divide" : "divides"} the top card.`));
  }
  if (obs.stage === "turn") {
    parts.push(h("p", { class: "stage" }, obs.turn_seat === ctx.me ? "Your turn." : `${who(obs.turn_seat)}'s turn.`));
  }
  return parts;
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
        if (choice.kind === "auction") buttons.push(button("Auction the top card", choice, { primary: true }));
        else if (choice.kind === "draw") buttons.push(button("Draw and divide the top card", choice, { primary: true }));
        else if (choice.kind === "pass") buttons.push(button("End my turn (no auction)", choice));
        else if (choice.kind === "challenge") trades.push(choice);
      }
      let tradeBox = null;
      if (trades.length) {
        tradeBox = h("fieldset", { class: "trades" }, h("legend", {}, "Or start a cow trade"),
          trades.map((c) => {
            const k = c.species;
            const mine = k === rules.species.length ? null : ctx.obs && ctx.obs.herds[ctx.me][k];
            const theirs = k === rules.species.length ? null : ctx.obs && ctx.obs.herds[c.opponent][k];
            const stake = mine && theirs ? ` (${Math.min(mine, theirs)} at stake)` : "";
            return button(`Challenge ${who(c.opponent)} for ${speciesName(rules, k)}${stake}`, c, { attrs: { class: "trade-choice" } });
          }));
      }
      return panel(info.end_phase ? "Your turn: a cow trade (the deck is empty)" : "Your turn", h("div", { class: "row" }, buttons), tradeBox);
    }
    case "bid": {
      const min = info.min;
      const cap = info.max === null || info.max === undefined ? null : info.max;
      const step = rules.min_raise || 10;
      const quick = [];
      for (const extra of [0, step, 2 * step, 5 * step]) {
        const amount = min + extra;
        if (cap !== null && amount > cap) continue;
        quick.push(button(`Bid ${amount}`, { kind: "bid", amount }, { attrs: { class: amount > info.money ? "over" : "" } }));
      }
      const input = h("input", {
        type: "number", min, step, max: cap === null ? undefined : cap, value: min,
        id: `bid-${msg.request_id}`, inputmode: "numeric", "aria-describedby": `bidhelp-${msg.request_id}`,
      });
      const submit = (ev) => {
        ev.preventDefault();
        const amount = Number(input.value);
        if (!Number.isInteger(amount) || amount < min) { toast(`A bid must be a whole number of at least ${min}.`, "error"); return; }
        if (cap !== null && amount > cap) { toast(`Your notes were shown: you may bid at most ${cap} on this card.`, "error"); return; }
        send({ kind: "bid", amount });
      };
      const lot = cardName(rules, info.card);
      return panel(`Bid for the ${lot}`,
        h("p", {}, info.high ? `Highest bid ${info.high} from ${who(info.high_bidder)}.` : "No bid yet.",
          ` You hold ${info.money}.`, cap !== null ? ` Your limit on this card: ${cap}.` : ""),
        h("div", { class: "row" }, quick, button("Pass", { kind: "pass" })),
        h("form", { class: "row", onsubmit: submit },
          h("label", { for: `bid-${msg.request_id}` }, "Your bid"), input,
          h("button", { type: "submit", class: "primary" }, "Bid")),
        h("p", { class: "small muted", id: `bidhelp-${msg.request_id}` },
          `At least ${min}. If you bid more than you hold and win, your notes are shown and the auction is repeated.`));
    }
    case "knock":
      return panel("You are the auctioneer",
        h("p", {}, info.high ? `Highest bid: ${info.high}.` : "No bid yet.", " The auction closes by itself when nobody bids for a while."),
        h("div", { class: "row" }, button("Knock it down: sold!", { kind: "knock" }, { primary: true })));
    case "sell_or_buy": {
      const buttons = req.choices.map((c) => (c.kind === "sell"
        ? button(`Sell to ${who(info.high_bidder)} for ${info.high}`, c, { primary: true })
        : button(`Buy it myself: pay ${who(info.high_bidder)} ${info.high}`, c)));
      return panel(`The auction of the ${cardName(rules, info.card)} is closed`, h("div", { class: "row" }, buttons));
    }
    case "pay": {
      const pedigree = info.for === "pedigree";
      const options = pedigree ? countPayments(wallet, info.count) : legalPayments(wallet, info.amount);
      const what = pedigree ? plural(info.count, "note") + " of any value" : String(info.amount);
      return panel(`Pay ${who(info.to)} ${what}`,
        h("p", { class: "small muted" }, pedigree
          ? "A pedigree is paid by the number of notes, not their value."
          : "No change is given: each choice below covers the amount with no note to spare."),
        paymentPicker(options, (notes) => send({ kind: "pay", notes })));
    }
    case "offer": {
      const title = info.again
        ? `A tie! Offer again to ${who(info.opponent)} for ${info.cards} ${speciesName(rules, info.species)}`
        : `Your offer to ${who(info.opponent)} for ${info.cards} ${speciesName(rules, info.species)}`;
      return panel(title,
        h("p", { class: "small muted" }, "Only the number of notes is shown to the others; the notes stay face down."),
        notePicker(wallet, "Offer", (notes) => send({ kind: "offer", notes })));
    }
    case "respond":
      return panel(`${who(info.challenger)} offers ${plural(info.offer_notes, "note")} for your ${info.cards} ${speciesName(rules, info.species)}`,
        info.again ? h("p", { class: "tie" }, "A tie before: this is the second offer.") : null,
        h("div", { class: "row" }, button(`Accept: take the ${plural(info.offer_notes, "note")}, give the ${speciesName(rules, info.species)}`, { kind: "accept" }, { primary: true })),
        h("p", {}, "Or counter with notes of your own, face down (the higher total wins the cards):"),
        notePicker(wallet, "Counter", (notes) => send({ kind: "counter", notes })));
    case "claim":
      return claimPanel(msg, ctx, send);
    case "preempt": {
      const buttons = req.choices.map((c) => (c.kind === "preempt"
        ? button(`Take it myself: give ${who(info.claimant)} ${plural(info.count, "note")}`, c)
        : button(`Let ${who(info.claimant)} have it for ${plural(info.count, "note")}`, c, { primary: true })));
      return panel(`${who(info.claimant)} claims the ${cardName(rules, info.card)} at ${info.count}`, h("div", { class: "row" }, buttons));
    }
    case "rat": {
      const take = req.choices.find((c) => c.kind === "take_rat");
      const places = req.choices.filter((c) => c.kind === "place_note");
      return panel("A rat!",
        h("p", {}, `${plural(info.pile, "note")} lie face down beside it. Take the rat with them, or place one of your notes beside it.`),
        h("div", { class: "row" }, take ? button(`Take the rat and the ${plural(info.pile, "note")}`, take, { primary: true }) : null),
        h("div", { class: "row", role: "group", "aria-label": "Place a note" },
          places.map((c) => button(`Place a ${c.note}`, c))));
    }
    case "divide":
      return panel(`You look at the top card: the ${info.name}`,
        h("p", {}, info.next ? "Keep it (your opponent gets the next card unseen) or give it (you get the next card)." : "It is the last card."),
        h("div", { class: "row" }, req.choices.map((c) => (c.kind === "keep"
          ? button(`Keep the ${info.name}`, c, { primary: true }) : button(`Give the ${info.name} away`, c)))));
    default:
      return panel(`Decision: ${req.kind}`, h("div", { class: "row" },
        (req.choices || []).map((c) => button(JSON.stringify(c), c))));
  }
}

function paymentPicker(options, pay) {
  if (!options.length) return h("p", { class: "error" }, "You cannot pay this amount.");
  const sum = (p) => p.reduce((a, b) => a + b, 0);
  return h("div", { class: "payments", role: "group", "aria-label": "Payments you may make" },
    options.map((notes, i) => h("button", {
      type: "button", class: i === 0 ? "primary payment" : "payment",
      "data-action": JSON.stringify({ kind: "pay", notes }),
      "aria-label": `Pay ${notes.length ? notes.join(", ") : "nothing"} (total ${sum(notes)})${i === 0 ? ", the cheapest" : ""}`,
      onclick: () => pay(notes),
    }, noteChips(notes, "notes"), h("span", { class: "total" }, ` = ${sum(notes)}`),
    i === 0 ? h("span", { class: "tag" }, "cheapest") : null)));
}

/** Choose any notes of the wallet (offers and counters): toggles plus a send button. */
function notePicker(wallet, verb, done) {
  const chosen = new Set();
  const total = h("span", { class: "total", "aria-live": "polite" });
  const sendButton = h("button", { type: "button", class: "primary", "data-picker-send": verb.toLowerCase() });
  const refresh = () => {
    const notes = [...chosen].map((i) => wallet[i]).sort((a, b) => a - b);
    const sum = notes.reduce((a, b) => a + b, 0);
    total.textContent = `Chosen: ${plural(notes.length, "note")}, worth ${sum}`;
    sendButton.textContent = notes.length ? `${verb} ${plural(notes.length, "note")} (${sum})` : `${verb} no notes`;
  };
  sendButton.addEventListener("click", () => done([...chosen].map((i) => wallet[i]).sort((a, b) => a - b)));
  const chips = wallet.map((v, i) => {
    const b = h("button", { type: "button", class: `note n${v} toggle`, "aria-pressed": "false", "aria-label": `note ${v}` }, String(v));
    b.addEventListener("click", () => {
      if (chosen.has(i)) chosen.delete(i); else chosen.add(i);
      b.setAttribute("aria-pressed", String(chosen.has(i)));
      refresh();
    });
    return b;
  });
  refresh();
  return h("div", { class: "picker" },
    h("div", { class: "notes", role: "group", "aria-label": "Your notes: press to choose" }, chips.length ? chips : h("span", { class: "muted" }, "You hold no notes.")),
    h("div", { class: "row" }, total, sendButton));
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
  const claim = h("button", { type: "button", class: "primary big", "data-claim": "1" }, `Claim at ${count}!`);
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
    claim.textContent = count > 0 ? `Claim at ${count}!` : "Too late";
    hint.textContent = count > most
      ? `You hold ${plural(info.notes, "note")}: you can claim from ${most} down.`
      : "Whoever claims at the highest count wins the card and pays that many notes (any value).";
  };
  claim.addEventListener("click", () => finish(count));
  const timer = setInterval(() => {
    if (!display.isConnected) { clearInterval(timer); return; }
    count -= 1;
    if (count <= 0) { update(); finish(0); return; }
    update();
  }, ctx.claimTickMs || 1000);
  update();
  return h("section", { class: "panel countdown", "aria-label": "Pedigree countdown", "data-kind": "claim" },
    h("h3", {}, `Pedigree countdown: the ${name}`), display,
    h("div", { class: "row" }, claim, h("button", { type: "button", onclick: () => finish(0) }, "Don't claim")), hint);
}

/** What the seat is waiting for, in words (the status line). */
export function statusLine(obs, names, me) {
  if (!obs) return "";
  const who = (s) => (s === me ? "you" : names[s] || `seat ${s}`);
  if (obs.over) return "The game is over.";
  switch (obs.stage) {
    case "turn": return obs.turn_seat === me ? "Your turn." : `Waiting for ${who(obs.turn_seat)} to choose a turn.`;
    case "bid": return "The auction is open.";
    case "sell_or_buy": return `Waiting for ${who(obs.turn_seat)} to sell or buy.`;
    case "pay": return obs.payment ? `Waiting for ${who(obs.payment.payer)} to pay.` : "A payment.";
    case "offer": return obs.trade ? `Waiting for ${who(obs.trade.challenger)} to offer.` : "A cow trade.";
    case "respond": return obs.trade ? `Waiting for ${who(obs.trade.opponent)} to answer.` : "A cow trade.";
    case "claim": return "The pedigree countdown runs.";
    case "preempt": return `Waiting for ${who(obs.turn_seat)} to decide on the pedigree.`;
    case "rat": return "The rat goes round.";
    case "divide": return `Waiting for ${who(obs.turn_seat)} to keep or give.`;
    default: return "";
  }
}

export function scoreTable(result, names) {
  if (!result) return null;
  const order = names.map((_, s) => s).sort((a, b) => result.places[a] - result.places[b] || a - b);
  const money = result.details && result.details.money;
  return h("table", { class: "scores" },
    h("caption", {}, `Final result (${result.termination}${result.reason ? `: ${result.reason}` : ""})`),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Place"), h("th", { scope: "col" }, "Seat"), h("th", { scope: "col" }, "Score"), money ? h("th", { scope: "col" }, "Money") : null)),
    h("tbody", {}, order.map((s) => h("tr", {},
      h("td", {}, String(result.places[s] + 1)), h("td", {}, names[s]), h("td", {}, String(result.scores[s])),
      money ? h("td", {}, String(money[s])) : null))));
}
