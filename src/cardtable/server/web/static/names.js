// One name per game and rule set on every page (lobby, replays, leaderboard, table header).
//
// The server names every rule set with one function (GameSpec.rules_label in
// cardtable/core/registry.py): a preset is called by its preset name (three rounds of Cunegonda
// are "short"), any other rule set by the nearest preset and what differs ("classic (open
// auction)"). The HTTP reads carry that name as `rules_label`; the pages only show it.

import { h } from "./dom.js";
import { t, has } from "./i18n.js";

/** The games by their own names (proper names), where a catalog has none. */
const GAMES = { kuhhandel: "Kuhhandel", cunegonda: "Cunegonda" };

/** The game's name as people write it there (the catalog's game.kuhhandel: Koehandel in Dutch). */
export function gameName(game) {
  return has(`game.${game}`) ? t(`game.${game}`) : GAMES[game] || game;
}

/**
 * A rule set's name in the person's language: a preset as each edition is known there (the
 * catalog's `ruleset.{name}`); a label the catalog does not hold ("classic (open auction)") as
 * the server wrote it, its preset part translated.
 */
export function rulesName(label, game) {
  if (!label) return "";
  if (has(`ruleset.${game}.${label}`)) return t(`ruleset.${game}.${label}`);
  const m = /^([\w-]+)( .*)$/.exec(label);
  return m && has(`ruleset.${game}.${m[1]}`) ? t(`ruleset.${game}.${m[1]}`) + m[2] : label;
}

/** The rule set's name from anything the server sent (`rules_label` first, then the preset). */
export function ruleSetName(x) {
  if (!x) return "";
  if (x.rules_label) return rulesName(x.rules_label, x.game);
  if (x.rules_name) return rulesName(x.rules_name, x.game);
  if (typeof x.rules === "string") return rulesName(x.rules, x.game);
  return t("web.names.custom_rules");
}

/**
 * The title of a table, a replay or a leaderboard: the edition's name where the catalog knows
 * the preset ("You're Bluffing! (open auction)", "Kuhhandel Master": it names the game), else
 * the game and the rule set ("Kuhhandel · custom rules").
 */
export function gameTitle(x, label = null) {
  const rules = label || x.rules_label || x.rules_name || (typeof x.rules === "string" ? x.rules : "");
  const preset = /^[\w-]+/.exec(rules || "");
  if (preset && has(`ruleset.${x.game}.${preset[0]}`)) return rulesName(rules, x.game);
  return `${gameName(x.game)} · ${label ? rulesName(label, x.game) : ruleSetName(x)}`;
}

/**
 * A seat's name at the table, linked to its page when it has one (`pages` of game_start: a
 * person with an account, a stored bot; a guest has none). The page opens in a new tab, so
 * that following a name never leaves the game.
 */
export function seatName(names, pages, s, fallback = `#${s}`) {
  const name = names[s] || fallback;
  const page = pages && pages[s];
  if (!page) return name;
  return h("a", { href: page, target: "_blank", rel: "noopener", class: "seat-link", title: t("web.names.page_title", { name }) }, name);
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
  if (presence === "left") return h("span", { class: "tag away", "data-presence": "left", title: t("web.names.left_title") }, t("web.names.left"));
  if (presence === "taken over") return h("span", { class: "tag away", "data-presence": "taken over", title: t("web.names.taken_over_title") }, t("web.names.taken_over"));
  if (presence === "away") return h("span", { class: "tag away", "data-presence": "away", title: t("web.names.away_title") }, t("web.names.away"));
  if (holder.kind === "house") return h("span", { class: "tag bot", "data-presence": "house" }, t("web.names.house_bot"));
  if (person) return h("span", { class: "tag person", "data-presence": "here", title: t("web.names.here") }, t("web.names.here"));
  return h("span", { class: "tag bot", "data-presence": "here" }, t("web.names.bot"));
}
