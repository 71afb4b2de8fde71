// The lobby: who you are, play now against house bots, create or join a private table, and the
// tables running on this server.

import { h, clear, getJSON, toast } from "./dom.js";
import { refusal } from "./errors.js";
import { session, Session } from "./session.js";
import { gameName, gameTitle, rulesName } from "./names.js";
import { t } from "./i18n.js";
import { nameLink } from "./botpage.js";
import { accountBox, inviteLink, pendingInvite, preferredIdentity, ratedChoice, ratedWords, signOut } from "./account.js";

const KH_SEATS = { classic: [3, 5], competition: [3, 6], master: [3, 6], "master-duel": [2, 2] };

function seatRange(game, rules, lobbies) {
  if (game === "kuhhandel" && KH_SEATS[rules]) return KH_SEATS[rules];
  const info = lobbies.games[game];
  return info ? info.seat_range : [2, 6];
}

const STRENGTH = ["random", "simple", "heuristic", "strong", "expert", "learned"];
function botOrder(bots) {
  const rank = (b) => (STRENGTH.includes(b) ? STRENGTH.indexOf(b) : 2.5);
  return [...bots].sort((a, b) => rank(a) - rank(b));
}
/** House bots in words (the value sent stays the bot's name). */
const STRENGTH_WORDS = ["random", "simple", "heuristic", "strong", "expert", "learned"];
const strengthWords = (b) => (STRENGTH_WORDS.includes(b) ? t(`web.lobby.strength.${b}`) : b);
/** The lobby's defaults fit "me against three bots" of medium strength. */
const DEFAULT_SEATS = 4;
const DEFAULT_STRENGTH = "heuristic";

function field(label, control, help) {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  control.id = id;
  return h("div", { class: "field" }, h("label", { for: id }, label), control, help ? h("small", { class: "muted" }, help) : null);
}

function select(options, value, attrs = {}) {
  return h("select", attrs, options.map(([v, label]) => h("option", { value: v, selected: v === value }, label)));
}

/** The rule-set chooser shared by both forms; returns controls and a reader. */
/** Pace in words (the server's `pace` values: docs/protocol.md, "Pace and spectator delay"). */
// short enough for a closed select at 390 px ("Normal: the bots' moves come one at" was cut)
const PACE_WORDS = ["normal", "fast", "instant"];
const paceWords = (p) => (PACE_WORDS.includes(p) ? t(`web.lobby.pace.${p}`) : p);

/**
 * What this server's join message takes besides the rule set (read from its published schema,
 * GET /api/protocol/schema): the paces it offers and whether spectators can be delayed. An older
 * server has neither, and the lobby then shows no such controls.
 */
export async function tableOptions() {
  try {
    const schema = await getJSON("/api/protocol/schema");
    const props = (schema.client && schema.client.join && schema.client.join.properties) || {};
    return { paces: (props.pace && props.pace.enum) || null, delay: Boolean(props.spectator_delay_ms) };
  } catch (_) {
    return { paces: null, delay: false };
  }
}

/**
 * A form's last choices, kept in this browser: the lobby is drawn again whenever the session
 * changes (signed in, a table opened), and a player who chose a rule set must not find the form
 * back at its defaults, nor on their next visit.
 */
const CHOICES_KEY = "cardtable.lobby.choices";
function savedChoices(form) {
  try { return (JSON.parse(localStorage.getItem(CHOICES_KEY) || "{}") || {})[form] || {}; } catch (_) { return {}; }
}
function saveChoices(form, values) {
  try {
    const all = JSON.parse(localStorage.getItem(CHOICES_KEY) || "{}") || {};
    all[form] = values;
    localStorage.setItem(CHOICES_KEY, JSON.stringify(all));
  } catch (_) { /* storage full or blocked: the form still works, it just forgets */ }
}

function gameChooser(lobbies, { withCustom, withQuiet, remember }, options = { paces: null, delay: false }) {
  const games = Object.keys(lobbies.games);
  const game = select(games.map((g) => [g, gameName(g)]), "kuhhandel", { name: "game" });
  const rules = h("select", { name: "rules" });
  const seats = h("input", { type: "number", name: "seats", min: 2, max: 6, value: DEFAULT_SEATS, inputmode: "numeric" });
  const strength = h("select", { name: "strength" });
  const open = h("input", { type: "checkbox", name: "open" });
  const quiet = h("input", { type: "number", name: "quiet", min: 1, max: 60, step: 0.5, value: 5, inputmode: "decimal" });
  const rounds = h("input", { type: "number", name: "rounds", min: 1, max: 10, placeholder: t("web.lobby.rounds_placeholder"), inputmode: "numeric" });
  const custom = h("textarea", { name: "custom", rows: 3, placeholder: '{"preset": "classic", "auction_style": "open"}' });
  const khOnly = h("div", { class: "kh-only" },
    h("div", { class: "field check" }, open, h("label", { for: (open.id = `open-${Math.random().toString(36).slice(2, 7)}`) }, t("web.lobby.open_auction"))),
    withQuiet ? field(t("web.lobby.quiet"), quiet, t("web.lobby.quiet_help")) : null);
  const cuOnly = h("div", { class: "cu-only" }, field(t("web.lobby.rounds"), rounds, t("web.lobby.rounds_help")));
  const refresh = () => {
    const info = lobbies.games[game.value];
    clear(rules).append(...info.presets.map((p) => h("option", { value: p, selected: p === info.default_rules }, rulesName(p, game.value))));
    const medium = info.house_bots.includes(DEFAULT_STRENGTH) ? DEFAULT_STRENGTH : info.fallback_bot;
    clear(strength).append(...botOrder(info.house_bots).map((b) => h("option", { value: b, selected: b === medium }, strengthWords(b))));
    sync();
  };
  const sync = () => {
    const [lo, hi] = seatRange(game.value, rules.value, lobbies);
    seats.min = lo;
    seats.max = hi;
    const n = Number(seats.value);
    if (!(n >= lo && n <= hi)) seats.value = Math.min(hi, Math.max(lo, DEFAULT_SEATS));
    seats.disabled = lo === hi;
    khOnly.hidden = game.value !== "kuhhandel";
    quiet.disabled = !open.checked;
    cuOnly.hidden = game.value !== "cunegonda";
  };
  game.addEventListener("change", refresh);
  open.addEventListener("change", sync);
  rules.addEventListener("change", sync);
  const pace = options.paces ? select(options.paces.map((p) => [p, paceWords(p)]), options.paces.includes("normal") ? "normal" : options.paces[0], { name: "pace" }) : null;
  if (pace) pace.addEventListener("change", () => { pace.dataset.chosen = "1"; });
  const delay = options.delay ? h("input", { type: "number", name: "spectator_delay", min: 0, max: 600, step: 1, value: 0, inputmode: "numeric" }) : null;
  // the last choices come back (only those this server still offers), then every change is kept
  const saved = remember ? savedChoices(remember) : {};
  if (saved.game && lobbies.games[saved.game]) game.value = saved.game;
  refresh();
  const offered = (select_, v) => [...select_.options].some((o) => o.value === v);
  if (saved.rules && offered(rules, saved.rules)) rules.value = saved.rules;
  if (saved.strength && offered(strength, saved.strength)) strength.value = saved.strength;
  if (saved.seats) seats.value = saved.seats;
  if (typeof saved.open === "boolean") open.checked = saved.open;
  if (saved.quiet) quiet.value = saved.quiet;
  if (saved.rounds !== undefined) rounds.value = saved.rounds;
  if (pace && saved.pace && offered(pace, saved.pace)) { pace.value = saved.pace; pace.dataset.chosen = "1"; }
  if (delay && saved.delay !== undefined) delay.value = saved.delay;
  sync();
  const keep = () => saveChoices(remember, {
    game: game.value, rules: rules.value, strength: strength.value, seats: seats.value, open: open.checked,
    quiet: quiet.value, rounds: rounds.value, pace: pace && pace.dataset.chosen ? pace.value : undefined,
    delay: delay ? delay.value : undefined,
  });
  if (remember) {
    for (const control of [game, rules, strength, seats, open, quiet, rounds, pace, delay]) {
      if (control) { control.addEventListener("change", keep); control.addEventListener("input", keep); }
    }
  }
  const controls = [
    field(t("web.lobby.game"), game), field(t("web.lobby.rule_set"), rules), field(t("web.lobby.seats"), seats),
    field(t("web.lobby.strength"), strength, t("web.lobby.strength_help")),
    pace ? field(t("web.lobby.pace"), pace, t("web.lobby.pace_help")) : null,
    delay ? field(t("web.lobby.delay"), delay, t("web.lobby.delay_help")) : null,
    khOnly, cuOnly,
    withCustom ? h("details", {}, h("summary", {}, t("web.lobby.custom")), field(t("web.lobby.custom_json"), custom)) : null,
  ];
  const read = () => {
    let ruleValue = rules.value;
    if (game.value === "kuhhandel" && open.checked) ruleValue = { preset: rules.value, auction_style: "open" };
    if (game.value === "cunegonda" && rounds.value) ruleValue = { rounds: Number(rounds.value) };
    if (withCustom && custom.value.trim()) ruleValue = JSON.parse(custom.value);
    const out = { game: game.value, rules: ruleValue, seats: Number(seats.value), strength: strength.value };
    if (withQuiet && game.value === "kuhhandel" && open.checked) out.quiet_ms = Math.round(Number(quiet.value) * 1000);
    // the server's default pace is normal at a table with a person: sent only when chosen
    if (pace && pace.dataset.chosen) out.pace = pace.value;
    if (delay && Number(delay.value) > 0) out.spectator_delay_ms = Math.round(Math.min(600, Number(delay.value)) * 1000);
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
    h("h1", {}, t("web.title.lobby")),
    h("p", { class: "lead" }, t("web.lobby.lead")),
    you, play, tables));
  let lobbies = null;
  let options = { paces: null, delay: false };

  function drawYou() {
    clear(you);
    you.appendChild(h("h2", { id: "you-h" }, t("web.lobby.you")));
    if (session.connected) {
      you.append(
        h("p", {}, t("web.lobby.playing_as"), " ", session.you.kind === "person" ? h("a", { href: `/players/${encodeURIComponent(session.you.name)}` }, h("strong", {}, session.you.name)) : h("strong", {}, session.you.name),
          ` (${["guest", "person", "bot"].includes(session.you.kind) ? t(`web.lobby.kind.${session.you.kind}`) : session.you.kind}).`),
        h("button", { type: "button", onclick: async () => {
          if (session.you.kind === "person") await signOut(false);
          else { session.disconnect(); Session.forget(); }
          drawYou(); drawPlay();
        } }, t("web.lobby.sign_out")));
      const running = session.welcomeGames.filter((id) => !(session.games.get(id) || {}).end);
      if (running.length) {
        you.append(h("p", { class: "warn" }, t("web.lobby.hold_seat"), " ",
          running.map((id) => h("a", { href: `/table/${id}`, class: "button primary" }, t("web.lobby.back_to_table")))));
      }
      return;
    }
    const saved = Session.saved();
    const name = h("input", { type: "text", name: "guest", maxlength: 32, required: true, autocomplete: "nickname", value: saved && saved.kind === "guest" ? saved.name : "" });
    const guestForm = h("form", { class: "row", onsubmit: (ev) => {
      ev.preventDefault();
      const token = saved && saved.kind === "guest" ? saved.token : undefined;
      connect({ kind: "guest", name: name.value.trim() || "guest", token });
    } }, field(t("web.lobby.display_name"), name), h("button", { type: "submit", class: "primary" }, t("web.lobby.play_guest")));
    const botName = h("input", { type: "text", name: "bot", maxlength: 32, autocomplete: "username" });
    const botToken = h("input", { type: "password", name: "token", autocomplete: "current-password" });
    const botForm = h("form", { class: "row", onsubmit: (ev) => {
      ev.preventDefault();
      connect({ kind: "bot", name: botName.value.trim(), token: botToken.value.trim() });
    } }, field(t("web.lobby.bot_name"), botName), field(t("web.lobby.token"), botToken), h("button", { type: "submit" }, t("web.nav.signin")));
    you.append(accountBox(connect));
    you.append(h("p", {}, t("web.lobby.choose_name")),
      guestForm, h("details", {}, h("summary", {}, t("web.lobby.as_bot")),
        h("p", { class: "small muted" }, t("web.lobby.as_bot_help")), botForm));
  }

  async function connect(identity) {
    try {
      const hadFocus = document.activeElement && document.activeElement !== document.body;
      await session.connect(identity);
      drawYou();
      drawPlay();
      // the form that had the focus is gone: the focus goes to "You" (Playing as …), next to
      // the forms to play, not back to the top of the page
      const heading = you.querySelector("#you-h");
      if (hadFocus && heading && !main.contains(document.activeElement)) {
        heading.setAttribute("tabindex", "-1");
        heading.focus();
      }
    } catch (err) {
      toast(t("web.lobby.could_not_sign_in", { error: err.message }), "error");
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
      play.appendChild(h("section", { class: "panel waiting-table", "aria-label": t("web.lobby.your_private") },
        h("h2", {}, t("web.lobby.your_private")),
        h("p", {}, t("web.lobby.invite_code"), " ", h("strong", { class: "invite", "data-invite": w.invite }, w.invite),
          ` · ${gameName(w.game)} · ${t("web.lobby.open_seats", { count: w.open_seats })} · `, ratedWords(w.rated)),
        inviteLink(w.invite),
        h("p", {}, t("web.lobby.at_the_table", { names: w.players.join(", ") })),
        h("p", { class: "small muted" }, t("web.lobby.starts_when_full")),
        h("button", { type: "button", onclick: () => { session.send({ type: "leave" }); session.waiting = null; drawPlay(); } }, t("web.lobby.leave_this"))));
      return;
    }
    const quick = gameChooser(lobbies, { withCustom: false, withQuiet: false, remember: "quick" }, options);
    const quickRated = ratedChoice("quick-rated");
    const privRated = ratedChoice("priv-rated");
    const quickForm = h("form", { class: "panel", "aria-labelledby": "quick-h", onsubmit: (ev) => {
      ev.preventDefault();
      const c = quick.read();
      const message = { type: "join", lobby: "practice", game: c.game, rules: c.rules, seats: c.seats, opponents: c.strength };
      if (quickRated.read()) message.rated = true;
      if (c.pace) message.pace = c.pace;
      if (c.spectator_delay_ms) message.spectator_delay_ms = c.spectator_delay_ms;
      join(message);
    } }, h("h2", { id: "quick-h" }, t("web.lobby.quick")), quick.controls, quickRated.control,
    h("button", { type: "submit", class: "primary" }, t("web.lobby.play_now")));

    const priv = gameChooser(lobbies, { withCustom: true, withQuiet: true, remember: "private" }, options);
    const botCount = h("input", { type: "number", name: "bots", min: 0, max: 5, value: 0, inputmode: "numeric" });
    // private means unlisted: only the invite code brings people, unless the creator lists it
    const listed = h("input", { type: "checkbox", name: "listed" });
    listed.id = "listed-cb";
    const privForm = h("form", { class: "panel", "aria-labelledby": "priv-h", onsubmit: (ev) => {
      ev.preventDefault();
      let c;
      try { c = priv.read(); } catch (err) { toast(t("web.lobby.not_json", { error: err.message }), "error"); return; }
      const create = { rules: c.rules, seats: c.seats, bots: Array(Number(botCount.value) || 0).fill(c.strength), listed: listed.checked };
      if (c.quiet_ms) create.quiet_ms = c.quiet_ms;
      if (privRated.read()) create.rated = true;
      if (c.pace) create.pace = c.pace;
      if (c.spectator_delay_ms) create.spectator_delay_ms = c.spectator_delay_ms;
      join({ type: "join", lobby: "private", game: c.game, create });
    } }, h("h2", { id: "priv-h" }, t("web.lobby.create_private")), priv.controls,
    field(t("web.lobby.house_bots"), botCount, t("web.lobby.house_bots_help")),
    h("div", { class: "field check" }, listed, h("label", { for: "listed-cb" }, t("web.lobby.list_seats"))), privRated.control,
    h("button", { type: "submit", class: "primary" }, t("web.lobby.create")));

    const code = h("input", { type: "text", name: "invite", maxlength: 12, autocapitalize: "characters", autocomplete: "off" });
    const inviteForm = h("form", { class: "panel", "aria-labelledby": "inv-h", onsubmit: (ev) => {
      ev.preventDefault();
      join({ type: "join", lobby: "private", invite: code.value.trim().toUpperCase() });
    } }, h("h2", { id: "inv-h" }, t("web.lobby.join_by_code")), field(t("web.lobby.invite_code_label"), code), h("button", { type: "submit", class: "primary" }, t("web.lobby.join")));
    play.append(quickForm, privForm, inviteForm);
  }

  // the list read last (with whether this person could take a seat): the same list again is
  // left as it is, not built anew every 3 s (a button under the pointer stays put). A running
  // table's running_s grows at every read and is not shown: it is left out of the comparison
  let shownTables = null;
  const unshown = (key, value) => (key === "running_s" ? undefined : value);
  async function drawTables() {
    let data;
    try { data = await getJSON("/api/tables"); } catch (err) { return; }
    if (!tables.isConnected) return;
    const key = `${session.connected} ${JSON.stringify(data, unshown)}`;
    if (key === shownTables) return;
    shownTables = key;
    clear(tables).appendChild(h("h2", { id: "tables-h" }, t("web.lobby.tables")));
    if (data.waiting.length) {
      tables.appendChild(h("h3", {}, t("web.lobby.open_seats_h")));
      tables.appendChild(h("ul", { class: "tables" }, data.waiting.map((w) => h("li", {},
        h("span", {}, `${gameTitle(w)} · `, w.players.map((n, i) => [i ? ", " : "", nameLink(n, w.pages && w.pages[i])]),
          ` · ${t("web.lobby.open_seats", { count: w.open_seats })} · `, ratedWords(w.rated)),
        h("button", { type: "button", disabled: !session.connected, title: session.connected ? "" : t("web.lobby.name_first"),
          onclick: () => join({ type: "join", lobby: "private", invite: w.invite }) }, t("web.lobby.take_seat", { invite: w.invite }))))));
    }
    tables.appendChild(h("h3", {}, t("web.lobby.running")));
    if (!data.running.length) tables.appendChild(h("p", { class: "muted" }, t("web.lobby.none_running")));
    else {
      tables.appendChild(h("ul", { class: "tables" }, data.running.map((tb) => h("li", {},
        h("span", {}, `${gameTitle(tb)} · ${t(`web.lobby.lobby.${tb.lobby}`)} · `, ratedWords(tb.rated), " · ",
          tb.seats.map((s, i) => h("span", { class: `who ${s.kind}` }, i ? ", " : "", nameLink(s.name, s.page, false, s.kind),
            `${s.kind === "guest" || s.kind === "person" ? ` ${t("web.lobby.person")}` : ""}${s.presence === "left" ? ` ${t("web.lobby.left_house")}` : s.away ? ` ${t("web.lobby.away_house")}` : ""}`))),
        tb.spectator_delay_ms ? h("span", { class: "small muted" }, ` ${t("web.lobby.delayed", { seconds: Math.round(tb.spectator_delay_ms / 1000) })}`) : null,
        h("a", { href: `/watch/${tb.id}`, class: "button", "aria-label": t("web.lobby.watch_label", { title: gameTitle(tb), names: tb.names.join(", ") }) }, t("web.lobby.watch"))))));
    }
    tables.appendChild(h("p", {}, h("a", { href: "/replay" }, t("web.lobby.finished"))));
  }

  cleanups.push(session.on((kind, data) => {
    if (kind === "game" && data.start && !data.end && session.current === data.id) navigate(`/table/${data.id}`);
    if (kind === "table") drawPlay();
    if (kind === "welcome" || kind === "closed") { drawYou(); drawPlay(); }
    if (kind === "error") toast(refusal(data), "error");
  }));
  // read every 3 s while the lobby is in view; a hidden tab (another tab in front, a phone's
  // screen off) reads nothing, and reads at once when it is seen again
  let timer = null;
  const poll = () => {
    clearInterval(timer);
    timer = document.visibilityState === "hidden" ? null : setInterval(drawTables, 3000);
  };
  const seen = () => { if (document.visibilityState !== "hidden") drawTables(); poll(); };
  document.addEventListener("visibilitychange", seen);
  cleanups.push(() => { clearInterval(timer); document.removeEventListener("visibilitychange", seen); });
  poll();

  drawYou();
  Promise.all([getJSON("/api/lobbies"), tableOptions()])
    .then(([data, opts]) => { lobbies = data; options = opts; drawPlay(); })
    .catch((err) => toast(err.message, "error"));
  drawTables();
  // an invite link (/?invite=CODE) joins that table once an identity is connected
  const joinInvite = () => {
    const code = pendingInvite();
    if (code && session.connected && !session.waiting) {
      history.replaceState(history.state, "", "/");
      join({ type: "join", lobby: "private", invite: code });
    }
  };
  cleanups.push(session.on((kind) => { if (kind === "welcome") joinInvite(); }));
  if (!session.connected && !session.connecting) {
    preferredIdentity().then((saved) => {
      // the person may have signed in meanwhile (a slow /api/account): a second connection
      // with the same identity would replace the first
      if (!saved || session.connected || session.connecting) return;
      session.connect(saved).then(() => { drawYou(); drawPlay(); }).catch(() => drawYou());
    });
  } else joinInvite();
  if (pendingInvite() && !session.connected) toast(t("web.lobby.invite_pending", { invite: pendingInvite() }));
  return () => cleanups.forEach((f) => f());
}
