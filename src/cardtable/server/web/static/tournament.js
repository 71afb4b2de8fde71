// The standings page of a tournament: /tournaments/ID. Reads /api/tournaments/ID, its standings
// and games, and refreshes every few seconds until the standings are frozen.

import { loadLanguage, languages, lang, setLanguage, t, num as number, when } from "./i18n.js";
import { httpRefusal } from "./errors.js";

const main = document.getElementById("main");
const tid = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

// numbers as the person writes them (Intl, the page's language): a share as a percentage with
// one decimal, a value with one decimal (with its sign when asked), a mean place with two
const ONE = { minimumFractionDigits: 1, maximumFractionDigits: 1 };
const PCT = { style: "percent", ...ONE };
const SIGNED = { signDisplay: "exceptZero", ...ONE };
const TWO = { minimumFractionDigits: 2, maximumFractionDigits: 2 };
const none = (x) => x === null || x === undefined;
const pct = (x) => (none(x) ? "–" : number(x, PCT));
const num = (x, signed = false) => (none(x) ? "–" : number(x, signed ? SIGNED : ONE));
const interval = (lo, hi, fmt) => (lo === null || lo === undefined ? "" : `[${fmt(lo)}, ${fmt(hi)}]`);

async function getJSON(path) {
  const r = await fetch(path, { cache: "no-store" });
  if (!r.ok) throw new Error(await httpRefusal(r)); // the code's words (errors.js), else the detail
  return r.json();
}

function standingsTable(table) {
  const head = el("tr", {},
    el("th", { scope: "col" }, "#"), el("th", { scope: "col" }, t("web.tournament.entrant")),
    el("th", { scope: "col" }, t("web.leaderboard.games")), el("th", { scope: "col" }, t("web.tournament.win_share")),
    el("th", { scope: "col" }, t("web.tournament.mean_score")), el("th", { scope: "col" }, t("web.tournament.vs_field")),
    el("th", { scope: "col" }, t("web.tournament.mean_place")), el("th", { scope: "col" }, t("web.leaderboard.faults")),
    el("th", { scope: "col" }, t("web.tournament.bans")));
  const body = el("tbody");
  for (const r of [...table.rows, ...(table.disqualified || [])]) {
    // an entrant is a registered bot: its name leads to its page (the house stand-in has none)
    const name = el("td", {}, r.stand_in ? r.name : el("a", { href: `/bots/${encodeURIComponent(r.name)}` }, r.name));
    if (r.suspended) name.append(el("span", { class: "t-flag", title: r.suspended_reason || "" }, t("web.tournament.suspended")));
    if (r.stand_in) name.append(el("span", { class: "t-flag ban" }, t("web.leaderboard.house")));
    // the versions its client sent (hello), oldest first: which code played
    if (r.versions && r.versions.length) name.append(el("span", { class: "t-version", title: t("web.tournament.versions") }, r.versions.join(", ")));
    if (r.sanction) name.append(el("span", { class: "t-flag", title: r.sanction_reason || "" }, r.sanction));
    body.append(el("tr", {},
      el("td", {}, r.rank ?? "–"), name, el("td", {}, r.games),
      el("td", {}, pct(r.win_share), " ", el("span", { class: "ci" }, interval(r.win_share_low, r.win_share_high, pct))),
      el("td", {}, num(r.score.mean), " ", el("span", { class: "ci" }, interval(r.score.low, r.score.high, num))),
      el("td", {}, num(r.vs_field.mean, true), " ", el("span", { class: "ci" }, interval(r.vs_field.low, r.vs_field.high, (x) => num(x, true)))),
      el("td", {}, r.mean_place === null ? "–" : number(r.mean_place, TWO)),
      el("td", {}, r.faults), el("td", {}, r.bans)));
  }
  return el("div", { class: "t-scroll", tabindex: "0", role: "region", "aria-label": t("web.tournament.standings") },
    el("table", { class: "t-table" }, el("caption", { class: "sr-only" }, t("web.tournament.standings")), el("thead", {}, head), body));
}

// The field and who of it is connected now (the organiser's view): presence is the API's
// (waiting for a game, playing, connected elsewhere, offline) and the organiser's sanction.
function entrantsTable(info) {
  const body = el("tbody");
  for (const e of info.entrants) {
    let standing = t("web.tournament.good_standing");
    if (e.sanction_active === "suspended") standing = t("web.tournament.suspended_until", { until: when(e.sanction_until) });
    else if (e.sanction_active) standing = t(`web.tournament.sanction.${e.sanction_active}`);
    else if (e.suspended) standing = t("web.tournament.suspended_faults");
    body.append(el("tr", { "data-entrant": e.name, "data-presence": e.presence },
      el("td", {}, e.position + 1),
      el("td", {}, el("a", { href: `/bots/${encodeURIComponent(e.name)}` }, e.name)),
      el("td", {}, el("span", { class: `t-presence ${e.presence}` }, t(`web.tournament.presence.${e.presence}`))),
      el("td", { title: e.sanction_reason || e.suspended_reason || "" }, standing)));
  }
  const head = el("tr", {},
    el("th", { scope: "col" }, "#"), el("th", { scope: "col" }, t("web.tournament.entrant")),
    el("th", { scope: "col" }, t("web.tournament.presence")), el("th", { scope: "col" }, t("web.tournament.standing")));
  return el("div", { class: "t-scroll", tabindex: "0", role: "region", "aria-label": t("web.tournament.entrants") },
    el("table", { class: "t-table t-entrants" }, el("thead", {}, head), body));
}

function gamesTable(games) {
  const body = el("tbody");
  for (const g of games) {
    const link = g.state === "done" && g.game_id
      ? el("a", { href: `/replay/${g.game_id}` }, t("web.tournament.replay_link"))
      : t(`web.tournament.state.${g.state}`);
    const places = g.places ? g.places.map((p) => p + 1).join(", ") : "";
    body.append(el("tr", {},
      el("td", {}, g.slot + 1), el("td", {}, `${g.deal + 1}/${g.rotation + 1}`),
      el("td", {}, g.attempt ? `${g.attempt + 1}` : "1"),
      el("td", {}, g.seats.join(", ")), el("td", {}, places), el("td", {}, link)));
  }
  const head = el("tr", {},
    el("th", { scope: "col" }, t("web.lobby.game")), el("th", { scope: "col" }, t("web.tournament.deal_rotation")),
    el("th", { scope: "col" }, t("web.tournament.try")), el("th", { scope: "col" }, t("web.lobby.seats")),
    el("th", { scope: "col" }, t("web.tournament.places")), el("th", { scope: "col" }, t("web.title.replay")));
  return el("div", { class: "t-scroll", tabindex: "0", role: "region", "aria-label": t("web.leaderboard.games") },
    el("table", { class: "t-table t-games" }, el("thead", {}, head), body));
}

async function render() {
  let info, table, games;
  try {
    [info, table, games] = await Promise.all([
      getJSON(`/api/tournaments/${encodeURIComponent(tid)}`),
      getJSON(`/api/tournaments/${encodeURIComponent(tid)}/standings`),
      getJSON(`/api/tournaments/${encodeURIComponent(tid)}/games`),
    ]);
  } catch (err) {
    main.replaceChildren(el("h1", {}, t("web.tournament.title")), el("p", { role: "alert" }, t("web.tournament.cannot_load", { id: tid, error: err.message })));
    return false;
  }
  document.title = `${info.name} · cardtable`;
  const rules = info.rules_name || t("web.names.custom_rules");
  const planned = table.games_planned;
  const facts = el("p", { class: "t-facts" },
    el("span", { class: `t-status ${info.status}`, "data-status": info.status }, t(`web.tournament.status.${info.status}`)),
    el("span", {}, el("b", {}, info.game), " ", t("web.tournament.rules_seats", { rules, seats: info.seats })),
    el("span", {}, t("web.tournament.format", { format: info.config.format, deals: info.config.deals })),
    el("span", {}, t("web.tournament.clock", { deadline: info.config.deadline_ms, bank: info.config.time_bank_ms })),
    el("span", {}, t("web.tournament.bans_rule", { ban: info.config.ban_after_faults, suspend: info.config.suspend_after_faults })));
  const progress = el("p", {},
    el("label", { for: "t-progress" }, t("web.tournament.played", { done: table.games_done, planned })), " ",
    el("progress", { id: "t-progress", class: "t-progress", max: String(Math.max(planned, 1)), value: String(table.games_done) }),
    table.games_void ? ` ${t("web.tournament.voided", { count: table.games_void })}` : "");
  const actions = el("p", { class: "t-actions" },
    el("a", { href: `/api/tournaments/${encodeURIComponent(tid)}/archive`, download: `tournament-${tid}.zip` },
      table.frozen ? t("web.tournament.archive_final") : t("web.tournament.archive_so_far")),
    el("a", { href: `/api/tournaments/${encodeURIComponent(tid)}/standings` }, t("web.tournament.standings_json")));
  main.replaceChildren(
    el("h1", {}, info.name), facts, progress, actions,
    el("h2", {}, table.frozen ? t("web.tournament.final_standings") : t("web.tournament.live_standings")), standingsTable(table),
    el("h2", {}, t("web.tournament.entrants")), entrantsTable(info),
    el("h2", {}, t("web.leaderboard.games")), gamesTable(games.games));
  main.dataset.frozen = table.frozen ? "yes" : "no";
  return table.frozen;
}

async function loop() {
  const frozen = await render();
  if (!frozen && !["cancelled"].includes(main.querySelector(".t-status")?.dataset.status)) {
    setTimeout(loop, 3000);
  }
}

// the language switcher in the header, as on the other pages
async function start() {
  await loadLanguage();
  const select = document.getElementById("lang-switch");
  if (select) {
    for (const [code, name] of languages) {
      const option = el("option", { value: code, lang: code }, name);
      option.selected = code === lang;
      select.append(option);
    }
    select.addEventListener("change", () => setLanguage(select.value));
  }
  loop();
}

start();
