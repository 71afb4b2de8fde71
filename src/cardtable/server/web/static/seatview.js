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

import { h, clear, getJSON } from "./dom.js";
import { t, tParts } from "./i18n.js";
import { animal } from "./describe.js";
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
    h("option", { value: s }, t("web.seatview.seat_option", { seat: s, name: n }))));
  const number = h("input", { id: "sv-at", type: "number", min: 1, step: 1, value: 1, inputmode: "numeric" });
  const of = h("span", { class: "muted", id: "sv-of" });
  const out = h("div", { class: "sv-out" });
  // what a screen reader hears when the panel changes: one line, not the whole panel
  const said = h("p", { class: "sr-only", role: "status" });
  const prev = h("button", { type: "button", "aria-label": t("web.seatview.prev_label"), onclick: () => go(Number(number.value) - 1) }, t("web.seatview.prev"));
  const next = h("button", { type: "button", "aria-label": t("web.seatview.next_label"), onclick: () => go(Number(number.value) + 1) }, t("web.seatview.next"));
  const here = h("button", { type: "button", onclick: () => go(atOrAfter(seat(), current())) }, t("web.seatview.here"));
  const form = h("form", { class: "sv-form", onsubmit: (ev) => { ev.preventDefault(); go(Number(number.value)); } },
    h("div", { class: "field" }, h("label", { for: "sv-seat" }, t("web.seatview.seat")), seatSelect),
    h("div", { class: "field" }, h("label", { for: "sv-at" }, t("web.seatview.decision")), h("div", { class: "sv-number" }, number, of)),
    h("div", { class: "sv-buttons" }, h("button", { type: "submit", class: "primary" }, t("web.seatview.show")), prev, next, here));
  const box = h("section", { class: "panel seat-view", "aria-labelledby": "sv-h" },
    h("h2", { id: "sv-h" }, t("web.seatview.heading")),
    h("p", { class: "small muted" }, t("web.seatview.intro")),
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
    of.textContent = t("web.seatview.of", { total });
  };
  seatSelect.addEventListener("change", () => { refreshOf(); go(atOrAfter(seat(), current())); });

  let asking = 0;
  function go(k) {
    const s = seat();
    const total = decisions[s].length;
    refreshOf();
    if (!total) {
      clear(out).appendChild(h("p", {}, t("web.seatview.no_decision", { name: names[s] })));
      return;
    }
    k = Math.max(1, Math.min(total, Number.isFinite(k) ? Math.round(k) : 1));
    number.value = String(k);
    prev.disabled = k <= 1;
    next.disabled = k >= total;
    const ticket = ++asking;
    clear(out).appendChild(h("p", { class: "muted" }, t("web.seatview.loading")));
    getJSON(`/api/games/${encodeURIComponent(gameId)}/decision?seat=${s}&at=${k}`)
      .then((d) => {
        if (ticket !== asking) return;
        clear(out).append(...render(d).filter(Boolean));
        said.textContent = t("web.seatview.said", { name: names[d.seat], decision: d.decision, decisions: d.decisions, kind: d.request.kind });
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
    // a command (its words are the CLI's, not a sentence)
    const ask = ["cardtable", "replay", file, "--seat", s, "--at", d.decision, "--ask", "mybot.py:MyBot"].join(" ");
    const copyButton = navigator.clipboard && window.isSecureContext
      ? h("button", { type: "button", class: "small", onclick: () => copy(ask, copyButton) }, t("web.seatview.copy")) : null;
    return [
      h("h3", { class: "sv-title" }, ...tParts("web.seatview.title", { name: seatName(names, pages, s), kind: h("code", {}, d.request.kind) }, { seat: s, decision: d.decision, decisions: d.decisions }),
        h("span", { class: "small muted" }, ` · ${t("web.seatview.at_move", { move: d.upto + 1, last: frames.length - 1 })}`)),
      h("div", { class: "sv-buttons" },
        h("button", { type: "button", onclick: () => show(d.upto) }, t("web.seatview.before")),
        h("button", { type: "button", onclick: () => show(d.upto + 1) }, t("web.seatview.after")),
        h("a", { class: "small", href: `/replay/${encodeURIComponent(gameId)}?at=${d.upto}&seat=${s}` }, t("web.seatview.link"))),
      fault ? h("div", { class: "sv-fault", role: "note", "data-code": fault.code },
        h("p", {}, h("strong", {}, t("web.seatview.fault", { title: faultTitle(fault.code) })), ` ${t("web.seatview.fault_fallback")}`),
        faultDetail(fault)) : null,
      h("div", { class: "sv-grid" },
        h("div", { class: "sv-request" },
          h("h4", {}, t("web.seatview.request")),
          requestWords(d.request, d.recorded),
          h("h4", {}, t("web.seatview.recorded")),
          h("pre", { class: "sv-recorded" }, compact(d.recorded)),
          h("div", { class: "sv-ask" },
            h("h4", {}, t("web.seatview.ask_again")),
            h("p", { class: "small" }, ...tParts("web.seatview.download", { file: h("a", { href: record, download: file }, file), curl: h("code", {}, `curl -o ${file} ${record}`) })),
            h("pre", { class: "sv-command" }, h("code", {}, ask)),
            h("p", { class: "small muted" }, ...tParts("web.seatview.rebuilt", { copy: copyButton || "", json: h("code", {}, "--json"), ask: h("code", {}, "--ask BOT") })),
            h("p", { class: "small muted" }, ...tParts("web.seatview.analyse", { command: h("code", {}, `cardtable analyse ${file} --seat ${s} --mistakes`), studying: h("a", { href: "/docs-pages/analysis" }, t("web.seatview.studying")) }))),
          h("details", {}, h("summary", {}, t("web.seatview.request_json")), h("pre", { class: "sv-request-json" }, JSON.stringify(d.request, null, 1)))),
        h("div", { class: "sv-board" },
          h("h4", {}, t("web.seatview.saw", { name: names[s] })),
          seatBoard(d.observation, s),
          h("details", {}, h("summary", {}, t("web.seatview.observation_json")), h("pre", {}, JSON.stringify(d.observation, null, 1))))),
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
      return h("p", { class: "muted" }, t("web.seatview.no_board"));
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
      rows.length ? h("dl", { class: "sv-info" }, rows) : h("p", { class: "small muted" }, t("web.seatview.no_info")),
      req.choices
        ? h("div", {}, h("p", { class: "small" }, t("web.seatview.choices", { count: req.choices.length })),
          h("ol", { class: "sv-choices", start: 0 }, req.choices.map((c) => {
            const picked = canonical(c) === answer;
            return h("li", { class: picked ? "picked" : null }, h("code", {}, compact(c)), picked ? h("span", { class: "tag" }, t("web.seatview.answered")) : null);
          })))
        : h("p", { class: "small" }, t("web.seatview.any_action")),
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
      if (value < n) return animal(species[value].name);
      if (value < 2 * n) return t("web.seatview.pedigree", { animal: animal(species[value - n].name) });
      return value === 2 * n ? t("web.seatview.rat") : "";
    }
    if (key === "species") return value < n ? animal(species[value].name) : value === n ? t("web.seatview.rats") : "";
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
    clear(out).appendChild(h("p", { class: "small" }, ...tParts("web.seatview.choose", { here: h("em", {}, t("web.seatview.here")) })));
  }
  return box;
}

function copy(text, button) {
  const done = () => { button.textContent = t("web.seatview.copied"); setTimeout(() => { button.textContent = t("web.seatview.copy"); }, 2000); };
  navigator.clipboard.writeText(text).then(done, () => {});
}
