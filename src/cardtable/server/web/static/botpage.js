// A profile page, one for people and bots (/players/{name}; /bots/{name} is the same page):
// A bot's page (/bots/{name}): who it is, its rating per game and rule set, its games (places
// counted from 1, links to the replays) and its faults by kind with their detail: the exception
// with the bot's file and line, the answer that was no action, the late answers and timeouts.
// Everything comes from GET /api/bots/{name} (docs/server.md); a fault links to the replay at
// that decision with the seat's view open (seatview.js), where the page says how to ask the bot
// again locally. "The expert's review" sums up the analyses of its games
// (GET /api/players/{name}/analyses, docs/analysis.md) and asks for its latest games' analyses.

import { h, clear, getJSON, plural } from "./dom.js";
import { gameName, gameTitle } from "./names.js";
import { ratingChart } from "./leaderboard.js";

const COLORS = ["#1f6f4a", "#b3261e", "#1d4ed8", "#a16207", "#7c3aed", "#0f766e", "#be185d", "#4b5563"];

/** Every fault code the server stores (docs/protocol.md "Faults"), in words. */
export const FAULT_WORDS = {
  raised: ["Raised an exception", "the bot's act raised; the client reported it with the bot's file and line"],
  invalid_action: ["Answered with no action", "the answer was not an action of the game (a string, a malformed object)"],
  illegal_action: ["Illegal action", "an action the rules do not allow at that moment"],
  late: ["Late", "no answer within the client's own time limit (the deadline less a margin)"],
  timeout: ["Timed out", "no answer before the deadline and the time bank ran out"],
  disconnect: ["Not connected", "the bot's client was not connected when it was asked"],
  left: ["Left the game", "the bot left the game before it ended"],
  bad_json: ["Unreadable frame", "a frame that was not JSON"],
  bad_message: ["Malformed message", "a message the protocol does not allow"],
  bad_reply: ["Bad reply", "a reply that could not be read"],
  client_error: ["Client error", "the client library could not handle the request"],
};

export const faultTitle = (code) => (FAULT_WORDS[code] ? FAULT_WORDS[code][0] : String(code).replace(/_/g, " "));

/**
 * A leaderboard entry's faults in that board's rated games, linked to the bot's page (a wide
 * screen's column: a phone shows rank, bot, rating, games and wins).
 */
export function faultCell(entry) {
  const n = entry.faults || 0;
  if (!n) return h("td", { class: "faults opt" }, "0");
  const last = entry.placed_last_for_faults || 0;
  const kinds = Object.entries(entry.fault_counts || {}).map(([c, k]) => `${k} ${faultTitle(c).toLowerCase()}`).join(", ")
    + (last ? `; ${last} rated ${last === 1 ? "game" : "games"} counted as below every player without a fault` : "");
  return h("td", { class: "faults opt", title: kinds },
    h("a", { href: `/bots/${encodeURIComponent(entry.name)}`, "aria-label": `${n} faults of ${entry.name}: ${kinds}` }, String(n)),
    // the games its own faults counted as last place (docs/protocol.md "Failing never pays")
    last ? h("span", { class: "counted-last small muted", "data-games": String(last) }, ` · ${last} counted last`) : null);
}

/** 1 -> "1st", 2 -> "2nd" ... (places count from 1, docs/protocol.md "Counting places"). */
export function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${suffix}`;
}

const when = (iso) => (iso ? new Date(iso).toLocaleString() : "");

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
      out.push(h("p", { class: "small" }, "at ", h("code", { class: "where" }, `${ex.file}:${ex.line}`),
        ex.function ? [" in ", h("code", {}, ex.function)] : null));
    }
  } else {
    out.push(h("p", { class: "fault-reason" }, f.reason));
  }
  const facts = [];
  if (d.reported_by) facts.push(`reported by the ${d.reported_by}`);
  if (typeof d.after_ms === "number") facts.push(`${Math.round(d.after_ms)} ms after the request`);
  if (d.answered_by) facts.push(`the ${d.answered_by}'s fallback answered`);
  if (facts.length) out.push(h("p", { class: "small muted" }, facts.join(" · ")));
  return out;
}

export function renderBotPage(main, name) {
  clear(main).append(h("h1", {}, name), h("p", { class: "muted" }, "Loading…"));
  getJSON(`/api/players/${encodeURIComponent(name)}`)
    .then((bot) => build(main, bot))
    .catch((err) => clear(main).append(h("h1", {}, name), h("p", { class: "error" }, err.message),
      h("p", {}, "People with an account, registered bots and the house bots of rated games have a page; guests have none. ",
        h("a", { href: "/leaderboard" }, "The leaderboard"), " lists the rated bots.")));
}

function build(main, bot) {
  const faultTotal = Object.values(bot.fault_counts).reduce((a, b) => a + b, 0);
  const person = bot.kind === "person";
  const kind = person ? "person" : bot.kind === "house" ? "house bot" : "registered bot";
  clear(main).appendChild(h("div", { class: "bot-page" },
    h("h1", {}, bot.name, h("span", { class: "tag bot" }, kind)),
    h("p", { class: "lead" }, `A ${kind}${bot.created_at ? `, ${person ? "joined" : "registered"} ${when(bot.created_at)}` : ""}. `,
      `${plural(bot.games.length, "game")} shown (the newest first), ${plural(faultTotal, "fault")} in all.`),
    bot.suspended ? h("p", { class: "error", role: "status" }, `Suspended until ${when(bot.suspended_until)}: ${bot.suspension_reason || "too many games taken over"}.`) : null,
    bot.kind === "bot" ? validationNote(bot) : null,
    bot.hosted ? hostedNote(bot.hosted) : null,
    faultCounts(bot),
    ratingsSection(bot),
    winShareSection(bot),
    gamesSection(bot),
    reviewSection(bot),
    faultsSection(bot, faultTotal),
    person ? null : h("section", { class: "panel", "aria-labelledby": "bp-debug-h" }, h("h2", { id: "bp-debug-h" }, "Why did it do that?"),
      h("p", {}, "Open a game's replay, choose your seat and a decision: the page shows that seat's view and request as your bot got them, and the command that asks your bot the same decision again on your machine (",
        h("code", {}, "cardtable replay RECORD --seat N --at K --ask mybot.py:MyBot"), "). ",
        h("a", { href: "/docs-pages/writing-a-bot" }, "Debugging a decision"), " in the bot guide says more."))));
}

function ratingsSection(bot) {
  const box = h("section", { class: "panel", "aria-labelledby": "bp-ratings-h" }, h("h2", { id: "bp-ratings-h" }, "Ratings"));
  if (!bot.ratings.length) {
    box.appendChild(h("p", { class: "muted" }, bot.kind === "person"
      ? "No rated game yet: a rating for a game and rule set comes with the first rated game of it."
      : "No ranked game yet: a bot gets a rating for a game and rule set with its first ranked game of it."));
    return box;
  }
  const ratings = [...bot.ratings].sort((a, b) => b.games - a.games);
  box.append(h("p", { class: "small muted" }, "The rating is a cautious estimate of strength (μ − 3σ), one per game and rule set."),
    h("div", { class: "table-wrap" }, h("table", { class: "bot-ratings" },
      h("caption", { class: "sr-only" }, `Ratings of ${bot.name}`),
      h("thead", {}, h("tr", {}, ["Game", "Rating", "μ", "σ", "Games", "Wins", "Last played"].map((t, i) =>
        h("th", { scope: "col", class: [2, 3, 6].includes(i) ? "opt" : null }, t)))),
      h("tbody", {}, ratings.map((r) => h("tr", { "data-board": `${r.game}/${r.rules}` },
        h("th", { scope: "row" }, h("a", { href: `/leaderboard?game=${encodeURIComponent(r.game)}&rules=${encodeURIComponent(r.rules)}` }, gameTitle({ game: r.game, rules: r.rules }))),
        h("td", { class: "rating" }, r.rating.toFixed(2)), h("td", { class: "opt" }, r.mu.toFixed(2)), h("td", { class: "opt" }, r.sigma.toFixed(2)),
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
  const box = h("section", { class: "panel win-share", "aria-labelledby": "bp-share-h" }, h("h2", { id: "bp-share-h" }, "Win share by rule set"));
  if (!shares.length) {
    box.appendChild(h("p", { class: "muted" }, "No finished game yet."));
    return box;
  }
  box.appendChild(h("ul", { class: "share-list" }, shares.map((w) => {
    const pct = Math.round(w.share * 100);
    return h("li", { "data-board": `${w.game}/${w.rules_label}` },
      h("span", { class: "share-name" }, gameTitle({ game: w.game, rules_label: w.rules_label })),
      h("span", { class: "share-bar", role: "img", "aria-label": `${pct} percent won` }, h("span", { style: { width: `${pct}%` } })),
      h("span", { class: "share-num" }, `${pct}% · ${w.wins} of ${plural(w.games, "game")} won`));
  })));
  return box;
}

function faultsSection(bot, total) {
  const box = h("section", { class: "panel bot-faults", "aria-labelledby": "bp-faults-h" }, h("h2", { id: "bp-faults-h" }, "Faults"));
  if (!total) {
    box.appendChild(h("p", {}, "No fault: every decision was answered in time with a legal action."));
    return box;
  }
  const codes = faultCodes(bot);
  box.append(
    h("p", { class: "small muted" }, "A fault is a decision the bot did not answer properly; the fallback bot answered it and the game went on (",
      h("a", { href: "/docs-pages/protocol" }, "the fault policy"), ")."));
  const shown = bot.faults.length;
  if (shown < total) box.appendChild(h("p", { class: "small muted" }, `The newest ${shown} of ${total} are listed.`));
  for (const code of codes) {
    const list = bot.faults.filter((f) => f.code === code);
    if (!list.length) continue;
    box.appendChild(h("section", { class: "fault-kind", "data-code": code, id: `fault-${code}`, tabindex: "-1" },
      h("h3", {}, `${faultTitle(code)} (${bot.fault_counts[code]})`),
      FAULT_WORDS[code] ? h("p", { class: "small muted" }, FAULT_WORDS[code][1]) : null,
      h("ol", { class: "fault-list" }, list.map((f) => h("li", { class: "fault", "data-game": f.game_id },
        h("div", { class: "fault-head" },
          h("span", {}, `${when(f.at)} · seat ${f.seat} · `, h("code", {}, f.request_kind), " request"),
          h("a", { href: decisionHref(f), class: "small" }, "See the decision")),
        faultDetail(f))))));
  }
  return box;
}

const faultCodes = (bot) => Object.keys(bot.fault_counts).sort((a, b) => bot.fault_counts[b] - bot.fault_counts[a]);

/** The faults counted by kind, at the top of the page; each links to its kind's list below. */
function faultCounts(bot) {
  const codes = faultCodes(bot);
  if (!codes.length) return h("p", { class: "fault-counts none" }, "No fault.");
  const listed = new Set(bot.faults.map((f) => f.code));
  return h("ul", { class: "fault-counts", "aria-label": "Faults by kind" }, codes.map((c) => {
    const words = [h("strong", {}, String(bot.fault_counts[c])), ` ${faultTitle(c).toLowerCase()}`];
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
  const box = h("section", { class: "panel", "aria-labelledby": "bp-games-h" }, h("h2", { id: "bp-games-h" }, "Games"));
  if (!bot.games.length) {
    box.appendChild(h("p", { class: "muted" }, "No game yet."));
    return box;
  }
  box.append(h("p", { class: "small muted" }, "Places count from 1 (1st is the winner). Seats count from 0, as in the protocol."),
    h("div", { class: "table-wrap" }, h("table", { class: "games bot-games" },
      h("caption", { class: "sr-only" }, `Games of ${bot.name}, newest first`),
      h("thead", {}, h("tr", {}, ["Game", "Lobby", "Players", "Place", "Score", "Faults", "Ended", "Replay"].map((t) => h("th", { scope: "col" }, t)))),
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
    h("br"), `counted as ${ordinal(g.rating_place)} of ${seats}: its own faults place it below every player without one`);
}

/** Whether a registered bot played its unrated validation game (server/validation.py). */
function validationNote(bot) {
  const games = bot.validated || [];
  return h("p", { class: "small muted validation", "data-validated": games.join(",") },
    games.length
      ? `Validated for ranked play: ${games.join(", ")} (an unrated validation game finished without being taken over, or ranked games played).`
      : "Not validated yet: its first ranked join plays an unrated validation game against house bots; it is queued once it finishes one without being taken over.");
}

/** A hosted bot (docs/hosted-bots.md): the version that plays and its validation game. */
function hostedNote(hosted) {
  const game = hosted.validation_game;
  const state = {
    valid: "passed the hosted version's validation game",
    invalid: "failed the hosted version's validation game: it does not play until its author uploads a fixed version",
    new: "waiting for the hosted version's validation game",
  }[hosted.status] || hosted.status;
  return h("p", { class: "small muted hosted", "data-hosted-status": hosted.status },
    `Hosted on this server: version ${hosted.version} (${hosted.language}, sha256 ${hosted.sha256}), ${state}`,
    game ? h("span", {}, " (", h("a", { href: `/replay/${encodeURIComponent(game)}` }, "its game"), ")") : null,
    ". It runs in the server's sandbox with the same limits as every hosted bot.");
}

function gameRow(bot, g) {
  const names = g.names || [];
  const pages = g.pages || [];
  const ended = g.status !== "running";
  let place = "";
  if (g.status === "running") place = "playing";
  else if (g.place) place = `${ordinal(g.place)} of ${g.seats || names.length}`;
  else place = g.status === "aborted" ? "stopped" : "";
  const id = encodeURIComponent(g.game_id);
  const link = ended
    ? h("span", { class: "game-links" },
      h("a", { href: `/replay/${id}`, class: "button", "aria-label": `Replay the game of ${when(g.started_at)}` }, "Replay"),
      // the replay with this bot's seat open at its first decision (seatview.js)
      h("a", { href: `/replay/${id}?at=0&seat=${g.seat}`, class: "small decisions-link" }, "Its decisions"))
    : h("a", { href: `/watch/${id}`, class: "button" }, "Watch");
  return h("tr", { "data-game": g.game_id },
    h("td", { "data-label": "Game" }, gameTitle(g),
      // the version its client sent in hello (cardtable bot: the bot file's hash by default)
      g.bot_version ? h("span", { class: "tag version", title: "the bot's version in this game" }, g.bot_version) : null),
    h("td", { "data-label": "Lobby" }, g.lobby, g.rated ? h("span", { class: "tag" }, "rated") : null),
    h("td", { "data-label": "Players" }, names.map((n, s) => [s ? ", " : "", nameLink(n, pages[s], s === g.seat)])),
    h("td", { "data-label": "Place", class: "place" }, place, countedPlace(g)),
    h("td", { "data-label": "Score" }, g.score === null || g.score === undefined ? "" : String(g.score)),
    h("td", { "data-label": "Faults", class: "faults" }, String(g.faults), g.taken_over ? h("span", { class: "tag away" }, "taken over") : null),
    h("td", { "data-label": "Ended" }, when(g.ended_at)),
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
  const button = h("button", { type: "button", "data-control": "analyse-latest" }, "Analyse its latest games");
  const box = h("section", { class: "panel bp-review", "aria-labelledby": "bp-review-h", "data-state": "loading" },
    h("h2", { id: "bp-review-h" }, "The expert's review"),
    h("p", { class: "small muted" }, "The expert reviews every decision of a seat from that seat's view only and marks the clear mistakes (",
      h("a", { href: "/docs-pages/analysis" }, "how it works"), "). Here every analysed game of ", bot.name,
      " is summed up, as ", h("code", {}, `cardtable analyse A.json B.json --player ${bot.name}`), " does on the command line."),
    body, h("div", { class: "row" }, button), status);
  let timer = null;
  let known = new Set(); // games analysed or under way

  const candidates = () => bot.games.filter((g) => g.status === "finished" && ANALYSED_GAMES.has(g.game) && !known.has(g.game_id));

  function draw(data) {
    known = new Set([...data.by_game.flatMap((g) => g.games.map((x) => x.game_id)), ...data.pending.map((p) => p.game_id)]);
    clear(body);
    if (!data.by_game.length) body.appendChild(h("p", { class: "muted" }, "No analysed game yet."));
    for (const g of data.by_game) body.appendChild(gameReview(g));
    const waiting = data.pending.length;
    box.dataset.state = waiting ? "running" : data.by_game.length ? "done" : "empty";
    if (!waiting && status.dataset.jobs) { status.textContent = ""; delete status.dataset.jobs; }
    if (waiting) {
      status.dataset.jobs = "1";
      const done = data.pending.reduce((a, p) => a + p.done, 0);
      const total = data.pending.reduce((a, p) => a + p.total, 0);
      status.textContent = `Analysing ${plural(waiting, "game")}… ${total ? `${done} of ${total} decisions` : "waiting for the analysis worker"}`;
    }
    const left = candidates().length;
    button.disabled = !left || waiting > 0;
    button.textContent = left ? `Analyse its latest games (${Math.min(left, LATEST)})` : "Every finished game is analysed";
    if (waiting) timer = setTimeout(load, REVIEW_POLL_MS);
  }

  function load() {
    clearTimeout(timer);
    if (!box.isConnected && box.dataset.state !== "loading") return; // the page moved on
    getJSON(base).then(draw).catch((err) => { status.textContent = `Could not read the analyses: ${err.message}`; });
  }

  button.addEventListener("click", async () => {
    button.disabled = true;
    let asked = 0;
    status.textContent = "Asking the server…";
    for (const g of candidates().slice(0, LATEST)) {
      const reply = await fetch(`/api/games/${encodeURIComponent(g.game_id)}/analysis?seat=${g.seat}`, { method: "POST", headers: { Accept: "application/json" } });
      if (reply.status === 429) {
        status.textContent = `The server's analysis queue is full: ${plural(asked, "game")} asked for; try the others later.`;
        break;
      }
      if (reply.ok) asked += 1;
    }
    if (asked && status.textContent === "Asking the server…") status.textContent = `${plural(asked, "game")} asked for.`;
    load();
  });
  load();
  return box;
}

function gameReview(g) {
  const s = g.summary;
  const pct = (100 * s.rate).toFixed(1);
  return h("section", { class: "bp-review-game", "data-game": g.game, "aria-label": `${gameName(g.game)}: the expert's review` },
    h("h3", {}, `${gameName(g.game)}: ${plural(g.games.length, "game")} analysed`),
    h("p", { class: "bp-review-total" }, h("strong", {}, plural(s.mistakes, "mistake")), ` in ${s.searched} searched decisions (${pct}%; ${s.decisions} decisions in all), `,
      `${s.loss.toFixed(1)} ${g.unit} lost to them.`),
    Object.keys(s.by_kind).length
      ? h("ul", { class: "bp-kinds", "aria-label": "Mistakes by kind" }, Object.entries(s.by_kind).map(([kind, n]) =>
        h("li", { "data-kind": kind }, h("strong", {}, `${n} ×`), ` ${kind}`)))
      : h("p", { class: "muted" }, "No clear mistake."),
    h("p", { class: "small muted" }, `${g.threshold[0].toUpperCase()}${g.threshold.slice(1)}.`),
    h("div", { class: "table-wrap" }, h("table", { class: "games bp-review-games" },
      h("caption", { class: "sr-only" }, `Analysed ${gameName(g.game)} games, newest first`),
      h("thead", {}, h("tr", {}, ["Ended", "Rule set", "Searched", "Mistakes", ""].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, g.games.map((x) => h("tr", { "data-game": x.game_id },
        h("td", { "data-label": "Ended" }, when(x.ended_at)),
        h("td", { "data-label": "Rule set" }, x.rules_label),
        h("td", { "data-label": "Searched" }, String(x.summary.searched)),
        h("td", { "data-label": "Mistakes", class: "mistakes" }, String(x.summary.mistakes)),
        h("td", {}, h("a", { href: `/replay/${encodeURIComponent(x.game_id)}?seat=${x.seat}`, "aria-label": `See the analysis of the game of ${when(x.ended_at)}` }, "See the analysis"))))))));
}
