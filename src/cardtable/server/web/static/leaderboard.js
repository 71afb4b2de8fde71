// The leaderboard per game and rule set, with each bot's rating history drawn as inline SVG.

import { h, svg, clear, getJSON } from "./dom.js";
import { gameName, gameTitle } from "./names.js";
import { faultCell } from "./botpage.js";
import { t, num, when } from "./i18n.js";

const COLORS = ["#1f6f4a", "#b3261e", "#1d4ed8", "#a16207", "#7c3aed", "#0f766e", "#be185d", "#4b5563"];
const CHART_BOTS = 8;
// numbers and moments as the person writes them (Intl, the page's language)
const TWO = { minimumFractionDigits: 2, maximumFractionDigits: 2 };
const ONE = { minimumFractionDigits: 1, maximumFractionDigits: 1 };
const WHOLE = { maximumFractionDigits: 0 };
const DAY = {}; // the date alone, in figures

export function renderLeaderboard(main) {
  const game = h("select", { id: "lb-game" });
  const rules = h("select", { id: "lb-rules" });
  // people and bots share one board; the filter keeps each entry's rank in the whole board
  const kind = h("select", { id: "lb-kind" }, ["all", "people", "bots"].map((v) =>
    h("option", { value: v, selected: v === (new URLSearchParams(location.search).get("kind") || "all") }, t(`web.leaderboard.kind.${v}`))));
  const board = h("div", { "aria-live": "polite" });
  const chart = h("div", { class: "chart-box" });
  clear(main).append(h("h1", {}, t("web.title.leaderboard")),
    h("p", { class: "lead" }, t("web.leaderboard.lead")),
    h("form", { class: "row", onsubmit: (ev) => ev.preventDefault() },
      h("div", { class: "field" }, h("label", { for: "lb-game" }, t("web.lobby.game")), game),
      h("div", { class: "field" }, h("label", { for: "lb-rules" }, t("web.lobby.rule_set")), rules),
      h("div", { class: "field" }, h("label", { for: "lb-kind" }, t("web.leaderboard.show")), kind)),
    board, chart);
  let lobbies = null;
  const boardsOf = {}; // game -> its boards (GET /api/leaderboard "boards")
  // each choice starts a load; an answer that arrives after a later choice's is dropped, so the
  // board and the chart always show the last choice whatever order the answers come in
  let latest = 0;
  const load = async () => {
    const ticket = ++latest;
    clear(board).appendChild(h("p", { class: "muted" }, t("web.account.loading")));
    clear(chart);
    const data = await getJSON(`/api/leaderboard?game=${encodeURIComponent(game.value)}&rules=${encodeURIComponent(rules.value)}&kind=${kind.value}`);
    if (ticket !== latest || !board.isConnected) return;
    clear(board);
    // every board of the game that holds ratings (a rated rule set that is no ranked preset too)
    boardsOf[data.game] = data.boards;
    if ([...rules.options].map((o) => o.value).join("\n") !== data.boards.join("\n")) fillRules(data.rules);
    // the address names the board shown, so it can be shared
    history.replaceState(history.state, "", `/leaderboard?game=${encodeURIComponent(data.game)}&rules=${encodeURIComponent(data.rules)}${kind.value === "all" ? "" : `&kind=${kind.value}`}`);
    if (!data.entries.length) {
      board.appendChild(h("p", {}, t("web.leaderboard.none", { title: gameTitle(data) })));
      return;
    }
    board.appendChild(h("div", { class: "table-wrap" }, h("table", { class: "leaderboard" },
      h("caption", {}, gameTitle(data)),
      h("thead", {}, h("tr", {}, ["#", t("web.score.player"), t("web.leaderboard.rating"), "μ", "σ", t("web.leaderboard.games"), t("web.leaderboard.wins"), t("web.leaderboard.faults"), t("web.leaderboard.last_played")].map((label, i) =>
        h("th", { scope: "col", class: [3, 4, 7, 8].includes(i) ? "opt" : null }, label)))),
      h("tbody", {}, data.entries.map((e) => h("tr", {},
        h("td", {}, String(e.rank)), h("th", { scope: "row" }, h("a", { href: `/${e.kind === "person" ? "players" : "bots"}/${encodeURIComponent(e.name)}` }, e.name), e.kind === "house" ? h("span", { class: "tag" }, t("web.leaderboard.house")) : e.kind === "person" ? h("span", { class: "tag person" }, t("web.leaderboard.person")) : null),
        h("td", {}, num(e.rating, TWO)), h("td", { class: "opt" }, num(e.mu, TWO)), h("td", { class: "opt" }, num(e.sigma, TWO)),
        h("td", {}, String(e.games)), h("td", {}, String(e.wins)), faultCell(e),
        h("td", { class: "opt" }, e.last_played ? when(e.last_played) : "")))))));
    const top = data.entries.slice(0, CHART_BOTS);
    const details = await Promise.all(top.map((e) => getJSON(`/api/players/${encodeURIComponent(e.name)}`).catch(() => null)));
    if (ticket !== latest) return;
    const series = top.map((e, i) => ({
      name: e.name,
      color: COLORS[i % COLORS.length],
      points: ((details[i] && details[i].rating_history) || [])
        .filter((p) => p.game === data.game && p.rules === data.rules)
        .map((p) => ({ t: Date.parse(p.at), r: p.rating })),
    })).filter((s) => s.points.length);
    clear(chart).appendChild(ratingChart(series, gameTitle(data)));
  };
  const fillRules = (chosen = null) => {
    const info = lobbies.games[game.value];
    const known = boardsOf[game.value] || info.ranked_rules || info.presets;
    // a board the address names that is not known yet (a rated rule set of no preset) is offered
    const offered = chosen && !known.includes(chosen) ? [...known, chosen] : known;
    const pick = offered.includes(chosen) ? chosen : info.default_rules;
    clear(rules).append(...offered.map((p) => h("option", { value: p, selected: p === pick }, p)));
  };
  game.addEventListener("change", () => { fillRules(); load(); });
  rules.addEventListener("change", load);
  kind.addEventListener("change", load);
  getJSON("/api/lobbies").then((data) => {
    lobbies = data;
    clear(game).append(...Object.keys(data.games).map((g) => h("option", { value: g }, gameName(g))));
    return openingBoard(data);
  }).then(([g, r]) => {
    game.value = g;
    fillRules(r);
    return load();
  }).catch((err) => board.appendChild(h("p", { class: "error" }, err.message)));
}

/**
 * The board the page opens on: the one the address names (?game=&rules=), else the first board
 * with ranked games (the default game's default rule set first), else the default one.
 */
async function openingBoard(lobbies) {
  const q = new URLSearchParams(location.search);
  const games = Object.keys(lobbies.games);
  const asked = q.get("game");
  if (asked && lobbies.games[asked]) return [asked, q.get("rules")];
  const boards = [];
  const offers = await Promise.all(games.map((g) => getJSON(`/api/leaderboard?game=${encodeURIComponent(g)}&limit=1`)
    .then((d) => d.boards).catch(() => null)));
  games.forEach((g, i) => {
    const info = lobbies.games[g];
    const offered = offers[i] || info.ranked_rules || info.presets;
    for (const r of [info.default_rules, ...offered.filter((p) => p !== info.default_rules)]) boards.push([g, r]);
  });
  const first = games.includes("kuhhandel") ? "kuhhandel" : games[0];
  boards.sort((a, b) => (a[0] === first ? 0 : 1) - (b[0] === first ? 0 : 1));
  const filled = await Promise.all(boards.map(([g, r]) =>
    getJSON(`/api/leaderboard?game=${encodeURIComponent(g)}&rules=${encodeURIComponent(r)}&limit=1`)
      .then((d) => d.entries.length > 0).catch(() => false)));
  const found = boards.find((_, i) => filled[i]);
  return found || [first, lobbies.games[first].default_rules];
}

/** A line chart of rating over time, one line per bot; drawn by hand as SVG. */
export function ratingChart(series, title) {
  const W = 720, H = 320, L = 52, R = 16, T = 16, B = 40;
  if (!series.length) return h("p", { class: "muted" }, t("web.leaderboard.no_history"));
  const all = series.flatMap((s) => s.points);
  let t0 = Math.min(...all.map((p) => p.t)), t1 = Math.max(...all.map((p) => p.t));
  // one moment only (one rated game): a day around it, its date said once, in the middle
  const oneMoment = t1 === t0;
  if (oneMoment) { t0 -= 43200000; t1 += 43200000; }
  let r0 = Math.min(0, ...all.map((p) => p.r)), r1 = Math.max(...all.map((p) => p.r));
  if (r1 - r0 < 1) r1 = r0 + 1;
  const pad = (r1 - r0) * 0.08;
  r0 -= pad; r1 += pad;
  const x = (t) => L + ((t - t0) / (t1 - t0)) * (W - L - R);
  const y = (r) => T + (1 - (r - r0) / (r1 - r0)) * (H - T - B);
  const ticks = niceTicks(r0, r1, 5);
  const desc = series.map((s) => t("web.leaderboard.series", { name: s.name, from: num(s.points[0].r, ONE), to: num(s.points[s.points.length - 1].r, ONE), count: s.points.length })).join("; ");
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": `${t("web.leaderboard.history", { title })}. ${desc}` },
    svg("title", {}, t("web.leaderboard.history", { title })),
    ticks.map((v) => svg("g", {},
      svg("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid" }),
      svg("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end", class: "axis" }, num(v, Math.abs(v) < 10 ? ONE : WHOLE)))),
    svg("line", { x1: L, x2: L, y1: T, y2: H - B, class: "axis-line" }),
    svg("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, class: "axis-line" }),
    oneMoment ? svg("text", { x: (L + W - R) / 2, y: H - B + 18, "text-anchor": "middle", class: "axis" }, when((t0 + t1) / 2, DAY))
      : [svg("text", { x: L, y: H - B + 18, class: "axis" }, when(t0)),
        svg("text", { x: W - R, y: H - B + 18, "text-anchor": "end", class: "axis" }, when(t1))],
    svg("text", { x: 12, y: T + (H - T - B) / 2, class: "axis", transform: `rotate(-90 12 ${T + (H - T - B) / 2})`, "text-anchor": "middle" }, t("web.leaderboard.axis")),
    series.map((s) => svg("g", { "data-bot": s.name },
      svg("polyline", { points: s.points.map((p) => `${x(p.t).toFixed(1)},${y(p.r).toFixed(1)}`).join(" "), fill: "none", stroke: s.color, "stroke-width": 2.5, "stroke-linejoin": "round" }),
      s.points.map((p) => svg("circle", { cx: x(p.t).toFixed(1), cy: y(p.r).toFixed(1), r: 3, fill: s.color },
        svg("title", {}, t("web.leaderboard.point", { name: s.name, rating: num(p.r, TWO), when: when(p.t) })))))));
  const legend = h("ul", { class: "legend", "aria-label": t("web.leaderboard.legend") }, series.map((s) =>
    h("li", {}, h("span", { class: "swatch", style: { background: s.color }, "aria-hidden": "true" }), `${s.name} (${num(s.points[s.points.length - 1].r, TWO)})`)));
  const caption = oneMoment ? t("web.leaderboard.caption_first", { title }) : t("web.leaderboard.caption", { title });
  return h("figure", { class: "chart-figure" }, chart, legend, h("figcaption", {}, caption));
}

function niceTicks(lo, hi, n) {
  const span = hi - lo;
  const step0 = span / n;
  const mag = 10 ** Math.floor(Math.log10(step0));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => span / s <= n) || 10 * mag;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) out.push(Math.round(v / step) * step);
  return out;
}
