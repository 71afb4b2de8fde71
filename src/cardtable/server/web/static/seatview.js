// A seat's view at a decision, in the replay viewer (issue #28): choose a seat and one of its
// decisions (counted from 1, as `cardtable replay --seat N --at K`), and the panel shows what
// that seat saw then (its own notes or hand only, drawn by the table's renderer), the request
// exactly as the bot got it, the recorded answer, the fault stored at that decision if any, and
// the command that asks the bot author's own bot the same decision again on their machine.
// Everything comes from GET /api/games/{id}/decision?seat=N&at=K (cardtable/core/decision.py)
// and GET /api/games/{id} (the game's faults).
//
// The address /replay/{id}?at=P&seat=N opens the panel on seat N's decision at or after
// position P (the bot page links every fault this way: a fault's `decision` is the number of
// moves played before it).

import { h, clear, getJSON, plural } from "./dom.js";
import { faultTitle, faultDetail } from "./botpage.js";
import * as KH from "./kuhhandel.js";
import * as CU from "./cunegonda.js";
import { seatName } from "./names.js";

/** JSON with sorted keys, to compare a choice with the recorded answer. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

const compact = (value) => JSON.stringify(value);
/** Request info fields that name a seat (docs/writing-a-bot.md). */
const SEAT_KEYS = new Set(["high_bidder", "to", "opponent", "challenger", "claimant", "auctioneer"]);

/**
 * The panel. opts: {gameId, replay (GET /api/games/{id}/replay), detail (GET /api/games/{id}),
 * pages (the seats' pages, names.js seatPages), current() (the replay's position: moves
 * played), show(position) (moves the replay there)}.
 */
export function seatView({ gameId, replay, detail, pages = null, current, show }) {
  const frames = replay.frames;
  const names = replay.names;
  const cu = replay.game === "cunegonda";
  // the record's position of each seat's decisions: frames[i] follows action i - 1
  const decisions = names.map(() => []);
  for (let i = 1; i < frames.length; i++) {
    if (frames[i].seat !== null && decisions[frames[i].seat]) decisions[frames[i].seat].push(i - 1);
  }
  const faults = (detail && detail.faults) || [];
  const params = new URLSearchParams(location.search);
  const askedSeat = params.get("seat");
  const askedAt = params.get("at");

  const seatSelect = h("select", { id: "sv-seat" }, names.map((n, s) =>
    h("option", { value: s }, `seat ${s}: ${n}`)));
  const number = h("input", { id: "sv-at", type: "number", min: 1, step: 1, value: 1, inputmode: "numeric" });
  const of = h("span", { class: "muted", id: "sv-of" });
  const out = h("div", { class: "sv-out" });
  // what a screen reader hears when the panel changes: one line, not the whole panel
  const said = h("p", { class: "sr-only", role: "status" });
  const prev = h("button", { type: "button", "aria-label": "Previous decision of this seat", onclick: () => go(Number(number.value) - 1) }, "‹ Previous");
  const next = h("button", { type: "button", "aria-label": "Next decision of this seat", onclick: () => go(Number(number.value) + 1) }, "Next ›");
  const here = h("button", { type: "button", onclick: () => go(atOrAfter(seat(), current())) }, "At this move");
  const form = h("form", { class: "sv-form", onsubmit: (ev) => { ev.preventDefault(); go(Number(number.value)); } },
    h("div", { class: "field" }, h("label", { for: "sv-seat" }, "Seat"), seatSelect),
    h("div", { class: "field" }, h("label", { for: "sv-at" }, "Decision"), h("div", { class: "sv-number" }, number, of)),
    h("div", { class: "sv-buttons" }, h("button", { type: "submit", class: "primary" }, "Show"), prev, next, here));
  const box = h("section", { class: "panel seat-view", "aria-labelledby": "sv-h" },
    h("h2", { id: "sv-h" }, "A seat's view at a decision"),
    h("p", { class: "small muted" }, "What one seat saw when it was asked, the request as its bot got it and the answer recorded. For your bot's own games: ask your bot the same decision again on your machine."),
    form, said, out);

  const seat = () => Number(seatSelect.value);
  /** The seat's decision (from 1) at or after `position` moves played (its last one if none). */
  function atOrAfter(s, position) {
    const list = decisions[s];
    const k = list.findIndex((upto) => upto >= position);
    return k < 0 ? list.length : k + 1;
  }
  const refreshOf = () => {
    const total = decisions[seat()].length;
    number.max = String(Math.max(1, total));
    of.textContent = `of ${total}`;
  };
  seatSelect.addEventListener("change", () => { refreshOf(); go(atOrAfter(seat(), current())); });

  let asking = 0;
  function go(k) {
    const s = seat();
    const total = decisions[s].length;
    refreshOf();
    if (!total) {
      clear(out).appendChild(h("p", {}, `${names[s]} made no decision in this game.`));
      return;
    }
    k = Math.max(1, Math.min(total, Number.isFinite(k) ? Math.round(k) : 1));
    number.value = String(k);
    prev.disabled = k <= 1;
    next.disabled = k >= total;
    const ticket = ++asking;
    clear(out).appendChild(h("p", { class: "muted" }, "Loading the decision…"));
    getJSON(`/api/games/${encodeURIComponent(gameId)}/decision?seat=${s}&at=${k}`)
      .then((d) => {
        if (ticket !== asking) return;
        clear(out).append(...render(d).filter(Boolean));
        said.textContent = `${names[d.seat]}, decision ${d.decision} of ${d.decisions}: ${d.request.kind}.`;
      })
      .catch((err) => { if (ticket === asking) clear(out).appendChild(h("p", { class: "error" }, err.message)); });
  }

  function render(d) {
    const s = d.seat;
    const previous = d.decision > 1 ? decisions[s][d.decision - 2] : -1;
    // a fault stored between the seat's previous action and this one was on this decision
    const fault = faults.find((f) => f.seat === s && f.move > previous && f.move <= d.upto);
    const record = `${location.origin}/api/games/${gameId}/record`;
    const file = `game-${gameId}.json`;
    const ask = `cardtable replay ${file} --seat ${s} --at ${d.decision} --ask mybot.py:MyBot`;
    const copyButton = navigator.clipboard && window.isSecureContext
      ? h("button", { type: "button", class: "small", onclick: () => copy(ask, copyButton) }, "Copy the command") : null;
    return [
      h("h3", { class: "sv-title" }, seatName(names, pages, s), ` (seat ${s}), decision ${d.decision} of ${d.decisions}: `, h("code", {}, d.request.kind),
        h("span", { class: "small muted" }, ` · move ${d.upto + 1} of ${frames.length - 1}`)),
      h("div", { class: "sv-buttons" },
        h("button", { type: "button", onclick: () => show(d.upto) }, "Show the game just before it"),
        h("button", { type: "button", onclick: () => show(d.upto + 1) }, "…and just after it"),
        h("a", { class: "small", href: `/replay/${encodeURIComponent(gameId)}?at=${d.upto}&seat=${s}` }, "Link to this decision")),
      fault ? h("div", { class: "sv-fault", role: "note", "data-code": fault.code },
        h("p", {}, h("strong", {}, `Fault: ${faultTitle(fault.code)}.`), " The recorded answer is the fallback's."),
        faultDetail(fault)) : null,
      h("div", { class: "sv-grid" },
        h("div", { class: "sv-request" },
          h("h4", {}, "The request"),
          requestWords(d.request, d.recorded),
          h("h4", {}, "The recorded answer"),
          h("pre", { class: "sv-recorded" }, compact(d.recorded)),
          h("div", { class: "sv-ask" },
            h("h4", {}, "Ask your bot again"),
            h("p", { class: "small" }, "Download the game's record (", h("a", { href: record, download: file }, file),
              ", or ", h("code", {}, `curl -o ${file} ${record}`), "), then ask your bot this decision again on your machine:"),
            h("pre", { class: "sv-command" }, h("code", {}, ask)),
            h("p", { class: "small muted" }, copyButton, " The bot is rebuilt with the seat's seed and asked its earlier decisions first, so it is where it was; its answer is printed beside the recorded one. ",
              h("code", {}, "--json"), " instead of ", h("code", {}, "--ask BOT"), " prints what this panel shows."),
            h("p", { class: "small muted" }, h("code", {}, `cardtable analyse ${file} --seat ${s} --mistakes`),
              " has the expert bot review every decision of this seat (", h("a", { href: "/docs-pages/analysis" }, "studying a game"), ").")),
          h("details", {}, h("summary", {}, "The request as JSON"), h("pre", { class: "sv-request-json" }, JSON.stringify(d.request, null, 1)))),
        h("div", { class: "sv-board" },
          h("h4", {}, `What ${names[s]} saw`),
          seatBoard(d.observation, s),
          h("details", {}, h("summary", {}, "The observation as JSON"), h("pre", {}, JSON.stringify(d.observation, null, 1))))),
    ];
  }

  function seatBoard(obs, s) {
    try {
      if (cu) {
        const hand = obs.hand || [];
        return CU.renderBoard(obs, { names, pages, me: s, hand, seats: null, handSlot: CU.handPanel(null, { hand, names }) });
      }
      return KH.renderBoard(obs, { names, pages, me: s, rules: replay.rules, seats: null, wallet: obs.wallet || [] });
    } catch (err) {
      return h("p", { class: "muted" }, "The board cannot be drawn here; the observation is below as JSON.");
    }
  }

  function requestWords(req, recorded) {
    const info = req.info || {};
    const rows = Object.entries(info).map(([k, v]) => {
      const says = meaning(k, v);
      return h("div", {}, h("dt", {}, k), h("dd", {}, compact(v), says ? h("span", { class: "sv-means" }, ` (${says})`) : null));
    });
    const answer = canonical(recorded);
    return [
      rows.length ? h("dl", { class: "sv-info" }, rows) : h("p", { class: "small muted" }, "No info."),
      req.choices
        ? h("div", {}, h("p", { class: "small" }, `${plural(req.choices.length, "choice")} (the recorded one marked):`),
          h("ol", { class: "sv-choices", start: 0 }, req.choices.map((c) => {
            const picked = canonical(c) === answer;
            return h("li", { class: picked ? "picked" : null }, h("code", {}, compact(c)), picked ? h("span", { class: "tag" }, "answered") : null);
          })))
        : h("p", { class: "small" }, "Any action of this kind (no list of choices: the bot builds its answer)."),
    ];
  }

  /** What an info value stands for, in words: a seat's name, a Kuhhandel card or species. */
  function meaning(key, value) {
    if (!Number.isInteger(value)) return "";
    if (SEAT_KEYS.has(key)) return names[value] || "";
    const species = (replay.rules && replay.rules.species) || null;
    if (cu || !species) return "";
    const n = species.length;
    if (key === "card") {
      if (value < n) return species[value].name;
      if (value < 2 * n) return `${species[value - n].name} pedigree card`;
      return value === 2 * n ? "rat" : "";
    }
    if (key === "species") return value < n ? species[value].name : value === n ? "rats" : "";
    return "";
  }

  refreshOf();
  if (askedSeat !== null && /^\d+$/.test(askedSeat) && Number(askedSeat) < names.length) {
    seatSelect.value = askedSeat;
    const position = askedAt !== null && /^\d+$/.test(askedAt) ? Number(askedAt) : 0;
    go(atOrAfter(Number(askedSeat), position));
    // the panel is what the address asked for: bring it into view once the page is drawn
    setTimeout(() => box.scrollIntoView({ block: "start" }), 0);
  } else {
    clear(out).appendChild(h("p", { class: "small" }, "Choose a seat and a decision, then Show (or ", h("em", {}, "At this move"), " for the seat's decision at the replay's move)."));
  }
  return box;
}

function copy(text, button) {
  const done = () => { button.textContent = "Copied"; setTimeout(() => { button.textContent = "Copy the command"; }, 2000); };
  navigator.clipboard.writeText(text).then(done, () => {});
}
