// One name per game and rule set on every page (lobby, replays, leaderboard, table header).
//
// The server names every rule set with one function (GameSpec.rules_label in
// cardtable/core/registry.py): a preset is called by its preset name (three rounds of Cunegonda
// are "short"), any other rule set by the nearest preset and what differs ("classic (open
// auction)"). The HTTP reads carry that name as `rules_label`; the pages only show it.

import { h } from "./dom.js";

const GAMES = { kuhhandel: "Kuhhandel", cunegonda: "Cunegonda" };

/** The game's name as people write it. */
export function gameName(game) {
  return GAMES[game] || game;
}

/** The rule set's name from anything the server sent (`rules_label` first, then the preset). */
export function ruleSetName(x) {
  if (!x) return "";
  if (x.rules_label) return x.rules_label;
  if (x.rules_name) return x.rules_name;
  if (typeof x.rules === "string") return x.rules;
  return "custom rules";
}

/** "Kuhhandel · classic (open auction)": the title of a table, a replay or a leaderboard. */
export function gameTitle(x, label = null) {
  return `${gameName(x.game)} · ${label || ruleSetName(x)}`;
}

/**
 * A seat's name at the table, linked to its page when it has one (`pages` of game_start: a
 * person with an account, a stored bot; a guest has none). The page opens in a new tab, so
 * that following a name never leaves the game.
 */
export function seatName(names, pages, s, fallback = `seat ${s}`) {
  const name = names[s] || fallback;
  const page = pages && pages[s];
  if (!page) return name;
  return h("a", { href: page, target: "_blank", rel: "noopener", class: "seat-link", title: `${name}'s page (opens in a new tab)` }, name);
}

/**
 * The pages of a stored game's seats from GET /api/games/{id} (`seats_detail[].page` says the
 * name has one, `kind` whose: a person's account, else a stored bot), as `game_start.pages`
 * names them at the table: "/players/NAME", "/bots/NAME" or null (a guest).
 */
export function seatPages(detail) {
  return ((detail && detail.seats_detail) || []).map((s) =>
    (s.page ? `/${s.kind === "person" ? "players" : "bots"}/${encodeURIComponent(s.name)}` : null));
}

/**
 * Who holds a seat, as a tag (the table's public view, `seats[i]`): a person at the table, away
 * (the connection dropped), left (the house bot plays until they take the seat back), a bot.
 */
export function presenceTag(holder) {
  if (!holder) return null;
  const presence = holder.presence || (holder.away ? "away" : "here");
  const person = holder.kind === "guest" || holder.kind === "person";
  if (presence === "left") return h("span", { class: "tag away", "data-presence": "left", title: "they left the table: a house bot plays until they take the seat back" }, "left: house bot playing");
  if (presence === "taken over") return h("span", { class: "tag away", "data-presence": "taken over", title: "too many faults: the house bot plays the rest" }, "house bot playing");
  if (presence === "away") return h("span", { class: "tag away", "data-presence": "away", title: "their connection dropped: their decisions wait a moment, then a house bot answers" }, "away");
  if (holder.kind === "house") return h("span", { class: "tag bot", "data-presence": "house" }, "house bot");
  if (person) return h("span", { class: "tag person", "data-presence": "here", title: "at the table" }, "at the table");
  return h("span", { class: "tag bot", "data-presence": "here" }, "bot");
}
