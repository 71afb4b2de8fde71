// The lobby: who you are, play now against house bots, create or join a private table, and the
// tables running on this server.

import { h, clear, getJSON, toast, plural } from "./dom.js";
import { session, Session } from "./session.js";

const KH_SEATS = { classic: [3, 5], competition: [3, 6], master: [3, 6], "master-duel": [2, 2] };

function seatRange(game, rules, lobbies) {
  if (game === "kuhhandel" && KH_SEATS[rules]) return KH_SEATS[rules];
  const info = lobbies.games[game];
  return info ? info.seat_range : [2, 6];
}

const STRENGTH = ["random", "simple", "heuristic", "strong", "expert"];
function botOrder(bots) {
  const rank = (b) => (STRENGTH.includes(b) ? STRENGTH.indexOf(b) : 2.5);
  return [...bots].sort((a, b) => rank(a) - rank(b));
}

function field(label, control, help) {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  control.id = id;
  return h("div", { class: "field" }, h("label", { for: id }, label), control, help ? h("small", { class: "muted" }, help) : null);
}

function select(options, value, attrs = {}) {
  return h("select", attrs, options.map(([v, label]) => h("option", { value: v, selected: v === value }, label)));
}

/** The rule-set chooser shared by both forms; returns controls and a reader. */
function gameChooser(lobbies, { withCustom, withQuiet }) {
  const games = Object.keys(lobbies.games);
  const game = select(games.map((g) => [g, g === "kuhhandel" ? "Kuhhandel" : g === "cunegonda" ? "Cunegonda" : g]), "kuhhandel", { name: "game" });
  const rules = h("select", { name: "rules" });
  const seats = h("input", { type: "number", name: "seats", min: 2, max: 6, value: 3, inputmode: "numeric" });
  const strength = h("select", { name: "strength" });
  const open = h("input", { type: "checkbox", name: "open" });
  const quiet = h("input", { type: "number", name: "quiet", min: 1, max: 60, step: 0.5, value: 5, inputmode: "decimal" });
  const rounds = h("input", { type: "number", name: "rounds", min: 1, max: 10, placeholder: "as the rule set says", inputmode: "numeric" });
  const custom = h("textarea", { name: "custom", rows: 3, placeholder: '{"preset": "classic", "auction_style": "open"}' });
  const khOnly = h("div", { class: "kh-only" },
    h("div", { class: "field check" }, open, h("label", { for: (open.id = `open-${Math.random().toString(36).slice(2, 7)}`) }, "Open auction: bid any time, the auctioneer knocks it down")),
    withQuiet ? field("Auction quiet period (seconds)", quiet, "An open auction closes after this long without a new bid.") : null);
  const cuOnly = h("div", { class: "cu-only" }, field("Rounds in the match", rounds, "1 to 10; the standard match is 10 rounds."));
  const refresh = () => {
    const info = lobbies.games[game.value];
    clear(rules).append(...info.presets.map((p) => h("option", { value: p, selected: p === info.default_rules }, p)));
    clear(strength).append(...botOrder(info.house_bots).map((b) => h("option", { value: b, selected: b === info.fallback_bot }, b)));
    const help = strength.parentElement && strength.parentElement.querySelector("small");
    if (help) help.textContent = `Built-in bots from the weakest: ${botOrder(info.house_bots).join(", ")}.`;
    sync();
  };
  const sync = () => {
    const [lo, hi] = seatRange(game.value, rules.value, lobbies);
    seats.min = lo;
    seats.max = hi;
    const n = Number(seats.value);
    if (!(n >= lo && n <= hi)) seats.value = game.value === "cunegonda" ? 4 : Math.min(hi, Math.max(lo, 3));
    seats.disabled = lo === hi;
    khOnly.hidden = game.value !== "kuhhandel";
    quiet.disabled = !open.checked;
    cuOnly.hidden = game.value !== "cunegonda";
  };
  game.addEventListener("change", refresh);
  open.addEventListener("change", sync);
  rules.addEventListener("change", sync);
  refresh();
  const controls = [
    field("Game", game), field("Rule set", rules), field("Seats", seats),
    field("House bot strength", strength, "Built-in bots from the weakest: " + botOrder(lobbies.games[game.value].house_bots).join(", ") + "."),
    khOnly, cuOnly,
    withCustom ? h("details", {}, h("summary", {}, "Custom rule set (JSON)"), field("Rule set as JSON (overrides the choices above)", custom)) : null,
  ];
  const read = () => {
    let ruleValue = rules.value;
    if (game.value === "kuhhandel" && open.checked) ruleValue = { preset: rules.value, auction_style: "open" };
    if (game.value === "cunegonda" && rounds.value) ruleValue = { rounds: Number(rounds.value) };
    if (withCustom && custom.value.trim()) ruleValue = JSON.parse(custom.value);
    const out = { game: game.value, rules: ruleValue, seats: Number(seats.value), strength: strength.value };
    if (withQuiet && game.value === "kuhhandel" && open.checked) out.quiet_ms = Math.round(Number(quiet.value) * 1000);
    return out;
  };
  return { controls, read };
}

export function renderLobby(main, navigate) {
  const cleanups = [];
  const you = h("section", { class: "panel", "aria-labelledby": "you-h" });
  const play = h("div", { class: "play-forms" });
  const tables = h("section", { class: "panel", "aria-labelledby": "tables-h" });
  clear(main).appendChild(h("div", { class: "lobby" },
    h("h1", {}, "Lobby"),
    h("p", { class: "lead" }, "Play Kuhhandel and Cunegonda against people and bots, watch running games, study replays."),
    you, play, tables));
  let lobbies = null;

  function drawYou() {
    clear(you);
    you.appendChild(h("h2", { id: "you-h" }, "You"));
    if (session.connected) {
      you.append(
        h("p", {}, "Playing as ", h("strong", {}, session.you.name), ` (${session.you.kind === "guest" ? "guest" : "registered bot"}).`),
        h("button", { type: "button", onclick: () => { session.disconnect(); Session.forget(); drawYou(); drawPlay(); } }, "Sign out"));
      const running = session.welcomeGames.filter((id) => !(session.games.get(id) || {}).end);
      if (running.length) {
        you.append(h("p", { class: "warn" }, "You hold a seat in a running game: ",
          running.map((id) => h("a", { href: `/table/${id}`, class: "button primary" }, "Back to your table"))));
      }
      return;
    }
    const saved = Session.saved();
    const name = h("input", { type: "text", name: "guest", maxlength: 32, required: true, autocomplete: "nickname", value: saved && saved.kind === "guest" ? saved.name : "" });
    const guestForm = h("form", { class: "row", onsubmit: (ev) => {
      ev.preventDefault();
      const token = saved && saved.kind === "guest" ? saved.token : undefined;
      connect({ kind: "guest", name: name.value.trim() || "guest", token });
    } }, field("Display name", name), h("button", { type: "submit", class: "primary" }, "Play as a guest"));
    const botName = h("input", { type: "text", name: "bot", maxlength: 32, autocomplete: "username" });
    const botToken = h("input", { type: "password", name: "token", autocomplete: "current-password" });
    const botForm = h("form", { class: "row", onsubmit: (ev) => {
      ev.preventDefault();
      connect({ kind: "bot", name: botName.value.trim(), token: botToken.value.trim() });
    } }, field("Bot name", botName), field("Token", botToken), h("button", { type: "submit" }, "Sign in"));
    you.append(h("p", {}, "Choose a display name. No account is needed; this browser remembers you so you can come back to a running game."),
      guestForm, h("details", {}, h("summary", {}, "Play with a registered bot's name and token"),
        h("p", { class: "small muted" }, "You then play under the bot's name, with the bots' short decision clock."), botForm));
  }

  async function connect(identity) {
    try {
      await session.connect(identity);
      drawYou();
      drawPlay();
    } catch (err) {
      toast(`Could not sign in: ${err.message}`, "error");
    }
  }

  function join(message) {
    try {
      session.send(message);
    } catch (err) {
      toast(err.message, "error");
    }
  }

  function drawPlay() {
    clear(play);
    if (!session.connected || !lobbies) return;
    if (session.waiting) {
      const w = session.waiting;
      play.appendChild(h("section", { class: "panel waiting-table", "aria-label": "Your private table" },
        h("h2", {}, "Your private table"),
        h("p", {}, "Invite code: ", h("strong", { class: "invite", "data-invite": w.invite }, w.invite),
          ` · ${w.game} · ${plural(w.open_seats, "open seat")}`),
        h("p", {}, `At the table: ${w.players.join(", ")}`),
        h("p", { class: "small muted" }, "The game starts as soon as every seat is taken. Share the code."),
        h("button", { type: "button", onclick: () => { session.send({ type: "leave" }); session.waiting = null; drawPlay(); } }, "Leave this table")));
      return;
    }
    const quick = gameChooser(lobbies, { withCustom: false, withQuiet: false });
    const quickForm = h("form", { class: "panel", "aria-labelledby": "quick-h", onsubmit: (ev) => {
      ev.preventDefault();
      const c = quick.read();
      join({ type: "join", lobby: "practice", game: c.game, rules: c.rules, seats: c.seats, opponents: c.strength });
    } }, h("h2", { id: "quick-h" }, "Play now against house bots"), quick.controls,
    h("button", { type: "submit", class: "primary" }, "Play now"));

    const priv = gameChooser(lobbies, { withCustom: true, withQuiet: true });
    const botCount = h("input", { type: "number", name: "bots", min: 0, max: 5, value: 0, inputmode: "numeric" });
    const listed = h("input", { type: "checkbox", name: "listed", checked: true });
    listed.id = "listed-cb";
    const privForm = h("form", { class: "panel", "aria-labelledby": "priv-h", onsubmit: (ev) => {
      ev.preventDefault();
      let c;
      try { c = priv.read(); } catch (err) { toast(`The custom rule set is not JSON: ${err.message}`, "error"); return; }
      const create = { rules: c.rules, seats: c.seats, bots: Array(Number(botCount.value) || 0).fill(c.strength), listed: listed.checked };
      if (c.quiet_ms) create.quiet_ms = c.quiet_ms;
      join({ type: "join", lobby: "private", game: c.game, create });
    } }, h("h2", { id: "priv-h" }, "Create a private table"), priv.controls,
    field("House bots at the table", botCount, "The other seats stay open for people with the invite code."),
    h("div", { class: "field check" }, listed, h("label", { for: "listed-cb" }, "List the open seats in the lobby")),
    h("button", { type: "submit", class: "primary" }, "Create the table"));

    const code = h("input", { type: "text", name: "invite", maxlength: 12, autocapitalize: "characters", autocomplete: "off" });
    const inviteForm = h("form", { class: "panel", "aria-labelledby": "inv-h", onsubmit: (ev) => {
      ev.preventDefault();
      join({ type: "join", lobby: "private", invite: code.value.trim().toUpperCase() });
    } }, h("h2", { id: "inv-h" }, "Join by invite code"), field("Invite code", code), h("button", { type: "submit", class: "primary" }, "Join"));
    play.append(quickForm, privForm, inviteForm);
  }

  async function drawTables() {
    let data;
    try { data = await getJSON("/api/tables"); } catch (err) { return; }
    if (!tables.isConnected) return;
    clear(tables).appendChild(h("h2", { id: "tables-h" }, "Tables"));
    if (data.waiting.length) {
      tables.appendChild(h("h3", {}, "Open seats"));
      tables.appendChild(h("ul", { class: "tables" }, data.waiting.map((w) => h("li", {},
        h("span", {}, `${w.game} · ${w.rules} · ${w.players.join(", ")} · ${plural(w.open_seats, "open seat")}`),
        h("button", { type: "button", disabled: !session.connected, title: session.connected ? "" : "choose a display name first",
          onclick: () => join({ type: "join", lobby: "private", invite: w.invite }) }, `Take a seat (${w.invite})`)))));
    }
    tables.appendChild(h("h3", {}, "Running"));
    if (!data.running.length) tables.appendChild(h("p", { class: "muted" }, "No game is running right now."));
    else {
      tables.appendChild(h("ul", { class: "tables" }, data.running.map((t) => h("li", {},
        h("span", {}, `${t.game} · ${t.rules || "custom"} · ${t.lobby} · `,
          t.seats.map((s, i) => h("span", { class: `who ${s.kind}` }, `${i ? ", " : ""}${s.name}${s.kind === "guest" ? " (person)" : ""}${s.away ? " (away: house bot)" : ""}`))),
        h("a", { href: `/watch/${t.id}`, class: "button" }, "Watch")))));
    }
    tables.appendChild(h("p", {}, h("a", { href: "/replay" }, "Finished games and replays")));
  }

  cleanups.push(session.on((kind, data) => {
    if (kind === "game" && data.start && !data.end && session.current === data.id) navigate(`/table/${data.id}`);
    if (kind === "table") drawPlay();
    if (kind === "welcome" || kind === "closed") { drawYou(); drawPlay(); }
    if (kind === "error") toast(data.reason, "error");
  }));
  const timer = setInterval(drawTables, 3000);
  cleanups.push(() => clearInterval(timer));

  drawYou();
  getJSON("/api/lobbies").then((data) => { lobbies = data; drawPlay(); }).catch((err) => toast(err.message, "error"));
  drawTables();
  if (!session.connected && !session.connecting) {
    const saved = Session.saved();
    if (saved) session.connect(saved).then(() => { drawYou(); drawPlay(); }).catch(() => drawYou());
  }
  return () => cleanups.forEach((f) => f());
}
