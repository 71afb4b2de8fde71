// The standings page of a tournament: /tournaments/ID. Reads /api/tournaments/ID, its standings
// and games, and refreshes every few seconds until the standings are frozen.

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

const pct = (x) => (x === null || x === undefined ? "–" : `${(100 * x).toFixed(1)}%`);
const num = (x, signed = false) =>
  x === null || x === undefined ? "–" : `${signed && x > 0 ? "+" : ""}${x.toFixed(1)}`;
const interval = (lo, hi, fmt) => (lo === null || lo === undefined ? "" : `[${fmt(lo)}, ${fmt(hi)}]`);

async function getJSON(path) {
  const r = await fetch(path, { cache: "no-store" });
  if (!r.ok) throw new Error(`${r.status} ${(await r.json().catch(() => ({}))).detail || ""}`);
  return r.json();
}

function standingsTable(table) {
  const head = el("tr", {},
    el("th", { scope: "col" }, "#"), el("th", { scope: "col" }, "Entrant"),
    el("th", { scope: "col" }, "Games"), el("th", { scope: "col" }, "Win share (95%)"),
    el("th", { scope: "col" }, "Mean score (95%)"), el("th", { scope: "col" }, "vs field (95%)"),
    el("th", { scope: "col" }, "Mean place"), el("th", { scope: "col" }, "Faults"),
    el("th", { scope: "col" }, "Bans"));
  const body = el("tbody");
  for (const r of [...table.rows, ...(table.disqualified || [])]) {
    // an entrant is a registered bot: its name leads to its page (the house stand-in has none)
    const name = el("td", {}, r.stand_in ? r.name : el("a", { href: `/bots/${encodeURIComponent(r.name)}` }, r.name));
    if (r.suspended) name.append(el("span", { class: "t-flag", title: r.suspended_reason || "" }, "suspended"));
    if (r.stand_in) name.append(el("span", { class: "t-flag ban" }, "house"));
    // the versions its client sent (hello), oldest first: which code played
    if (r.versions && r.versions.length) name.append(el("span", { class: "t-version", title: "bot version(s)" }, r.versions.join(", ")));
    if (r.sanction) name.append(el("span", { class: "t-flag", title: r.sanction_reason || "" }, r.sanction));
    body.append(el("tr", {},
      el("td", {}, r.rank ?? "–"), name, el("td", {}, r.games),
      el("td", {}, pct(r.win_share), " ", el("span", { class: "ci" }, interval(r.win_share_low, r.win_share_high, pct))),
      el("td", {}, num(r.score.mean), " ", el("span", { class: "ci" }, interval(r.score.low, r.score.high, num))),
      el("td", {}, num(r.vs_field.mean, true), " ", el("span", { class: "ci" }, interval(r.vs_field.low, r.vs_field.high, (x) => num(x, true)))),
      el("td", {}, r.mean_place === null ? "–" : r.mean_place.toFixed(2)),
      el("td", {}, r.faults), el("td", {}, r.bans)));
  }
  return el("div", { class: "t-scroll", tabindex: "0", role: "region", "aria-label": "Standings" },
    el("table", { class: "t-table" }, el("caption", { class: "sr-only" }, "Standings"), el("thead", {}, head), body));
}

// The field and who of it is connected now (the organiser's view): presence is the API's
// (waiting for a game, playing, connected elsewhere, offline) and the organiser's sanction.
function entrantsTable(info) {
  const body = el("tbody");
  for (const e of info.entrants) {
    let standing = "in good standing";
    if (e.sanction_active === "suspended") standing = `suspended until ${new Date(e.sanction_until).toLocaleString()}`;
    else if (e.sanction_active) standing = e.sanction_active;
    else if (e.suspended) standing = "suspended for its faults";
    body.append(el("tr", { "data-entrant": e.name, "data-presence": e.presence },
      el("td", {}, e.position + 1),
      el("td", {}, el("a", { href: `/bots/${encodeURIComponent(e.name)}` }, e.name)),
      el("td", {}, el("span", { class: `t-presence ${e.presence}` }, e.presence)),
      el("td", { title: e.sanction_reason || e.suspended_reason || "" }, standing)));
  }
  const head = el("tr", {},
    el("th", { scope: "col" }, "#"), el("th", { scope: "col" }, "Entrant"),
    el("th", { scope: "col" }, "Presence"), el("th", { scope: "col" }, "Standing"));
  return el("div", { class: "t-scroll", tabindex: "0", role: "region", "aria-label": "Entrants" },
    el("table", { class: "t-table t-entrants" }, el("thead", {}, head), body));
}

function gamesTable(games) {
  const body = el("tbody");
  for (const g of games) {
    const link = g.state === "done" && g.game_id
      ? el("a", { href: `/replay/${g.game_id}` }, "replay")
      : g.state;
    const places = g.places ? g.places.map((p) => p + 1).join(", ") : "";
    body.append(el("tr", {},
      el("td", {}, g.slot + 1), el("td", {}, `${g.deal + 1}/${g.rotation + 1}`),
      el("td", {}, g.attempt ? `${g.attempt + 1}` : "1"),
      el("td", {}, g.seats.join(", ")), el("td", {}, places), el("td", {}, link)));
  }
  const head = el("tr", {},
    el("th", { scope: "col" }, "Game"), el("th", { scope: "col" }, "Deal/rotation"),
    el("th", { scope: "col" }, "Try"), el("th", { scope: "col" }, "Seats"),
    el("th", { scope: "col" }, "Places"), el("th", { scope: "col" }, "Replay"));
  return el("div", { class: "t-scroll", tabindex: "0", role: "region", "aria-label": "Games" },
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
    main.replaceChildren(el("h1", {}, "Tournament"), el("p", { role: "alert" }, `Cannot load tournament ${tid}: ${err.message}`));
    return false;
  }
  document.title = `${info.name} · cardtable`;
  const rules = info.rules_name || "custom rules";
  const planned = table.games_planned;
  const facts = el("p", { class: "t-facts" },
    el("span", { class: `t-status ${info.status}` }, info.status),
    el("span", {}, el("b", {}, info.game), ` ${rules}, ${info.seats} seats`),
    el("span", {}, `format ${info.config.format}, ${info.config.deals} deal(s)`),
    el("span", {}, `deadline ${info.config.deadline_ms} ms, bank ${info.config.time_bank_ms} ms`),
    el("span", {}, `ban after ${info.config.ban_after_faults} faults in a game, suspension after ${info.config.suspend_after_faults}`));
  const progress = el("p", {},
    el("label", { for: "t-progress" }, `Games played: ${table.games_done} of ${planned}`), " ",
    el("progress", { id: "t-progress", class: "t-progress", max: String(Math.max(planned, 1)), value: String(table.games_done) }),
    table.games_void ? ` (${table.games_void} voided and played again)` : "");
  const actions = el("p", { class: "t-actions" },
    el("a", { href: `/api/tournaments/${encodeURIComponent(tid)}/archive`, download: `tournament-${tid}.zip` },
      table.frozen ? "Download the final archive (records, standings CSV and JSON)" : "Download the archive so far"),
    el("a", { href: `/api/tournaments/${encodeURIComponent(tid)}/standings` }, "Standings as JSON"));
  main.replaceChildren(
    el("h1", {}, info.name), facts, progress, actions,
    el("h2", {}, table.frozen ? "Final standings" : "Standings (live)"), standingsTable(table),
    el("h2", {}, "Entrants"), entrantsTable(info),
    el("h2", {}, "Games"), gamesTable(games.games));
  main.dataset.frozen = table.frozen ? "yes" : "no";
  return table.frozen;
}

async function loop() {
  const frozen = await render();
  if (!frozen && !["cancelled"].includes(main.querySelector(".t-status")?.textContent)) {
    setTimeout(loop, 3000);
  }
}

loop();
