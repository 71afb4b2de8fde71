// A profile page, one for people and bots (/players/{name}; /bots/{name} is the same page):
// A bot's page (/bots/{name}): who it is, its rating per game and rule set, its games (places
// counted from 1, links to the replays) and its faults by kind with their detail: the exception
// with the bot's file and line, the answer that was no action, the late answers and timeouts.
// Everything comes from GET /api/bots/{name} (docs/server.md); a fault links to the replay at
// that decision with the seat's view open (seatview.js), where the page says how to ask the bot
// again locally. "The expert's review" sums up the analyses of its games
// (GET /api/players/{name}/analyses, docs/analysis.md) and asks for its latest games' analyses.

import { h, clear, getJSON } from "./dom.js";
import { t, tParts, say, num, when as moment } from "./i18n.js";
import { gameName, gameTitle, rulesName } from "./names.js";
import { ratingChart } from "./leaderboard.js";

const COLORS = ["#1f6f4a", "#b3261e", "#1d4ed8", "#a16207", "#7c3aed", "#0f766e", "#be185d", "#4b5563"];

/** Every fault code the server stores (docs/protocol.md "Faults"): the catalog's
 * web.botpage.fault.{code} names it (in lower case, as inside a sentence) and
 * web.botpage.fault_about.{code} says what it means. */
export const FAULT_CODES = new Set(["raised", "invalid_action", "illegal_action", "late", "timeout", "disconnect", "left", "bad_json", "bad_message", "bad_reply", "client_error"]);

/** A fault's name inside a sentence ("raised an exception"), or the code in words. */
const faultWords = (code) => (FAULT_CODES.has(code) ? t(`web.botpage.fault.${code}`) : String(code).replace(/_/g, " "));
/** A fault's name as a title ("Raised an exception"). */
export const faultTitle = (code) => { const w = faultWords(code); return w.charAt(0).toUpperCase() + w.slice(1); };

/**
 * A leaderboard entry's faults in that board's rated games, linked to the bot's page (a wide
 * screen's column: a phone shows rank, bot, rating, games and wins).
 */
export function faultCell(entry) {
  const n = entry.faults || 0;
  if (!n) return h("td", { class: "faults opt" }, "0");
  const last = entry.placed_last_for_faults || 0;
  const kinds = Object.entries(entry.fault_counts || {}).map(([c, k]) => t("web.botpage.fault_kinds", { count: k, title: faultWords(c) })).join(", ")
    + (last ? `; ${t("web.botpage.counted_below", { count: last })}` : "");
  return h("td", { class: "faults opt", title: kinds },
    h("a", { href: `/bots/${encodeURIComponent(entry.name)}`, "aria-label": t("web.botpage.faults_of", { count: n, name: entry.name, kinds }) }, String(n)),
    // the games its own faults counted as last place (docs/protocol.md "Failing never pays")
    last ? h("span", { class: "counted-last small muted", "data-games": String(last) }, ` · ${t("web.botpage.counted_last", { count: last })}`) : null);
}

/** 1 -> "1st", 2 -> "2nd" ... in the person's language (places count from 1, docs/protocol.md
 * "Counting places"; the catalog's selectordinal, the browser's ordinal plural rules). */
export function ordinal(n) {
  return t("web.botpage.ordinal", { n });
}

const when = (iso) => (iso ? moment(iso) : "");
// numbers as the person writes them (Intl, the page's language): two decimals, one decimal
const TWO = { minimumFractionDigits: 2, maximumFractionDigits: 2 };
const ONE = { minimumFractionDigits: 1, maximumFractionDigits: 1 };

/** A player's name, linked to its page when it has one (a person's profile, a bot's page). */
export function nameLink(name, page = true, own = false, kind = "bot") {
  const text = own ? h("strong", {}, name) : name;
  const where = kind === "person" ? "players" : "bots";
  return page && !own ? h("a", { href: `/${where}/${encodeURIComponent(name)}` }, text) : text;
}

/** Where a fault happened: the replay at that decision with the seat's view open. */
export const decisionHref = (f) => `/replay/${encodeURIComponent(f.game_id)}?at=${f.move}&seat=${f.seat}`;

/** What a fault's detail says, in a few lines. */
export function faultDetail(f) {
  const d = f.detail || {};
  const out = [];
  const ex = d.exception;
  if (ex) {
    out.push(h("p", { class: "fault-exception" }, h("code", {}, `${ex.type}: ${ex.message}`)));
    if (ex.file) {
      out.push(h("p", { class: "small" }, ...tParts("web.botpage.at", { where: h("code", { class: "where" }, `${ex.file}:${ex.line}`) }),
        ex.function ? [" ", ...tParts("web.botpage.in_function", { function: h("code", {}, ex.function) })] : null));
    }
  } else {
    out.push(h("p", { class: "fault-reason" }, f.reason));
  }
  const facts = [];
  if (d.reported_by) facts.push(t("web.botpage.reported_by", { who: d.reported_by }));
  if (typeof d.after_ms === "number") facts.push(t("web.botpage.after_ms", { ms: Math.round(d.after_ms) }));
  if (d.answered_by) facts.push(t("web.botpage.answered_by", { who: d.answered_by }));
  if (facts.length) out.push(h("p", { class: "small muted" }, facts.join(" · ")));
  return out;
}

export function renderBotPage(main, name) {
  clear(main).append(h("h1", {}, name), h("p", { class: "muted" }, t("web.botpage.loading")));
  getJSON(`/api/players/${encodeURIComponent(name)}`)
    .then((bot) => build(main, bot))
    .catch((err) => clear(main).append(h("h1", {}, name), h("p", { class: "error" }, err.message),
      h("p", {}, ...tParts("web.botpage.who_has_page", { leaderboard: h("a", { href: "/leaderboard" }, t("web.botpage.leaderboard")) }))));
}

function build(main, bot) {
  const faultTotal = Object.values(bot.fault_counts).reduce((a, b) => a + b, 0);
  const person = bot.kind === "person";
  const kind = person ? "person" : bot.kind === "house" ? "house" : "bot";
  const since = bot.created_at ? when(bot.created_at) : "";
  clear(main).appendChild(h("div", { class: "bot-page" },
    h("h1", {}, bot.name, h("span", { class: "tag bot" }, t(`web.botpage.kind.${kind}`))),
    h("p", { class: "lead" }, `${since ? t(person ? "web.botpage.lead_joined" : `web.botpage.lead_registered.${kind}`, { when: since }) : t(`web.botpage.lead.${kind}`)} `,
      t("web.botpage.lead_counts", { games: bot.games.length, faults: faultTotal })),
    bot.suspended ? h("p", { class: "error", role: "status" }, t("web.botpage.suspended", { when: when(bot.suspended_until), reason: bot.suspension_reason || t("web.botpage.too_many_taken_over") })) : null,
    bot.kind === "bot" ? validationNote(bot) : null,
    bot.hosted ? hostedNote(bot.hosted) : null,
    faultCounts(bot),
    ratingsSection(bot),
    winShareSection(bot),
    gamesSection(bot),
    reviewSection(bot),
    faultsSection(bot, faultTotal),
    person ? null : h("section", { class: "panel", "aria-labelledby": "bp-debug-h" }, h("h2", { id: "bp-debug-h" }, t("web.botpage.why")),
      h("p", {}, ...tParts("web.botpage.why_text", {
        command: h("code", {}, ["cardtable", "replay", "RECORD", "--seat", "N", "--at", "K", "--ask", "mybot.py:MyBot"].join(" ")),
        debugging: h("a", { href: "/docs-pages/writing-a-bot" }, t("web.botpage.debugging")),
      })))));
}

function ratingsSection(bot) {
  const box = h("section", { class: "panel", "aria-labelledby": "bp-ratings-h" }, h("h2", { id: "bp-ratings-h" }, t("web.botpage.ratings")));
  if (!bot.ratings.length) {
    box.appendChild(h("p", { class: "muted" }, bot.kind === "person"
      ? t("web.botpage.no_rated_person")
      : t("web.botpage.no_rated_bot")));
    return box;
  }
  const ratings = [...bot.ratings].sort((a, b) => b.games - a.games);
  box.append(h("p", { class: "small muted" }, t("web.botpage.rating_about")),
    h("div", { class: "table-wrap" }, h("table", { class: "bot-ratings" },
      h("caption", { class: "sr-only" }, t("web.botpage.ratings_of", { name: bot.name })),
      h("thead", {}, h("tr", {}, [t("web.botpage.col.game"), t("web.botpage.col.rating"), "μ", "σ", t("web.botpage.col.games"), t("web.botpage.col.wins"), t("web.botpage.col.last_played")].map((word, i) =>
        h("th", { scope: "col", class: [2, 3, 6].includes(i) ? "opt" : null }, word)))),
      h("tbody", {}, ratings.map((r) => h("tr", { "data-board": `${r.game}/${r.rules}` },
        h("th", { scope: "row" }, h("a", { href: `/leaderboard?game=${encodeURIComponent(r.game)}&rules=${encodeURIComponent(r.rules)}` }, gameTitle({ game: r.game, rules: r.rules }))),
        h("td", { class: "rating" }, num(r.rating, TWO)), h("td", { class: "opt" }, num(r.mu, TWO)), h("td", { class: "opt" }, num(r.sigma, TWO)),
        h("td", {}, String(r.games)), h("td", {}, String(r.wins)), h("td", { class: "opt" }, when(r.last_played))))))));
  const series = ratings.map((r, i) => ({
    name: `${gameName(r.game)} · ${r.rules}`,
    color: COLORS[i % COLORS.length],
    points: bot.rating_history.filter((p) => p.game === r.game && p.rules === r.rules).map((p) => ({ t: Date.parse(p.at), r: p.rating })),
  })).filter((s) => s.points.length >= 1);
  // every rating starts at 0 (μ − 3σ of a new player): a short history starts there, when the
  // player joined, so one game already draws a line
  const joined = Date.parse(bot.created_at);
  for (const s of series) {
    if (s.points.length < 2 && joined < s.points[0].t) s.points.unshift({ t: joined, r: 0 });
  }
  if (series.length) box.appendChild(ratingChart(series, bot.name));
  return box;
}

/** Finished games and first places per game and rule set (rated or not). */
function winShareSection(bot) {
  const shares = bot.win_share || [];
  const box = h("section", { class: "panel win-share", "aria-labelledby": "bp-share-h" }, h("h2", { id: "bp-share-h" }, t("web.botpage.win_share")));
  if (!shares.length) {
    box.appendChild(h("p", { class: "muted" }, t("web.botpage.no_finished")));
    return box;
  }
  box.appendChild(h("ul", { class: "share-list" }, shares.map((w) => {
    const pct = Math.round(w.share * 100);
    return h("li", { "data-board": `${w.game}/${w.rules_label}` },
      h("span", { class: "share-name" }, gameTitle({ game: w.game, rules_label: w.rules_label })),
      h("span", { class: "share-bar", role: "img", "aria-label": t("web.botpage.percent_won", { pct }) }, h("span", { style: { width: `${pct}%` } })),
      h("span", { class: "share-num" }, t("web.botpage.share", { pct, wins: w.wins, games: w.games })));
  })));
  return box;
}

function faultsSection(bot, total) {
  const box = h("section", { class: "panel bot-faults", "aria-labelledby": "bp-faults-h" }, h("h2", { id: "bp-faults-h" }, t("web.botpage.faults")));
  if (!total) {
    box.appendChild(h("p", {}, t("web.botpage.no_fault_long")));
    return box;
  }
  const codes = faultCodes(bot);
  box.append(
    h("p", { class: "small muted" }, ...tParts("web.botpage.fault_about", { policy: h("a", { href: "/docs-pages/protocol" }, t("web.botpage.policy")) })));
  const shown = bot.faults.length;
  if (shown < total) box.appendChild(h("p", { class: "small muted" }, t("web.botpage.newest_of", { shown, total })));
  for (const code of codes) {
    const list = bot.faults.filter((f) => f.code === code);
    if (!list.length) continue;
    box.appendChild(h("section", { class: "fault-kind", "data-code": code, id: `fault-${code}`, tabindex: "-1" },
      h("h3", {}, t("web.botpage.fault_heading", { title: faultTitle(code), count: bot.fault_counts[code] })),
      FAULT_CODES.has(code) ? h("p", { class: "small muted" }, t(`web.botpage.fault_about.${code}`)) : null,
      h("ol", { class: "fault-list" }, list.map((f) => h("li", { class: "fault", "data-game": f.game_id },
        h("div", { class: "fault-head" },
          h("span", {}, ...tParts("web.botpage.fault_where", { kind: h("code", {}, f.request_kind) }, { when: when(f.at), seat: f.seat })),
          h("a", { href: decisionHref(f), class: "small" }, t("web.botpage.see_decision"))),
        faultDetail(f))))));
  }
  return box;
}

const faultCodes = (bot) => Object.keys(bot.fault_counts).sort((a, b) => bot.fault_counts[b] - bot.fault_counts[a]);

/** The faults counted by kind, at the top of the page; each links to its kind's list below. */
function faultCounts(bot) {
  const codes = faultCodes(bot);
  if (!codes.length) return h("p", { class: "fault-counts none" }, t("web.botpage.no_fault"));
  const listed = new Set(bot.faults.map((f) => f.code));
  return h("ul", { class: "fault-counts", "aria-label": t("web.botpage.faults_by_kind") }, codes.map((c) => {
    const words = tParts("web.botpage.fault_kinds", { count: h("strong", {}, String(bot.fault_counts[c])) }, { title: faultWords(c) });
    // an in-page link: the router would re-render the page for a plain '#' link
    const jump = (ev) => {
      ev.preventDefault();
      const target = document.getElementById(`fault-${c}`);
      if (target) { target.scrollIntoView({ block: "start" }); target.focus({ preventScroll: true }); }
    };
    return h("li", { "data-code": c }, listed.has(c) ? h("a", { href: `#fault-${c}`, onclick: jump }, words) : words);
  }));
}

function gamesSection(bot) {
  const box = h("section", { class: "panel", "aria-labelledby": "bp-games-h" }, h("h2", { id: "bp-games-h" }, t("web.botpage.games")));
  if (!bot.games.length) {
    box.appendChild(h("p", { class: "muted" }, t("web.botpage.no_game")));
    return box;
  }
  box.append(h("p", { class: "small muted" }, t("web.botpage.places_count")),
    h("div", { class: "table-wrap" }, h("table", { class: "games bot-games" },
      h("caption", { class: "sr-only" }, t("web.botpage.games_of", { name: bot.name })),
      h("thead", {}, h("tr", {}, ["game", "lobby", "players", "place", "score", "faults", "ended", "replay"].map((c) => h("th", { scope: "col" }, t(`web.botpage.col.${c}`))))),
      h("tbody", {}, bot.games.map((g) => gameRow(bot, g))))));
  return box;
}

/**
 * The place that counted for the rating and standings when the bot's own faults placed it below
 * every player without one (docs/protocol.md "Failing never pays"), in words.
 */
function countedPlace(g) {
  if (!g.placed_last_for_faults || !g.rating_place) return null;
  const seats = g.seats || (g.names || []).length;
  return h("span", { class: "counted-place small", "data-rating-place": String(g.rating_place) },
    h("br"), t("web.botpage.counted_as", { place: ordinal(g.rating_place), seats }));
}

/** Whether a registered bot played its unrated validation game (server/validation.py). */
function validationNote(bot) {
  const games = bot.validated || [];
  return h("p", { class: "small muted validation", "data-validated": games.join(",") },
    games.length
      ? t("web.botpage.validated", { games: games.map((g) => gameName(g)).join(", ") })
      : t("web.botpage.not_validated"));
}

/** A hosted bot (docs/hosted-bots.md): the version that plays and its validation game. */
function hostedNote(hosted) {
  const game = hosted.validation_game;
  const state = ["valid", "invalid", "new"].includes(hosted.status) ? t(`web.botpage.hosted.${hosted.status}`) : hosted.status;
  return h("p", { class: "small muted hosted", "data-hosted-status": hosted.status },
    t("web.botpage.hosted", { version: hosted.version, language: hosted.language, sha256: hosted.sha256, state }),
    game ? h("span", {}, " (", h("a", { href: `/replay/${encodeURIComponent(game)}` }, t("web.botpage.its_game")), ")") : null,
    t("web.botpage.sandbox"));
}

function gameRow(bot, g) {
  const names = g.names || [];
  const pages = g.pages || [];
  const ended = g.status !== "running";
  let place = "";
  if (g.status === "running") place = t("web.botpage.playing");
  else if (g.place) place = t("web.botpage.place_of", { place: ordinal(g.place), seats: g.seats || names.length });
  else place = g.status === "aborted" ? t("web.botpage.stopped") : "";
  const id = encodeURIComponent(g.game_id);
  const link = ended
    ? h("span", { class: "game-links" },
      h("a", { href: `/replay/${id}`, class: "button", "aria-label": t("web.botpage.replay_label", { when: when(g.started_at) }) }, t("web.botpage.replay")),
      // the replay with this bot's seat open at its first decision (seatview.js)
      h("a", { href: `/replay/${id}?at=0&seat=${g.seat}`, class: "small decisions-link" }, t("web.botpage.its_decisions")))
    : h("a", { href: `/watch/${id}`, class: "button" }, t("web.botpage.watch"));
  return h("tr", { "data-game": g.game_id },
    h("td", { "data-label": t("web.botpage.col.game") }, gameTitle(g),
      // the version its client sent in hello (cardtable bot: the bot file's hash by default)
      g.bot_version ? h("span", { class: "tag version", title: t("web.botpage.version_title") }, g.bot_version) : null),
    h("td", { "data-label": t("web.botpage.col.lobby") }, g.lobby, g.rated ? h("span", { class: "tag" }, t("web.botpage.rated")) : null),
    h("td", { "data-label": t("web.botpage.col.players") }, names.map((n, s) => [s ? ", " : "", nameLink(n, pages[s], s === g.seat)])),
    h("td", { "data-label": t("web.botpage.col.place"), class: "place" }, place, countedPlace(g)),
    h("td", { "data-label": t("web.botpage.col.score") }, g.score === null || g.score === undefined ? "" : String(g.score)),
    h("td", { "data-label": t("web.botpage.col.faults"), class: "faults" }, String(g.faults), g.taken_over ? h("span", { class: "tag away" }, t("web.botpage.taken_over")) : null),
    h("td", { "data-label": t("web.botpage.col.ended") }, when(g.ended_at)),
    h("td", {}, link));
}

// ---------------------------------------------------------------- the expert's review (#26)

/** How many of the newest finished games "Analyse its latest games" asks for at most. */
const LATEST = 5;
const ANALYSED_GAMES = new Set(["kuhhandel", "cunegonda"]);
const REVIEW_POLL_MS = 1500;

/**
 * The expert's summary over every analysed game of this player (the same count as
 * `cardtable analyse A.json B.json --player NAME`), per game; each game with its mistakes and a
 * link to its replay with the analysis of the seat open. A button asks the server's bounded
 * analysis queue for the newest finished games not analysed yet; the section follows the jobs.
 */
function reviewSection(bot) {
  const base = `/api/players/${encodeURIComponent(bot.name)}/analyses`;
  const status = h("p", { class: "small", "aria-live": "polite" });
  const body = h("div", { class: "bp-review-body" });
  const button = h("button", { type: "button", "data-control": "analyse-latest" }, t("web.botpage.analyse_latest"));
  const box = h("section", { class: "panel bp-review", "aria-labelledby": "bp-review-h", "data-state": "loading" },
    h("h2", { id: "bp-review-h" }, t("web.botpage.review")),
    h("p", { class: "small muted" }, ...tParts("web.botpage.review_about", {
      how: h("a", { href: "/docs-pages/analysis" }, t("web.botpage.how_it_works")),
      command: h("code", {}, ["cardtable", "analyse", "A.json", "B.json", "--player", bot.name].join(" ")),
    }, { name: bot.name })),
    body, h("div", { class: "row" }, button), status);
  let timer = null;
  let known = new Set(); // games analysed or under way

  const candidates = () => bot.games.filter((g) => g.status === "finished" && ANALYSED_GAMES.has(g.game) && !known.has(g.game_id));

  function draw(data) {
    known = new Set([...data.by_game.flatMap((g) => g.games.map((x) => x.game_id)), ...data.pending.map((p) => p.game_id)]);
    clear(body);
    if (!data.by_game.length) body.appendChild(h("p", { class: "muted" }, t("web.botpage.no_analysed")));
    for (const g of data.by_game) body.appendChild(gameReview(g));
    const waiting = data.pending.length;
    box.dataset.state = waiting ? "running" : data.by_game.length ? "done" : "empty";
    if (!waiting && status.dataset.jobs) { status.textContent = ""; delete status.dataset.jobs; }
    if (waiting) {
      status.dataset.jobs = "1";
      const done = data.pending.reduce((a, p) => a + p.done, 0);
      const total = data.pending.reduce((a, p) => a + p.total, 0);
      status.textContent = t("web.botpage.analysing", { count: waiting, progress: total ? t("web.botpage.decisions_done", { done, total }) : t("web.botpage.waiting_worker") });
    }
    const left = candidates().length;
    button.disabled = !left || waiting > 0;
    button.textContent = left ? t("web.botpage.analyse_latest_n", { count: Math.min(left, LATEST) }) : t("web.botpage.all_analysed");
    if (waiting) timer = setTimeout(load, REVIEW_POLL_MS);
  }

  function load() {
    clearTimeout(timer);
    if (!box.isConnected && box.dataset.state !== "loading") return; // the page moved on
    getJSON(base).then(draw).catch((err) => { status.textContent = t("web.botpage.read_failed", { error: err.message }); });
  }

  button.addEventListener("click", async () => {
    button.disabled = true;
    let asked = 0;
    const asking = t("web.botpage.asking");
    status.textContent = asking;
    for (const g of candidates().slice(0, LATEST)) {
      const reply = await fetch(`/api/games/${encodeURIComponent(g.game_id)}/analysis?seat=${g.seat}`, { method: "POST", headers: { Accept: "application/json" } });
      if (reply.status === 429) {
        status.textContent = t("web.botpage.queue_full", { count: asked });
        break;
      }
      if (reply.ok) asked += 1;
    }
    if (asked && status.textContent === asking) status.textContent = t("web.botpage.asked", { count: asked });
    load();
  });
  load();
  return box;
}

function gameReview(g) {
  const s = g.summary;
  const pct = num(100 * s.rate, ONE);
  return h("section", { class: "bp-review-game", "data-game": g.game, "aria-label": t("web.botpage.review_of", { game: gameName(g.game) }) },
    h("h3", {}, t("web.botpage.analysed_games", { game: gameName(g.game), count: g.games.length })),
    h("p", { class: "bp-review-total" }, h("strong", {}, t("web.botpage.mistakes", { count: s.mistakes })),
      ` ${t("web.botpage.mistakes_in", { searched: s.searched, pct, decisions: s.decisions, loss: num(s.loss, ONE), unit: t("web.analysis.unit", { game: g.game }) })}`),
    Object.keys(s.by_kind).length
      ? h("ul", { class: "bp-kinds", "aria-label": t("web.botpage.mistakes_by_kind") }, Object.entries(s.by_kind).map(([kind, n]) =>
        h("li", { "data-kind": kind }, h("strong", {}, `${n} ×`), ` ${say((s.kind_words || {})[kind], kind)}`)))
      : h("p", { class: "muted" }, t("web.botpage.no_mistake")),
    h("p", { class: "small muted bp-threshold" }, t("web.analysis.threshold", { loss: g.loss_at_least, unit: t("web.analysis.unit", { game: g.game }), z: g.noise_z })),
    h("div", { class: "table-wrap" }, h("table", { class: "games bp-review-games" },
      h("caption", { class: "sr-only" }, t("web.botpage.analysed_of", { game: gameName(g.game) })),
      h("thead", {}, h("tr", {}, [t("web.botpage.col.ended"), t("web.botpage.col.rule_set"), t("web.botpage.col.searched"), t("web.botpage.col.mistakes"), ""].map((word) => h("th", { scope: "col" }, word)))),
      h("tbody", {}, g.games.map((x) => h("tr", { "data-game": x.game_id },
        h("td", { "data-label": t("web.botpage.col.ended") }, when(x.ended_at)),
        h("td", { "data-label": t("web.botpage.col.rule_set") }, rulesName(x.rules_label, x.game || g.game)),
        h("td", { "data-label": t("web.botpage.col.searched") }, String(x.summary.searched)),
        h("td", { "data-label": t("web.botpage.col.mistakes"), class: "mistakes" }, String(x.summary.mistakes)),
        h("td", {}, h("a", { href: `/replay/${encodeURIComponent(x.game_id)}?seat=${x.seat}`, "aria-label": t("web.botpage.see_analysis_label", { when: when(x.ended_at) }) }, t("web.botpage.see_analysis")))))))));
}
